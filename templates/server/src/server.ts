/**
 * The MCP server: tools/list straight from the data file (plus the reserved
 * `info` and `read_response` tools), tools/call as
 *
 *   reserved tool?  -> prepare its arguments -> info / read_response
 *   unknown tool?   -> UNKNOWN_TOOL (did_you_mean, similar tools, categories)
 *   prepare         -> fuzzy-correct confident key typos, validate (compiled once per tool);
 *                      invalid -> INVALID_ARGUMENTS with corrective_params
 *   confirm         -> destructive tool without `_confirm: true`: ask through MCP elicitation
 *                      when the client supports it, else CONFIRMATION_REQUIRED
 *   execute         -> handler | HTTP operation (credentials checked before any request)
 *   outcome         -> success envelope (data, available_actions, next_steps, summary...)
 *                      or a guided upstream/runtime error
 *   transformResult hooks
 *
 * Everything per-process (validators, the tool listing, output schemas,
 * lookups, the response cache) lives in a `ToolRuntime` built once; `Server`
 * instances are cheap wrappers around it, which is what lets the stateless
 * HTTP transport create one per request.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ElicitResultSchema,
  ListToolsRequestSchema,
  type CallToolResult,
  type ElicitResult,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { ResponseCache } from "./guidance/cache.js";
import { needsConfirmation, prepareArguments, type Validator } from "./guidance/correct.js";
import { prepareToolNames, resolvedPath } from "./guidance/errors.js";
import { guidedOutcomes } from "./guidance/outcomes.js";
import { callInfo, callReadResponse, RESERVED_OUTPUT_SCHEMA, reservedTools } from "./guidance/reserved.js";
import { CONFIRM_ARG, INFO_TOOL, READ_RESPONSE_TOOL, RESERVED_TOOL_NAMES } from "./guidance/types.js";
import { missingCredentials, type Env } from "./runtime/auth.js";
import { DEFAULT_RESPONSE_BUDGET_CHARS } from "./runtime/config.js";
import { RequestBuildError } from "./runtime/errors.js";
import { NotImplementedError, type Handler, type HookContext, type Hooks, type ToolArguments, type ToolHooks } from "./runtime/hook-types.js";
import type { CallFailure, CallSuccess, ConfirmationAnswer, OutcomeContext, Outcomes, PreparedCall } from "./runtime/outcomes.js";
import { buildRequest, type BuiltRequest } from "./runtime/request.js";
import type { ApiData, OperationBinding, ToolData, ToolsFile } from "./runtime/tool-data.js";
import { callUpstream, UpstreamError, type UpstreamResponse } from "./runtime/upstream.js";
import { compileValidators, type ToolValidators, type ValidationResult } from "./runtime/validation.js";

export interface ServerOptions {
  /** Generated registry of handlers for JSON-Schema (handler-backed) tools, keyed by tool name. */
  handlers?: Record<string, Handler>;
  hooks?: Hooks;
  /** Where credentials and the base URL override are read; defaults to `process.env`. */
  env?: Env;
  /** Upstream deadline per call; defaults to `api.timeoutMs`. */
  timeoutMs?: number;
  maxResponseBytes?: number;
  /** Progressive-disclosure budget in JSON characters; default 20 000. */
  responseBudgetChars?: number;
  /** Destructive tools need `"_confirm": true` (or an elicitation answer); default true. */
  confirmDestructive?: boolean;
  /** Where oversized responses wait for `read_response`; default a fresh per-runtime cache. */
  cache?: ResponseCache;
  /** Replacement result builders; the default is the guidance layer. */
  outcomes?: Partial<Outcomes>;
  /** One line per call; defaults to stderr, because stdout carries the stdio protocol. */
  log?: (line: string) => void;
}

/** What a call can ask of the client that made it. */
export interface CallSession {
  signal?: AbortSignal;
  /**
   * Asks the user to confirm a destructive call (MCP elicitation). Absent
   * when the client did not declare the `elicitation` capability.
   */
  confirm?: (message: string, signal: AbortSignal) => Promise<"accept" | ConfirmationAnswer>;
}

export interface ToolRuntime {
  readonly toolsFile: ToolsFile;
  readonly validators: ToolValidators;
  /** Server `instructions`: the API's own, then the workflow through info, _confirm and read_response. */
  readonly instructions: string;
  listTools(): Tool[];
  callTool(name: string, args: ToolArguments | undefined, session?: AbortSignal | CallSession): Promise<CallToolResult>;
}

type Execution = { ok: true; success: CallSuccess } | { ok: false; failure: CallFailure };

const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

/** The workflow paragraph appended to the API's own instructions. */
export function composeInstructions(api: ApiData, confirmDestructive: boolean): string {
  const workflow = [
    `Workflow: call \`${INFO_TOOL}\` first to see the tool categories; \`${INFO_TOOL}\` {"tool": "<name>", "level": "typed"|"full"} shows a tool's parameters, constraints and valid examples. Then call the tool.`,
    "Successful results carry `data`, a one-sentence `suggestion`, `available_actions` (exact follow-up calls with parameters filled from the response) and `next_steps` (for example the next page); `resolved_inputs` shows the values in effect, including defaults.",
    "Errors are tool results with `issues` (each with a fix) and usually `corrective_params`: a complete argument object that passes validation — resend it as is after checking the values.",
    confirmDestructive
      ? `Destructive tools (deletes and other irreversible changes) run only when the call includes "${CONFIRM_ARG}": true; confirm with the user first.`
      : "",
    `Large results come back as a \`summary\` with \`detail_available: true\`; page through the rest with \`${READ_RESPONSE_TOOL}\` exactly as given in \`next_steps\`.`,
  ]
    .filter((line) => line !== "")
    .join(" ");
  const own = api.instructions.trim();
  return own ? `${own}\n\n${workflow}` : workflow;
}

export function createToolRuntime(toolsFile: ToolsFile, options: ServerOptions = {}): ToolRuntime {
  const { api } = toolsFile;
  const env = options.env ?? process.env;
  const hooks = options.hooks ?? {};
  const handlers = options.handlers ?? {};
  const timeoutMs = options.timeoutMs ?? api.timeoutMs;
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const budgetChars = options.responseBudgetChars ?? DEFAULT_RESPONSE_BUDGET_CHARS;
  const confirmDestructive = options.confirmDestructive ?? true;
  const cache = options.cache ?? new ResponseCache({ pageBudgetChars: budgetChars });
  const outcomes: Outcomes = { ...guidedOutcomes, ...options.outcomes };
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));

  // The generator never emits a reserved name; a hand-edited data file that does loses that tool, loudly.
  const reservedNames = new Set(RESERVED_TOOL_NAMES);
  const tools = toolsFile.tools.filter((tool) => !reservedNames.has(tool.name));
  if (tools.length !== toolsFile.tools.length) {
    log(`${api.name}: ignoring tool(s) named ${RESERVED_TOOL_NAMES.join("/")}: those names are reserved for the built-in tools.`);
  }
  const toolsByName = new Map(tools.map((tool) => [tool.name, tool]));
  const reserved = new Map(reservedTools(tools).map((tool) => [tool.name, tool]));
  prepareToolNames(tools);
  const validators = compileValidators([...tools, ...reserved.values()]);
  const outcomeContext: OutcomeContext = { api, tools, toolsByName, validators, budgetChars, timeoutMs, cache };
  const instructions = composeInstructions(api, confirmDestructive);

  let listing: Tool[] | undefined;
  const listTools = (): Tool[] =>
    (listing ??= [
      ...tools.map((tool) => ({
        name: tool.name,
        ...(tool.title !== undefined && { title: tool.title }),
        description: tool.description,
        inputSchema: listedInputSchema(tool, confirmDestructive),
        outputSchema: outcomes.outputSchema(tool),
        annotations: tool.annotations,
      })),
      ...[...reserved.values()].map((tool) => ({
        name: tool.name,
        title: tool.title,
        description: tool.description,
        inputSchema: tool.inputSchema as Tool["inputSchema"],
        outputSchema: RESERVED_OUTPUT_SCHEMA,
        annotations: tool.annotations,
      })),
    ]);

  const hooksFor = (tool: ToolData): ToolHooks[] => [hooks, hooks.tools?.[tool.name]].filter((entry) => entry !== undefined);

  /** Validation through the cached compiled validator; remembers a schema that failed to compile. */
  const validatorFor = (tool: ToolData) => {
    const state: { schemaError?: string } = {};
    const validate: Validator = (args: unknown) => {
      const result: ValidationResult = validators.validateArguments(tool, args);
      if (!result.valid && result.schemaError) state.schemaError = result.schemaError;
      return result;
    };
    return { validate, state };
  };

  async function callTool(name: string, rawArgs: ToolArguments | undefined, sessionOrSignal?: AbortSignal | CallSession): Promise<CallToolResult> {
    const session: CallSession = sessionOrSignal instanceof AbortSignal ? { signal: sessionOrSignal } : (sessionOrSignal ?? {});
    const startedAt = performance.now();
    const finish = (label: string, result: CallToolResult): CallToolResult => {
      log(`${api.name}: ${label} ${result.isError ? "error" : "ok"} ${Math.round(performance.now() - startedAt)}ms`);
      return result;
    };

    const builtIn = reserved.get(name);
    if (builtIn) {
      const prepared = prepareArguments(builtIn, rawArgs, validatorFor(builtIn).validate);
      if (!prepared.ok) return finish(name, outcomes.onInvalidArguments(builtIn, rawArgs, prepared.error, outcomeContext));
      const result = name === INFO_TOOL ? callInfo(prepared.args, tools, toolsByName) : callReadResponse(prepared.args, cache);
      return finish(name, result);
    }

    const tool = toolsByName.get(name);
    if (!tool) return finish(`unknown tool ${JSON.stringify(name.slice(0, 64))}`, outcomes.onUnknownTool(name, rawArgs, outcomeContext));

    const signal = session.signal ?? new AbortController().signal;
    const { validate, state } = validatorFor(tool);
    const prepared = prepareArguments(tool, rawArgs, validate);
    const args = prepared.ok ? prepared.args : (rawArgs ?? {});
    const context: HookContext = { tool, api, args, env, signal };

    let result: CallToolResult;
    if (!prepared.ok) {
      result = state.schemaError
        ? outcomes.onFailure(tool, plainCall(args), { kind: "internal", error: new Error(`The input schema of ${tool.name} could not be compiled: ${state.schemaError}`) }, outcomeContext)
        : outcomes.onInvalidArguments(tool, rawArgs, prepared.error, outcomeContext);
    } else {
      const call: PreparedCall = {
        args: prepared.args,
        resolvedInputs: prepared.resolved_inputs,
        corrections: prepared.corrections,
        warnings: prepared.warnings,
      };
      const confirmation = confirmDestructive && needsConfirmation(tool, prepared) ? await askConfirmation(tool, call, session, signal) : "accept";
      if (confirmation !== "accept") {
        result = outcomes.onConfirmationRequired(tool, call, confirmation === "not_asked" ? undefined : confirmation, outcomeContext);
      } else {
        let execution: Execution;
        try {
          execution = await execute(tool, context);
        } catch (error) {
          execution = { ok: false, failure: { kind: "internal", error } };
        }
        result = execution.ok
          ? outcomes.onSuccess(tool, call, execution.success, outcomeContext)
          : await failureResult(tool, call, execution.failure, context);
      }
    }
    return finish(tool.name, await transformResult(result, context));
  }

  async function askConfirmation(
    tool: ToolData,
    call: PreparedCall,
    session: CallSession,
    signal: AbortSignal,
  ): Promise<"accept" | ConfirmationAnswer | "not_asked"> {
    if (!session.confirm) return "not_asked";
    const op = tool.operation;
    const what = op ? `${op.method.toUpperCase()} ${resolvedPath(tool, call.args)}` : `run ${tool.name}`;
    const args = Object.keys(call.args).length ? ` with ${JSON.stringify(call.args)}` : "";
    try {
      return await session.confirm(`Allow '${tool.name}' to ${what}${args}? This is destructive and may not be reversible.`, signal);
    } catch (error) {
      // A client that declared elicitation but failed to answer: fall back to the `_confirm` round trip.
      log(`${api.name}: confirmation prompt for ${tool.name} failed: ${error instanceof Error ? error.message : String(error)}`);
      return "not_asked";
    }
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

  async function failureResult(tool: ToolData, call: PreparedCall, failure: CallFailure, context: HookContext): Promise<CallToolResult> {
    // The tool's own onError is more specific than the global one, so it is asked first.
    for (const hook of hooksFor(tool).reverse()) {
      try {
        const replacement = await hook.onError?.(failure, context);
        if (replacement) return replacement;
      } catch (error) {
        log(`${api.name}: onError hook for ${tool.name} threw: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    return outcomes.onFailure(tool, call, failure, outcomeContext);
  }

  async function transformResult(result: CallToolResult, context: HookContext): Promise<CallToolResult> {
    let current = result;
    for (const hook of hooksFor(context.tool)) {
      try {
        current = (await hook.transformResult?.(current, context)) ?? current;
      } catch (error) {
        return outcomes.onFailure(context.tool, plainCall(context.args), { kind: "internal", error }, outcomeContext);
      }
    }
    return current;
  }

  return { toolsFile, validators, instructions, listTools, callTool };
}

function fail(failure: CallFailure): Execution {
  return { ok: false, failure };
}

function plainCall(args: Record<string, unknown>): PreparedCall {
  return { args, resolvedInputs: args, corrections: [], warnings: [] };
}

/**
 * The inputSchema as listed: the generated one, plus the reserved `_confirm`
 * flag on destructive tools so clients that check arguments against the
 * schema (or build forms from it) let it through. The data file, validation
 * and the upstream request never see `_confirm`.
 */
function listedInputSchema(tool: ToolData, confirmDestructive: boolean): Tool["inputSchema"] {
  const schema = tool.inputSchema as Tool["inputSchema"];
  if (!confirmDestructive || !tool.annotations.destructiveHint || schema.properties?.[CONFIRM_ARG] !== undefined) return schema;
  return {
    ...schema,
    properties: {
      ...schema.properties,
      [CONFIRM_ARG]: { type: "boolean", description: "Set to true to confirm this destructive call (ask the user first)." },
    },
  };
}

const CONFIRM_SCHEMA = {
  type: "object" as const,
  properties: {
    confirm: { type: "boolean" as const, title: "Confirm", description: "Run this destructive operation." },
  },
  required: ["confirm"],
};

/** A `Server` over an existing runtime: cheap, so HTTP can create one per request. */
export function createServerFromRuntime(runtime: ToolRuntime): Server {
  const { api } = runtime.toolsFile;
  const server = new Server(
    { name: api.name, title: api.title, version: api.version },
    { capabilities: { tools: {} }, instructions: runtime.instructions },
  );

  const confirm = async (message: string, signal: AbortSignal): Promise<"accept" | ConfirmationAnswer> => {
    const elicitation = server.getClientCapabilities()?.elicitation;
    // An empty `elicitation: {}` (clients before form/url modes) means form mode; elicitInput insists on `form`.
    const answer: ElicitResult = elicitation?.form
      ? await server.elicitInput({ mode: "form", message, requestedSchema: CONFIRM_SCHEMA }, { signal })
      : await server.request({ method: "elicitation/create", params: { message, requestedSchema: CONFIRM_SCHEMA } }, ElicitResultSchema, { signal });
    if (answer.action !== "accept") return answer.action;
    return answer.content?.["confirm"] === true ? "accept" : "decline";
  };

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: runtime.listTools() }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const elicitation = server.getClientCapabilities()?.elicitation;
    const canAsk = elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
    return runtime.callTool(request.params.name, request.params.arguments, { signal: extra.signal, ...(canAsk && { confirm }) });
  });
  return server;
}

export function createServer(toolsFile: ToolsFile, options: ServerOptions = {}): Server {
  return createServerFromRuntime(createToolRuntime(toolsFile, options));
}
