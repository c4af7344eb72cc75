/**
 * A real local HTTP upstream for end-to-end tests. Routes are plain
 * functions; every request is recorded so tests can assert what arrived.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  rawUrl: string;
  headers: IncomingMessage["headers"];
  body: string;
}

export type Route = (request: RecordedRequest, response: ServerResponse) => void | Promise<void>;

export interface Upstream {
  url: string;
  requests: RecordedRequest[];
  route(method: string, pattern: RegExp, handler: Route): void;
  close(): Promise<void>;
}

export async function startUpstream(): Promise<Upstream> {
  const routes: Array<{ method: string; pattern: RegExp; handler: Route }> = [];
  const requests: RecordedRequest[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? "/", "http://upstream");
    const recorded: RecordedRequest = {
      method: req.method ?? "GET",
      path: url.pathname,
      query: url.searchParams,
      rawUrl: req.url ?? "/",
      headers: req.headers,
      body: Buffer.concat(chunks).toString("utf8"),
    };
    requests.push(recorded);
    const match = routes.find((route) => route.method === recorded.method && route.pattern.test(recorded.path));
    if (!match) return json(res, 404, { message: `no route for ${recorded.method} ${recorded.path}` });
    try {
      await match.handler(recorded, res);
    } catch (error) {
      if (!res.headersSent) json(res, 500, { message: String(error) });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    route: (method, pattern, handler) => routes.push({ method, pattern, handler }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}
