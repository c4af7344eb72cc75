/**
 * Streamable HTTP, stateless: every POST to /mcp gets a fresh `Server` from
 * the SDK's `createMcpHandler`, which serves 2026-07-28 requests (protocol
 * version and client capabilities in each request's `_meta`) and 2025-era
 * ones (the initialize handshake, answered per request without sessions)
 * from the same factory. Nothing is kept between requests, so any number of
 * clients can talk to one process, each may re-initialize at will, and a
 * restart loses nothing. GET (a standalone SSE stream) and DELETE (ending a
 * session) only mean something with sessions, so they answer 405.
 *
 * Statelessness is also what lets several instances run behind a load
 * balancer: any instance can answer any request.
 *
 * Protection, in order: a loopback-bound server (the default) answers only
 * requests whose Host and Origin are loopback (DNS rebinding); with
 * `mcpToken` (`<PREFIX>_MCP_TOKEN` / `--mcp-token`) every /mcp request must
 * carry `Authorization: Bearer <token>`, else 401. A client that drops its
 * connection cancels its in-flight calls (their upstream requests are aborted).
 */
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server as HttpServer,
  type ServerResponse,
} from "node:http";
import { createHash, timingSafeEqual } from "node:crypto";
import type { AddressInfo } from "node:net";
import { createMcpHandler, type AuthInfo, type McpServerFactory } from "@modelcontextprotocol/server";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { watchingConnection } from "./server.js";

export interface HttpServerOptions {
  host: string;
  /** 0 picks a free port (tests). */
  port: number;
  log?: (line: string) => void;
  /** When set, /mcp requires `Authorization: Bearer <mcpToken>`. */
  mcpToken?: string;
  /**
   * Every /mcp request must carry `Authorization: Bearer <token>`, and the token is handed to the MCP layer
   * (`req.auth`, the SDK's pass-through authInfo) to be sent upstream: each user acts as themselves. The upstream
   * judges the token; this server does not. Cannot be combined with `mcpToken`, which uses the same header.
   */
  forwardAuthorization?: boolean;
}

export interface RunningHttpServer {
  /** The MCP endpoint, e.g. http://127.0.0.1:3000/mcp. */
  url: URL;
  httpServer: HttpServer;
  close(): Promise<void>;
}

const LOOPBACK_HOSTNAMES = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

export async function startHttpServer(
  createMcpServer: McpServerFactory,
  options: HttpServerOptions,
): Promise<RunningHttpServer> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const loopbackOnly = LOOPBACK_HOSTNAMES.has(options.host);
  const expectedToken = options.mcpToken ? digest(options.mcpToken) : undefined;
  if (options.forwardAuthorization && expectedToken) {
    throw new Error(
      "The MCP token (--mcp-token / _MCP_TOKEN) cannot be combined with forwarded authorization: " +
        "both use the Authorization header. Unset the MCP token; each caller's own token is then required and sent upstream.",
    );
  }
  if (!loopbackOnly && !expectedToken && !options.forwardAuthorization) {
    log(
      `Warning: the MCP endpoint listens on ${options.host} without a token; anyone who can ` +
        `reach it can call the API with this server's credentials. Set --mcp-token (or the ` +
        `_MCP_TOKEN env var).`,
    );
  }

  const onerror = (error: Error) => log(`MCP request failed: ${error.stack ?? error.message}`);
  const mcpHandler = createMcpHandler(createMcpServer, { legacy: "stateless", onerror });
  const handleMcpPost = toNodeHandler(mcpHandler, { onerror });

  const httpServer = createHttpServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      log(`HTTP request failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      if (!res.headersSent) sendJsonRpcError(res, 500, -32603, "Internal server error");
      else res.end();
    });
  });

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const pathname = new URL(req.url ?? "/", "http://placeholder").pathname;
    if (pathname === "/healthz") {
      res.writeHead(200, { "content-type": "application/json" }).end('{"status":"ok"}');
      return;
    }
    if (pathname !== "/mcp") {
      res.writeHead(404, { "content-type": "text/plain" }).end("Not found: the MCP endpoint is /mcp\n");
      return;
    }
    // DNS rebinding: a web page can make a browser send requests to 127.0.0.1 under a foreign
    // Host/Origin. A loopback-bound server only answers requests that say they are for loopback.
    if (loopbackOnly && !isLoopbackRequest(req)) {
      sendJsonRpcError(res, 403, -32000, "Forbidden: this server only accepts requests addressed to localhost");
      return;
    }
    if (expectedToken && !hasToken(req, expectedToken)) {
      res.setHeader("www-authenticate", 'Bearer realm="mcp"');
      sendJsonRpcError(res, 401, -32001, "Unauthorized: send Authorization: Bearer <token> (the server's MCP token)");
      return;
    }
    if (options.forwardAuthorization) {
      const token = bearerToken(req);
      if (token === undefined) {
        res.setHeader("www-authenticate", 'Bearer realm="mcp"');
        sendJsonRpcError(res, 401, -32001, "Unauthorized: send Authorization: Bearer <your token for the API>");
        return;
      }
      // The SDK passes req.auth through as the request's authInfo (ctx.http.authInfo in the tools/call handler).
      (req as IncomingMessage & { auth?: AuthInfo }).auth = { token, clientId: "forwarded", scopes: [] };
    }
    if (req.method !== "POST") {
      res.setHeader("allow", "POST");
      sendJsonRpcError(res, 405, -32000, "Method not allowed: this server is stateless, use POST");
      return;
    }
    await watchingConnection(droppedSignal(res), () => handleMcpPost(req, res));
  }

  // Behind a load balancer: keep idle connections open longer than the balancer does (AWS ALB and nginx: 60 s), else
  // Node's 5 s default closes one just as the balancer sends a request on it, and the client gets a 502.
  httpServer.keepAliveTimeout = 65_000;
  httpServer.headersTimeout = 66_000;

  await new Promise<void>((resolve, reject) => {
    httpServer.once("error", reject);
    httpServer.listen(options.port, options.host, () => {
      httpServer.off("error", reject);
      resolve();
    });
  });

  const address = httpServer.address() as AddressInfo;
  const hostForUrl = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = new URL(`http://${hostForUrl}:${address.port}/mcp`);
  log(`MCP endpoint listening on ${url.href} (health check: /healthz)`);

  return {
    url,
    httpServer,
    close: async () => {
      await mcpHandler.close();
      await new Promise<void>((resolve, reject) => {
        httpServer.close((error) => (error ? reject(error) : resolve()));
        httpServer.closeAllConnections();
      });
    },
  };
}

/**
 * Aborts when the connection closes before the answer is complete: our own signal, held by the listener, because
 * the SDK's (through the web Request it builds) can be lost to a GC before the drop (see watchingConnection).
 */
function droppedSignal(res: ServerResponse): AbortSignal {
  const dropped = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) dropped.abort(new Error("The HTTP client closed the connection"));
  });
  return dropped.signal;
}

function isLoopbackRequest(req: IncomingMessage): boolean {
  const hostHeader = req.headers.host;
  if (!hostHeader || !LOOPBACK_HOSTNAMES.has(hostnameOf(`http://${hostHeader}`) ?? "")) return false;
  const origin = req.headers.origin;
  return origin === undefined || LOOPBACK_HOSTNAMES.has(hostnameOf(origin) ?? "");
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

/** Constant-time comparison (of digests, so the token's length does not leak either). */
function hasToken(req: IncomingMessage, expected: Buffer): boolean {
  const token = bearerToken(req);
  return token !== undefined && timingSafeEqual(digest(token), expected);
}

function bearerToken(req: IncomingMessage): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? "")?.[1];
}

function hostnameOf(url: string): string | undefined {
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}

function sendJsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  res
    .writeHead(status, { "content-type": "application/json" })
    .end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}
