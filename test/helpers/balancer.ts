/**
 * A per-request round-robin HTTP balancer on 127.0.0.1, in front of several MCP server instances:
 * each request goes to the next backend in turn, whatever client or session it comes from, so
 * consecutive requests of one client land on different instances. It records which backend
 * served each JSON-RPC request (method, and tool name for tools/call).
 */
import { Agent, createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface Routed {
  backend: number;
  method?: string;
  tool?: string;
}

export interface Balancer {
  url: string;
  /** Every request, in arrival order. */
  routed: Routed[];
  close(): Promise<void>;
}

export async function startBalancer(backends: string[]): Promise<Balancer> {
  const targets = backends.map((url) => new URL(url));
  const routed: Routed[] = [];
  let next = 0;
  // A fresh connection per forwarded request: a pooled one could be closed by the backend's 5 s keep-alive timeout
  // just as a request goes out on it (ECONNRESET), which would test Node's keep-alive race, not the servers.
  const agent = new Agent({ keepAlive: false });
  const server: Server = createServer((req, res) => {
    const backend = next++ % targets.length;
    const target = targets[backend]!;
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      routed.push({ backend, ...describe(body) });
      const upstream = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          path: req.url,
          method: req.method,
          headers: { ...req.headers, host: target.host },
          agent,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on("error", (error) => res.writeHead(502).end(String(error)));
      upstream.end(body);
    });
  });
  // Clients keep connections to the balancer alive: outlast their idle pools, like a real balancer does.
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    routed,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function describe(body: Buffer): Omit<Routed, "backend"> {
  try {
    const message = JSON.parse(body.toString("utf8")) as { method?: string; params?: { name?: string } };
    return {
      ...(message.method && { method: message.method }),
      ...(typeof message.params?.name === "string" && { tool: message.params.name }),
    };
  } catch {
    return {};
  }
}
