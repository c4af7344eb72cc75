/** Shared plumbing for the hardening tests: clients whose stderr is captured, raw JSON-RPC over HTTP. */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { join } from "node:path";
import { generateAndBuild } from "../helpers/generated.js";
import { freePort, startHttpServer, type HttpServerProcess } from "../helpers/mcp.js";
import { SAMPLES } from "../helpers/pipeline.js";
import { json, startUpstream } from "../helpers/upstream.js";

export { stdioSession, type StdioSession } from "../helpers/mcp.js";

export type HttpSession = HttpServerProcess;

/** A generated server on Streamable HTTP, with its stderr kept from the first byte. */
export const httpSession = startHttpServer;

export async function httpClient(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "hardening-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
  options: { signal?: AbortSignal; timeout?: number } = {},
): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args }, undefined, options)) as CallToolResult;
}

export type ErrorShape = {
  code: string;
  message: string;
  retry_after_ms?: number;
  details?: Record<string, unknown>;
  issues: Array<Record<string, unknown>>;
  recovery_actions?: string[];
};

export function errorOf(result: CallToolResult): ErrorShape {
  if (!result.isError) throw new Error(`expected an error result, got ${JSON.stringify(result).slice(0, 500)}`);
  return (result.structuredContent as { error: ErrorShape }).error;
}

export function dataOf(result: CallToolResult): unknown {
  if (result.isError)
    throw new Error(`expected success, got ${JSON.stringify(result.structuredContent).slice(0, 800)}`);
  return (result.structuredContent as { data?: unknown }).data;
}

/** One raw POST to the MCP endpoint (node:http, so Host can be set too); `body` is sent as-is when a string; `json` is the JSON-RPC answer (from JSON or SSE). */
export async function rawPost(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string; json: unknown; headers: IncomingHttpHeaders }> {
  const payload = typeof body === "string" ? body : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "content-length": String(Buffer.byteLength(payload)),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          let json: unknown;
          try {
            // A 2025-era answer may come as an SSE stream (the SDK's stateless legacy serving): its last `data:` line is the response.
            const sse = String(res.headers["content-type"] ?? "").startsWith("text/event-stream");
            json = JSON.parse(
              sse
                ? text
                    .split("\n")
                    .filter((line) => line.startsWith("data: "))
                    .at(-1)!
                    .slice(6)
                : text,
            );
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, text, json, headers: res.headers });
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

/** A port nothing listens on: connecting to it is refused. */
export async function closedPort(): Promise<number> {
  return freePort();
}

export const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

export function toolCall(id: number | string, name: string, args: unknown): Record<string, unknown> {
  return { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } };
}

/** What the conformance suites test: the Petstore sample served over HTTP, its upstream answering every GET with []. */
export interface ConformanceTarget {
  server: HttpSession;
  stop(): Promise<void>;
}

export async function startConformanceTarget(): Promise<ConformanceTarget> {
  const upstream = await startUpstream();
  upstream.route("GET", /.*/, (_req, res) => json(res, 200, []));
  const project = await generateAndBuild(join(SAMPLES, "petstore.yaml"));
  const server = await httpSession(project.dir, {
    PETSTORE_BASE_URL: `${upstream.url}/v1`,
    PETSTORE_API_KEY: "conformance-key",
  });
  return {
    server,
    stop: async () => {
      await server.stop();
      await upstream.close();
    },
  };
}

/** One check in a conformance scenario's checks.json (@modelcontextprotocol/conformance). */
export interface ConformanceCheck {
  id: string;
  status: string;
  errorMessage?: string;
}
