#!/usr/bin/env node
/**
 * Entry point: `node dist/index.js [--transport stdio|http] [--port N] [--host H]
 * [--tools per-operation|dispatch|discovery|auto] [--include-tags a,b] ...` (see `--help`).
 *
 * The only module that reads `process.argv` and `process.env`, once: the
 * configuration is resolved here (runtime/config/) and passed down.
 *
 * Logs go to stderr only: with the stdio transport, stdout IS the protocol
 * channel and a stray line there breaks the client.
 */
import { handlers } from "./runtime/handlers.js";
import { hooks } from "./hooks.js";
import { ConfigError, loadRuntimeConfig, type RuntimeConfig } from "./runtime/config/config.js";
import { openToolsFile, type ToolsFile } from "./runtime/shared/tool-data.js";
import { createServerFromRuntime, instructionsWithoutTools, type DeferredRuntime } from "./runtime/mcp/server.js";
import { createToolRuntime, type ToolRuntime } from "./runtime/server/runtime.js";
import { ResponseCache } from "./runtime/call/response-cache.js";
import { createHandleCodec, HandleKeyError, type HandleCodec } from "./runtime/stateless/handles.js";
import { responseHandleMinter, withStatelessReads } from "./runtime/stateless/reads.js";
import { StatelessOperationRegistry } from "./runtime/stateless/operations.js";
import { hardeningOptions } from "./runtime/config/hardening.js";
import type { Env } from "./runtime/upstream/auth.js";

// Read here only: settings are resolved from it once (below), credentials and the base URL override looked up in it.
const env: Env = process.env;

function logLine(line: string): void {
  process.stderr.write(`${line}\n`);
}

async function main(): Promise<void> {
  // dist/index.js -> data/tools.json at the project root.
  const toolsFile = openToolsFile(new URL("../data/tools.json", import.meta.url));

  let config: RuntimeConfig;
  try {
    const parsed = loadRuntimeConfig(process.argv.slice(2), env, toolsFile.api);
    if (parsed.kind === "help") {
      process.stdout.write(`${parsed.text}\n`);
      return;
    }
    config = parsed.config;
  } catch (error) {
    if (error instanceof ConfigError) {
      logLine(error.message);
      process.exitCode = 2;
      return;
    }
    throw error;
  }

  let codec: HandleCodec;
  try {
    // Signed handles (read_response pages) that any instance sharing <PREFIX>_HANDLE_KEY can serve.
    codec = createHandleCodec(toolsFile.api.envPrefix, env);
  } catch (error) {
    if (!(error instanceof HandleKeyError)) throw error;
    logLine(error.message);
    process.exitCode = 2;
    return;
  }
  const getRuntime = lazyRuntime(toolsFile, config, codec);

  if (config.transport === "stdio") {
    const instructions = instructionsWithoutTools(toolsFile.api, config.toolMode, config.confirmDestructive);
    // Other modes need the operations for the instructions: parse them now, so a damaged data file fails at start.
    if (instructions === undefined) void toolsFile.tools;
    await serveOnStdio({ api: toolsFile.api, get: getRuntime, ...(instructions !== undefined && { instructions }) });
  } else await serveHttp(getRuntime(), config);
}

/**
 * The runtime, built on first use rather than at start-up: a 2026-07-28 client probes a stdio server
 * with server/discover in a throwaway copy of the process, which must start fast and touch nothing
 * (no audit file opened, no validators compiled; in per-operation mode, not even the operations parsed).
 */
function lazyRuntime(toolsFile: ToolsFile, config: RuntimeConfig, codec: HandleCodec): () => ToolRuntime {
  let runtime: ToolRuntime | undefined;
  const build = (): ToolRuntime =>
    createToolRuntime(toolsFile, {
      handlers,
      hooks,
      env,
      ...hardeningOptions(config),
      timeoutMs: config.timeoutMs,
      maxResponseBytes: config.maxResponseBytes,
      responseBudgetChars: config.responseBudgetChars,
      confirmDestructive: config.confirmDestructive,
      waitTimeoutMs: config.waitTimeoutMs,
      ...(config.toolMode && { toolMode: config.toolMode }),
      ...(config.filter && { filter: config.filter }),
      cache: new ResponseCache({
        pageBudgetChars: config.responseBudgetChars,
        mintHandle: responseHandleMinter(codec),
      }),
      operations: new StatelessOperationRegistry(codec, (name) => toolsFile.tools.find((tool) => tool.name === name)),
      log: logLine,
    });
  return () => (runtime ??= withStatelessReads(build(), codec));
}

async function serveOnStdio(runtime: DeferredRuntime): Promise<void> {
  const { name } = runtime.api;
  // User handlers and hooks may use console.log; keep it off the protocol channel.
  console.log = console.info = console.debug = console.error;
  const { serveStdio } = await import("@modelcontextprotocol/server/stdio");
  // Both eras: a 2025 client opens with initialize, a 2026-07-28 one sends requests with their version in _meta.
  serveStdio(() => createServerFromRuntime(runtime, { cacheScope: "public" }), {
    onerror: (error) => logLine(`${name}: ${error.message}`),
  });
  logLine(`${name}: ready on stdio (MCP 2026-07-28 and 2025-11-25)`);
}

async function serveHttp(runtime: ToolRuntime, config: RuntimeConfig): Promise<void> {
  // Loaded on demand: the HTTP transport's dependencies would slow every stdio start-up.
  const { startHttpServer } = await import("./runtime/mcp/http.js");
  // The listing is the same for every caller; behind an MCP token it still stays out of shared caches.
  // Forwarded authorization (generated with --forward-authorization): each caller's token goes upstream.
  const forwardAuthorization = runtime.toolsFile.api.forwardAuthorization === true;
  const cacheScope = config.mcpToken === undefined && !forwardAuthorization ? "public" : "private";
  const running = await startHttpServer(() => createServerFromRuntime(runtime, { cacheScope, forwardAuthorization }), {
    host: config.host,
    port: config.port,
    log: logLine,
    forwardAuthorization,
    ...(config.mcpToken !== undefined && { mcpToken: config.mcpToken }),
  });
  const shutdown = (signal: NodeJS.Signals) => {
    logLine(`${signal} received, closing the HTTP server`);
    running.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
}

main().catch((error: unknown) => {
  logLine(`Fatal: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
