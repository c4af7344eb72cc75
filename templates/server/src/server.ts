/**
 * The MCP server: tools/list straight from the data file, tools/call as
 * validate -> (handler | HTTP operation) -> result.
 *
 * Everything per-process (validators, the tool listing, output schemas) lives
 * in a `ToolRuntime` built once; `Server` instances are cheap wrappers around
 * it, which is what lets the stateless HTTP transport create one per request.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { missingCredentials, type Env } from "./runtime/auth.js";
import { RequestBuildError } from "./runtime/errors.js";
import { NotImplementedError, type Handler, type HookContext, type Hooks, type ToolArguments, type ToolHooks } from "./runtime/hook-types.js";
import { basicOutcomes, type CallFailure, type CallSuccess, type OutcomeContext, type Outcomes } from "./runtime/outcomes.js";
import { buildRequest, type BuiltRequest } from "./runtime/request.js";
import type { OperationBinding, ToolData, ToolsFile } from "./runtime/tool-data.js";
import { callUpstream, UpstreamError, type UpstreamResponse } from "./runtime/upstream.js";
import { compileValidators, type ToolValidators } from "./runtime/validation.js";

export interface ServerOptions {
  /** Generated registry of handlers for JSON-Schema (handler-backed) tools, keyed by tool name. */
  handlers?: Record<string, Handler>;
  hooks?: Hooks;
  /** Where credentials and the base URL override are read; defaults to `process.env`. */
  env?: Env;
  /** Upstream deadline per call; defaults to `api.timeoutMs`. */
  timeoutMs?: number;
  maxResponseBytes?: number;
  /** Replacement result builders (the guidance layer plugs in here). */
  outcomes?: Partial<Outcomes>;
  /** One line per call; defaults to stderr, because stdout carries the stdio protocol. */
  log?: (line: string) => void;
}

export interface ToolRuntime {
  readonly toolsFile: ToolsFile;
  readonly validators: ToolValidators;
  listTools(): Tool[];
  callTool(name: string, args: ToolArguments | undefined, signal?: AbortSignal): Promise<CallToolResult>;
}

type Execution = { ok: true; success: CallSuccess } | { ok: false; failure: CallFailure };

const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

export function createToolRuntime(toolsFile: ToolsFile, options: ServerOptions = {}): ToolRuntime {
  const { api, tools } = toolsFile;
  const env = options.env ?? process.env;
  const hooks = options.hooks ?? {};
  const handlers = options.handlers ?? {};
  const timeoutMs = options.timeoutMs ?? api.timeoutMs;
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const outcomes: Outcomes = { ...basicOutcomes, ...options.outcomes };
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const toolsByName = new Map(tools.map((tool) => [tool.name, tool]));
  const validators = compileValidators(tools);
  const outcomeContext: OutcomeContext = { api, tools, validators };

  let listing: Tool[] | undefined;
  const listTools = (): Tool[] =>
    (listing ??= tools.map((tool) => ({
      name: tool.name,
      ...(tool.title !== undefined && { title: tool.title }),
      description: tool.description,
      // Passed through untouched: the generator already shaped it for agents.
      inputSchema: tool.inputSchema as Tool["inputSchema"],
      outputSchema: outcomes.outputSchema(tool),
      annotations: tool.annotations,
    })));

  const hooksFor = (tool: ToolData): ToolHooks[] => [hooks, hooks.tools?.[tool.name]].filter((entry) => entry !== undefined);

  async function callTool(name: string, rawArgs: ToolArguments | undefined, signal?: AbortSignal): Promise<CallToolResult> {
    const tool = toolsByName.get(name);
    if (!tool) return outcomes.onUnknownTool(name, outcomeContext);
    const args = rawArgs ?? {};
    const context: HookContext = { tool, api, args, env, signal: signal ?? new AbortController().signal };
    const startedAt = performance.now();

    let result: CallToolResult;
    const validation = validators.validateArguments(tool, args);
    if (!validation.valid) {
      result = outcomes.onInvalidArguments(tool, args, validation, outcomeContext);
    } else {
      let execution: Execution;
      try {
        execution = await execute(tool, context);
      } catch (error) {
        execution = { ok: false, failure: { kind: "internal", error } };
      }
      result = execution.ok
        ? outcomes.onSuccess(tool, args, execution.success, outcomeContext)
        : await failureResult(tool, args, execution.failure, context);
    }
    result = await transformResult(result, context);
    log(`${api.name}: ${tool.name} ${result.isError ? "error" : "ok"} ${Math.round(performance.now() - startedAt)}ms`);
    return result;
  }

  async function execute(tool: ToolData, context: HookContext): Promise<Execution> {
    const handler = hooks.handlers?.[tool.name] ?? (tool.handler ? handlers[tool.name] : undefined);
    if (handler) return runHandler(handler, tool, context);
    if (tool.handler) {
      return fail({ kind: "not_implemented", message: `${tool.name} has no handler registered (expected one from ${tool.handler.module}).` });
    }
    if (!tool.operation) return fail({ kind: "not_implemented", message: `${tool.name} has neither an HTTP operation nor a handler.` });
    return runOperation(tool, tool.operation, context);
  }

  async function runHandler(handler: Handler, tool: ToolData, context: HookContext): Promise<Execution> {
    const signal = AbortSignal.any([context.signal, AbortSignal.timeout(timeoutMs)]);
    try {
      const data = await handler(context.args, { tool, api, env, signal, timeoutMs });
      return { ok: true, success: { data } };
    } catch (error) {
      if (error instanceof NotImplementedError) return fail({ kind: "not_implemented", message: error.message });
      return fail({ kind: "handler_error", error });
    }
  }

  async function runOperation(tool: ToolData, operation: OperationBinding, context: HookContext): Promise<Execution> {
    const missing = missingCredentials(api, operation, env);
    if (missing.length > 0) return fail({ kind: "missing_credentials", envVars: missing });

    let request: BuiltRequest;
    try {
      request = buildRequest(api, operation, context.args, env);
    } catch (error) {
      if (error instanceof RequestBuildError) return fail({ kind: "invalid_request", error });
      throw error;
    }
    for (const hook of hooksFor(tool)) request = (await hook.beforeRequest?.(request, context)) ?? request;

    let response: UpstreamResponse;
    try {
      response = await callUpstream(request, { timeoutMs, maxResponseBytes, signal: context.signal });
    } catch (error) {
      if (error instanceof UpstreamError) return fail({ kind: "transport", request, error });
      throw error;
    }
    for (const hook of hooksFor(tool)) response = (await hook.afterResponse?.(response, context)) ?? response;

    if (!response.ok) return fail({ kind: "http_status", request, response });
    return { ok: true, success: { data: response.body, request, response } };
  }

  async function failureResult(tool: ToolData, args: ToolArguments, failure: CallFailure, context: HookContext): Promise<CallToolResult> {
    // The tool's own onError is more specific than the global one, so it is asked first.
    for (const hook of hooksFor(tool).reverse()) {
      try {
        const replacement = await hook.onError?.(failure, context);
        if (replacement) return replacement;
      } catch (error) {
        log(`${api.name}: onError hook for ${tool.name} threw: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    return outcomes.onFailure(tool, args, failure, outcomeContext);
  }

  async function transformResult(result: CallToolResult, context: HookContext): Promise<CallToolResult> {
    let current = result;
    for (const hook of hooksFor(context.tool)) {
      try {
        current = (await hook.transformResult?.(current, context)) ?? current;
      } catch (error) {
        return outcomes.onFailure(context.tool, context.args, { kind: "internal", error }, outcomeContext);
      }
    }
    return current;
  }

  return { toolsFile, validators, listTools, callTool };
}

function fail(failure: CallFailure): Execution {
  return { ok: false, failure };
}

/** A `Server` over an existing runtime: cheap, so HTTP can create one per request. */
export function createServerFromRuntime(runtime: ToolRuntime): Server {
  const { api } = runtime.toolsFile;
  const server = new Server(
    { name: api.name, title: api.title, version: api.version },
    { capabilities: { tools: {} }, instructions: api.instructions },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: runtime.listTools() }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    runtime.callTool(request.params.name, request.params.arguments, extra.signal),
  );
  return server;
}

export function createServer(toolsFile: ToolsFile, options: ServerOptions = {}): Server {
  return createServerFromRuntime(createToolRuntime(toolsFile, options));
}
