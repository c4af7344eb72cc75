#!/usr/bin/env node
/**
 * Entry point: `node dist/index.js [--transport stdio|http] [--port N] [--host H]
 * [--tools per-operation|dispatch|discovery|auto] [--include-tags a,b] ...` (see `--help`).
 *
 * Logs go to stderr only: with the stdio transport, stdout IS the protocol
 * channel and a stray line there breaks the client.
 */
import { handlers } from "./runtime/handlers.js";
import { hooks } from "./hooks.js";
import { ConfigError, loadRuntimeConfig, type RuntimeConfig } from "./runtime/config.js";
import { loadToolsFile } from "./runtime/tool-data.js";
import { createServerFromRuntime } from "./runtime/mcp/server.js";
import { createToolRuntime, type ToolRuntime } from "./runtime/server.js";

function logLine(line: string): void {
  process.stderr.write(`${line}\n`);
}

async function main(): Promise<void> {
  // dist/index.js -> data/tools.json at the project root.
  const toolsFile = loadToolsFile(new URL("../data/tools.json", import.meta.url));

  let config: RuntimeConfig;
  try {
    const parsed = loadRuntimeConfig(process.argv.slice(2), process.env, toolsFile.api);
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

  const runtime = createToolRuntime(toolsFile, {
    handlers,
    hooks,
    timeoutMs: config.timeoutMs,
    maxResponseBytes: config.maxResponseBytes,
    responseBudgetChars: config.responseBudgetChars,
    confirmDestructive: config.confirmDestructive,
    waitTimeoutMs: config.waitTimeoutMs,
    ...(config.toolMode && { toolMode: config.toolMode }),
    ...(config.filter && { filter: config.filter }),
    log: logLine,
  });

  if (config.transport === "stdio") await serveStdio(runtime);
  else await serveHttp(runtime, config);
}

async function serveStdio(runtime: ToolRuntime): Promise<void> {
  // User handlers and hooks may use console.log; keep it off the protocol channel.
  console.log = console.info = console.debug = console.error;
  const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
  const server = createServerFromRuntime(runtime);
  await server.connect(new StdioServerTransport());
  logLine(`${runtime.toolsFile.api.name}: ${runtime.toolsFile.tools.length} operations ready on stdio (${runtime.mode} mode)`);
}

async function serveHttp(runtime: ToolRuntime, config: RuntimeConfig): Promise<void> {
  // Loaded on demand: the HTTP transport's dependencies would slow every stdio start-up.
  const { startHttpServer } = await import("./runtime/mcp/http.js");
  const running = await startHttpServer(() => createServerFromRuntime(runtime), {
    host: config.host,
    port: config.port,
    log: logLine,
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
  logLine(`Fatal: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
  process.exit(1);
});
