/**
 * Real MCP clients connected to a generated server over stdio or Streamable HTTP: the v1 SDK's
 * `Client` (2025-11-25, initialize handshake) and the v2 `Client` pinned to 2026-07-28.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as StreamableHTTPClientTransportV2,
} from "@modelcontextprotocol/client";
import { StdioClientTransport as StdioClientTransportV2 } from "@modelcontextprotocol/client/stdio";

export interface StdioSession {
  client: Client;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  pid(): number;
  close(): Promise<void>;
}

/** A generated server on stdio, driven by the SDK's Client, with its stderr and pid at hand. */
export async function stdioSession(
  projectDir: string,
  env: Record<string, string>,
  args: string[] = [],
): Promise<StdioSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(projectDir, "dist", "index.js"), ...args],
    env: { PATH: process.env.PATH ?? "", ...env },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const client = new Client({ name: "e2e-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, stderr: () => stderr, pid: () => transport.pid!, close: () => client.close() };
}

export async function connectStdio(
  projectDir: string,
  env: Record<string, string>,
  args: string[] = [],
): Promise<Client> {
  return (await stdioSession(projectDir, env, args)).client;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

export interface HttpServerProcess {
  url: string;
  process: ChildProcess;
  /** Everything the server wrote to stderr so far (logs go there; stdout is reserved). */
  stderr(): string;
  stop(): Promise<void>;
}

/** Starts a generated server on Streamable HTTP and waits for its "listening on" line. */
export async function startHttpServer(
  projectDir: string,
  env: Record<string, string>,
  args: string[] = [],
): Promise<HttpServerProcess> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [join(projectDir, "dist", "index.js"), "--transport", "http", "--port", String(port), ...args],
    {
      env: { PATH: process.env.PATH ?? "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  for (let attempt = 0; !/listening on /.test(stderr); attempt++) {
    if (child.exitCode !== null || attempt > 200) throw new Error(`server did not start: ${stderr}`);
    await sleep(50);
  }
  const host = /listening on http:\/\/([^/]+)\/mcp/.exec(stderr)![1]!.replace("0.0.0.0", "127.0.0.1");
  return {
    url: `http://${host}/mcp`,
    process: child,
    stderr: () => stderr,
    stop: async () => {
      if (child.exitCode === null) child.kill();
      await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once("exit", resolve)));
    },
  };
}

export async function connectHttp(url: string): Promise<Client> {
  const client = new Client({ name: "e2e-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/* -------------------------------------------------------------------------- */
/* The v2 client (@modelcontextprotocol/client), pinned to 2026-07-28          */
/* -------------------------------------------------------------------------- */

/** The protocol revision the v2 helpers pin: no initialize, server/discover first, everything per request. */
export const MODERN_PROTOCOL = "2026-07-28";

export interface ModernClientOptions {
  /**
   * Declare form elicitation and answer every question with this action (and `confirm: true` on accept):
   * destructive calls then go through input_required. Absent: the client cannot ask the user.
   */
  elicitation?: "accept" | "decline" | "cancel";
}

function modernClient(options: ModernClientOptions): ClientV2 {
  const client = new ClientV2(
    { name: "e2e-test-v2", version: "2.0.0" },
    {
      versionNegotiation: { mode: { pin: MODERN_PROTOCOL } },
      ...(options.elicitation && { capabilities: { elicitation: { form: {} } } }),
    },
  );
  const action = options.elicitation;
  if (action)
    client.setRequestHandler("elicitation/create", async () =>
      action === "accept" ? { action, content: { confirm: true } } : { action },
    );
  return client;
}

export interface ModernStdioSession {
  client: ClientV2;
  stderr(): string;
  close(): Promise<void>;
}

/** A generated server on stdio, driven by the v2 Client pinned to 2026-07-28 (which probes a throwaway copy with server/discover first). */
export async function modernStdioSession(
  projectDir: string,
  env: Record<string, string>,
  args: string[] = [],
  options: ModernClientOptions = {},
): Promise<ModernStdioSession> {
  const transport = new StdioClientTransportV2({
    command: process.execPath,
    args: [join(projectDir, "dist", "index.js"), ...args],
    env: { PATH: process.env.PATH ?? "", ...env },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const client = modernClient(options);
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

export async function connectModernHttp(
  url: string,
  options: ModernClientOptions & { headers?: Record<string, string> } = {},
): Promise<ClientV2> {
  const client = modernClient(options);
  await client.connect(
    new StreamableHTTPClientTransportV2(
      new URL(url),
      options.headers ? { requestInit: { headers: options.headers } } : undefined,
    ),
  );
  return client;
}
