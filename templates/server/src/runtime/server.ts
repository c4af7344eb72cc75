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
import type { CallToolResult, Tool } from "@modelcontextprotocol/server";
import { setTimeout as sleep } from "node:timers/promises";
import { ResponseCache } from "./guidance/cache.js";
import { needsConfirmation, prepareArguments, type Validator } from "./guidance/correct.js";
import { errorResult, parseRetryAfter, prepareToolNames, redactSecrets, resolvedPath } from "./guidance/errors.js";
import { renderEnvelope, type Envelope } from "./guidance/envelope.js";
import { guidedOutcomes } from "./guidance/outcomes.js";
import { isPlainObject } from "./guidance/pointer.js";
import { callInfo, callReadResponse, RESERVED_OUTPUT_SCHEMA, reservedTools } from "./guidance/reserved.js";
import { CONFIRM_ARG, INFO_TOOL, OPERATION_STATUS_TOOL, RESERVED_TOOL_NAMES, WAIT_ALIAS, WAIT_ARG, type GuidedError, type ToolCall } from "./guidance/types.js";
import { createSurface, resolveToolMode, type ResolvedMode, type Surface } from "./modes.js";
import { missingCredentials, resolveCredentials, type Env } from "./auth.js";
import { DEFAULT_RESPONSE_BUDGET_CHARS, DEFAULT_WAIT_TIMEOUT_MS } from "./config.js";
import { RequestBuildError } from "./errors.js";
import { filterTools, isEmptyFilter, type ToolFilter } from "./filter.js";
import { guardCallTool } from "./guard.js";
import { readHardeningSettings, type HardeningOptions } from "./hardening.js";
import { classifyPoll, findStatusLink, finalResult, OperationRegistry, percentDone, statusWord, type PendingOperation } from "./long-running.js";
import { NotImplementedError, type Handler, type HookContext, type Hooks, type ToolArguments, type ToolHooks } from "./hook-types.js";
import type { CallFailure, CallSuccess, ConfirmationAnswer, OutcomeContext, Outcomes, PreparedCall } from "./outcomes.js";
import { buildRequest, type BuiltRequest } from "./request.js";
import type { ApiData, OperationBinding, ToolData, ToolMode, ToolsFile } from "./tool-data.js";
import { ResilientUpstream } from "./resilience.js";
import { UpstreamError, type UpstreamResponse } from "./upstream.js";
import { compileValidators, type ToolValidators, type ValidationResult } from "./validation.js";

/** Hardening (argument size limit, retries, circuit breaker, audit log) defaults to the `<PREFIX>_*` env vars: runtime/hardening.ts. */
export interface ServerOptions extends HardeningOptions {
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
  /** Overrides `api.toolMode` (`--tools` / `<PREFIX>_TOOLS`); default the data file's, else `auto`. */
  toolMode?: ToolMode;
  /** Start-up filter, applied before anything else: a filtered-out operation is unknown in every mode. */
  filter?: ToolFilter;
  /** How long `wait: true` waits for a long-running operation; default 60 000 ms. */
  waitTimeoutMs?: number;
  /** Pause between status polls when the upstream sends no Retry-After; default 1000 ms. */
  pollIntervalMs?: number;
  /** Where long-running operation handles live; default a fresh per-runtime registry (see runtime/stateless/operations.ts). */
  operations?: OperationRegistry;
}

/** What a call can ask of the client that made it. */
export interface CallSession {
  signal?: AbortSignal;
  /**
   * Asks the user to confirm a destructive call (MCP elicitation). Absent
   * when the client did not declare the `elicitation` capability.
   */
  confirm?: (message: string, signal: AbortSignal) => Promise<"accept" | ConfirmationAnswer>;
  /** Reports progress while a call waits (MCP `notifications/progress`); absent when the client sent no progressToken. */
  progress?: (progress: number, total: number | undefined, message: string) => Promise<void>;
}

export interface ToolRuntime {
  /** The data file, with the start-up filter applied to `tools`. */
  readonly toolsFile: ToolsFile;
  /** The surface in use: per-operation, dispatch or discovery (`auto` resolved). */
  readonly mode: ResolvedMode;
  readonly validators: ToolValidators;
  /** Server `instructions`: the API's own, then the workflow through info, _confirm and read_response. */
  readonly instructions: string;
  listTools(): Tool[];
  callTool(name: string, args: ToolArguments | undefined, session?: AbortSignal | CallSession): Promise<CallToolResult>;
}

type Execution = { ok: true; success: CallSuccess; statusUrl?: URL } | { ok: false; failure: CallFailure };

const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;
const DEFAULT_POLL_INTERVAL_MS = 1000;
/** Retry-After between polls is honoured up to this; longer waits poll again at this interval. */
const MAX_POLL_DELAY_MS = 30_000;

/** The workflow paragraph for the mode in use, appended to the API's own instructions. */
export function composeInstructions(api: ApiData, confirmDestructive: boolean, surface?: Pick<Surface, "workflow">): string {
  const workflow = (surface ?? createSurface({ api, tools: [], toolsByName: new Map(), mode: "per-operation" })).workflow(confirmDestructive);
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
  const hardening = readHardeningSettings(api.envPrefix, env, options);
  const upstream = new ResilientUpstream(hardening.resilience, log);

  // The generator never emits a reserved name; a hand-edited data file that does loses that tool, loudly.
  const waitTimeoutMs = options.waitTimeoutMs ?? DEFAULT_WAIT_TIMEOUT_MS;
  const pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  const reservedNames = new Set(RESERVED_TOOL_NAMES);
  const unreserved = toolsFile.tools.filter((tool) => !reservedNames.has(tool.name));
  if (unreserved.length !== toolsFile.tools.length) {
    log(`${api.name}: ignoring tool(s) named ${RESERVED_TOOL_NAMES.join("/")}: those names are reserved for the built-in tools.`);
  }
  // The start-up filter runs before anything else: what it drops is unknown in every mode.
  const tools = options.filter && !isEmptyFilter(options.filter) ? filterTools(unreserved, options.filter) : unreserved;
  if (tools.length === 0 && unreserved.length > 0) log(`${api.name}: the start-up filters leave none of the ${unreserved.length} operations.`);
  const toolsByName = new Map(tools.map((tool) => [tool.name, tool]));
  const reserved = new Map(reservedTools(tools).map((tool) => [tool.name, tool]));
  const mode = resolveToolMode(options.toolMode, api, tools.length);
  const surface = createSurface({ api, tools, toolsByName, mode });
  const frontTools = new Map(surface.tools.map((tool) => [tool.name, tool]));
  prepareToolNames(tools);
  const validators = compileValidators([...tools, ...reserved.values(), ...surface.tools]);
  const outcomeContext: OutcomeContext = { api, tools, toolsByName, validators, budgetChars, timeoutMs, cache };
  const instructions = composeInstructions(api, confirmDestructive, surface);
  const operations = options.operations ?? new OperationRegistry();
  let listing: Tool[] | undefined;
  const listTools = (): Tool[] => {
    // Discovery's search index is built right after the first tools/list is answered, off its critical path.
    if (listing === undefined && mode === "discovery") setImmediate(() => surface.warmUp()).unref?.();
    return (listing ??= [
      ...(mode === "per-operation"
        ? tools.map((tool) => ({
            name: tool.name,
            ...(tool.title !== undefined && { title: tool.title }),
            description: tool.description,
            inputSchema: listedInputSchema(tool, confirmDestructive),
            outputSchema: outcomes.outputSchema(tool),
            annotations: tool.annotations,
          }))
        : surface.listed),
      ...[...reserved.values()].map((tool) => ({
        name: tool.name,
        title: tool.title,
        description: tool.description,
        inputSchema: tool.inputSchema as Tool["inputSchema"],
        outputSchema: RESERVED_OUTPUT_SCHEMA,
        annotations: tool.annotations,
      })),
    ]);
  };

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
      if (name === OPERATION_STATUS_TOOL) return finish(name, surface.present(await operationStatus(prepared.args, session)));
      const result = name === INFO_TOOL ? callInfo(prepared.args, tools, toolsByName) : callReadResponse(prepared.args, cache);
      return finish(name, surface.present(result));
    }

    const front = frontTools.get(name);
    if (front) {
      const prepared = prepareArguments(front, rawArgs, validatorFor(front).validate);
      if (!prepared.ok) return finish(name, surface.present(outcomes.onInvalidArguments(front, rawArgs, prepared.error, outcomeContext)));
      const routed = surface.route(front, prepared.args, prepared.confirmed);
      if (routed.kind === "result") return finish(name, surface.present(routed.result));
      return finish(`${name} ${routed.tool.name}`, await callOperation(routed.tool, routed.args as ToolArguments | undefined, session, [...prepared.warnings, ...(routed.warnings ?? [])]));
    }

    // Per-operation mode lists the operations themselves; the other modes still accept a direct call.
    const tool = toolsByName.get(name);
    if (!tool) return finish(`unknown tool ${JSON.stringify(name.slice(0, 64))}`, surface.present(outcomes.onUnknownTool(name, rawArgs, outcomeContext)));
    return finish(tool.name, await callOperation(tool, rawArgs, session));
  }

  /** The guided call path every mode ends in: prepare, confirm, execute, outcome, in-mode calls, hooks. */
  async function callOperation(tool: ToolData, rawArgs: ToolArguments | undefined, session: CallSession, extraWarnings: string[] = []): Promise<CallToolResult> {
    const signal = session.signal ?? new AbortController().signal;
    const { args: withoutWait, wait } = takeWait(tool, rawArgs);
    const { validate, state } = validatorFor(tool);
    const prepared = prepareArguments(tool, withoutWait, validate);
    const args = prepared.ok ? prepared.args : (isPlainObject(withoutWait) ? withoutWait : {});
    const context: HookContext = { tool, api, args, env, signal };

    let result: CallToolResult;
    if (!prepared.ok) {
      result = state.schemaError
        ? outcomes.onFailure(tool, plainCall(args), { kind: "internal", error: new Error(`The input schema of ${tool.name} could not be compiled: ${state.schemaError}`) }, outcomeContext)
        : outcomes.onInvalidArguments(tool, withoutWait, prepared.error, outcomeContext);
    } else {
      const call: PreparedCall = {
        args: prepared.args,
        resolvedInputs: prepared.resolved_inputs,
        corrections: prepared.corrections,
        warnings: [...extraWarnings, ...prepared.warnings],
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
        if (execution.ok && execution.statusUrl) result = await startLongRunning(tool, call, execution.success, execution.statusUrl, wait, session, signal);
        else
          result = execution.ok
            ? outcomes.onSuccess(tool, call, execution.success, outcomeContext)
            : await failureResult(tool, call, execution.failure, context);
      }
    }
    return transformResult(surface.present(result), context);
  }

  /* ---------------------------------------------------------------------- */
  /* Long-running operations (202 Accepted + status link)                   */
  /* ---------------------------------------------------------------------- */

  async function startLongRunning(
    tool: ToolData,
    call: PreparedCall,
    success: CallSuccess,
    statusUrl: URL,
    wait: boolean,
    session: CallSession,
    signal: AbortSignal,
  ): Promise<CallToolResult> {
    const origin = success.request?.url.origin;
    const entry = operations.create(tool, call, statusUrl, origin !== undefined && statusUrl.origin === origin);
    entry.lastBody = success.data;
    entry.lastStatus = statusWord(success.data);
    if (!entry.pollable) {
      return runningResult(entry, [`The status link ${statusUrl.href} is on another origin than the API, so the server does not poll it (credentials never leave the API's origin).`]);
    }
    if (wait) return awaitOperation(entry, session, signal);
    return runningResult(entry, []);
  }

  async function operationStatus(args: Record<string, unknown>, session: CallSession): Promise<CallToolResult> {
    const handle = args["handle"] as string;
    const entry = operations.get(handle);
    if (!entry) {
      const error: GuidedError = {
        code: "UNKNOWN_HANDLE",
        message: `No long-running operation with handle '${handle.slice(0, 80)}' (handles are per server process and expire an hour after the operation finishes). Re-run the original call to start a new one.`,
        severity: "medium",
        tool: OPERATION_STATUS_TOOL,
        issues: [{ field: "handle", code: "INVALID_VALUE", problem: "unknown or expired handle", received: handle, expected: "a handle from an `operation` field", fix: "Use the handle of a recent long-running call" }],
        suggestions: {},
        next_steps: ["Re-run the call that started the operation."],
      };
      return errorResult(error);
    }
    if (!entry.pollable) return runningResult(entry, [`The status link ${entry.statusUrl.href} is on another origin, so the server cannot poll it.`]);
    const signal = session.signal ?? new AbortController().signal;
    if (args["wait"] === true) return awaitOperation(entry, session, signal);
    const polled = await pollOnce(entry, signal);
    if (polled.kind === "failure") return polled.result;
    if (entry.state !== "running") return finishedResult(entry, polled.response);
    return runningResult(entry, []);
  }

  type Poll = { kind: "response"; response: UpstreamResponse; request: BuiltRequest } | { kind: "failure"; result: CallToolResult };

  async function pollOnce(entry: PendingOperation, signal: AbortSignal): Promise<Poll> {
    const request = statusRequest(entry);
    let response: UpstreamResponse;
    try {
      response = await upstream.call(request, { timeoutMs, maxResponseBytes, signal });
    } catch (error) {
      if (error instanceof UpstreamError) return { kind: "failure", result: outcomes.onFailure(entry.tool, entry.call, { kind: "transport", request, error }, outcomeContext) };
      throw error;
    }
    entry.polls++;
    // A 303 to another origin is where the finished resource lives; the server does not follow it there.
    if (!response.ok && response.status !== 303) {
      return { kind: "failure", result: outcomes.onFailure(entry.tool, entry.call, { kind: "http_status", request, response }, outcomeContext) };
    }
    entry.state = response.status === 303 ? "succeeded" : classifyPoll(response);
    entry.lastStatus = statusWord(response.body) ?? (entry.state === "running" ? "running" : entry.state);
    entry.lastBody = response.body;
    return { kind: "response", response, request };
  }

  async function awaitOperation(entry: PendingOperation, session: CallSession, signal: AbortSignal): Promise<CallToolResult> {
    const deadline = Date.now() + waitTimeoutMs;
    let reported = 0;
    for (let round = 1; ; round++) {
      const polled = await pollOnce(entry, signal);
      if (polled.kind === "failure") return polled.result;
      if (entry.state !== "running") return finishedResult(entry, polled.response);
      // MCP progress must increase: a reported percentage when there is one, else the poll count.
      const percent = percentDone(polled.response.body);
      const value = percent ?? round;
      if (value > reported) {
        reported = value;
        try {
          await session.progress?.(value, percent !== undefined ? 100 : undefined, `${entry.tool.name}: ${entry.lastStatus ?? "running"} (poll ${round})`);
        } catch {
          // A client that went away only loses its progress bar.
        }
      }
      const retryAfter = parseRetryAfter(polled.response.headers["retry-after"]);
      const delay = Math.max(50, Math.min(retryAfter ?? pollIntervalMs, MAX_POLL_DELAY_MS));
      if (Date.now() + delay > deadline) {
        return runningResult(entry, [`Still running after waiting ${Math.round(waitTimeoutMs / 1000)} s (${api.envPrefix}_WAIT_TIMEOUT_MS); call ${OPERATION_STATUS_TOOL} again to keep waiting.`]);
      }
      try {
        await sleep(delay, undefined, { signal });
      } catch {
        return runningResult(entry, ["The wait was cancelled; the operation itself may still be running."]);
      }
    }
  }

  /** A GET of the status URL with the operation's own credentials (same origin only; checked by the caller). */
  function statusRequest(entry: PendingOperation): BuiltRequest {
    const url = new URL(entry.statusUrl.href);
    const headers: Record<string, string> = { accept: "application/json, */*;q=0.1", "user-agent": `${api.name} (create-guided-mcp)` };
    if (entry.tool.operation) {
      const credentials = resolveCredentials(api, entry.tool.operation, env);
      Object.assign(headers, credentials.headers);
      for (const [name, value] of credentials.query) url.searchParams.set(name, value);
      if (credentials.cookies.length) headers["cookie"] = credentials.cookies.map(([name, value]) => `${name}=${value}`).join("; ");
    }
    return { url, method: "GET", headers };
  }

  function operationInfo(entry: PendingOperation): Record<string, unknown> {
    return {
      handle: entry.handle,
      status: entry.state,
      ...(entry.lastStatus !== undefined && { upstream_status: entry.lastStatus }),
      status_url: entry.statusUrl.href,
      polls: entry.polls,
      elapsed_ms: Date.now() - entry.startedAt,
    };
  }

  /** The operation is (or may be) still running: its handle and the exact status call. */
  function runningResult(entry: PendingOperation, warnings: string[]): CallToolResult {
    const statusCall: ToolCall = { tool: OPERATION_STATUS_TOOL, params: { handle: entry.handle, wait: true }, note: "Wait for the result" };
    const envelope: Envelope = {
      next_actions: [OPERATION_STATUS_TOOL],
      suggestion:
        `${entry.tool.title ?? entry.tool.name} was accepted and is still running (handle ${entry.handle}${entry.lastStatus ? `, status "${entry.lastStatus}"` : ""}); ` +
        `call ${OPERATION_STATUS_TOOL} ${JSON.stringify(statusCall.params)} to wait for its result.`,
      context: { handle: entry.handle, status_url: entry.statusUrl.href },
      available_actions: [],
      resolved_inputs: entry.call.resolvedInputs,
      next_steps: entry.pollable ? [statusCall] : [],
    };
    if (entry.lastBody !== undefined) envelope.unvalidated_data = entry.lastBody;
    const allWarnings = [...entry.call.warnings, ...warnings];
    if (allWarnings.length) envelope.warnings = allWarnings;
    if (entry.call.corrections.length) envelope.corrections = entry.call.corrections;
    const structured = { ...envelope, operation: operationInfo(entry) };
    return { content: [{ type: "text", text: renderEnvelope(envelope) }], structuredContent: structured as unknown as Record<string, unknown> };
  }

  /** The operation finished: its final result in the envelope, or OPERATION_FAILED. */
  function finishedResult(entry: PendingOperation, response: UpstreamResponse): CallToolResult {
    const tool = entry.tool;
    if (entry.state === "failed") {
      const body = response.body;
      const text = typeof body === "string" ? body : JSON.stringify(body ?? null);
      const error: GuidedError = {
        code: "OPERATION_FAILED",
        message: `${tool.name} was accepted, but the long-running operation ended with status "${entry.lastStatus ?? "failed"}". The upstream body says why (details.upstream_body).`,
        severity: "high",
        tool: tool.name,
        issues: [],
        suggestions: {},
        next_steps: [{ tool: INFO_TOOL, params: { tool: tool.name, level: "full" }, note: "Check the parameters before retrying" }],
        recovery_actions: ["read details.upstream_body", "fix the cause it names", "start the operation again"],
        details: { operation: operationInfo(entry), upstream_body: redactSecrets(text.length > 2000 ? `${text.slice(0, 2000)}…` : text, api) },
      };
      return errorResult(error);
    }
    const data = finalResult(response.body);
    const result = outcomes.onSuccess(tool, entry.call, { data, response: { ...response, body: data } }, outcomeContext);
    const structured = result.structuredContent;
    if (!isPlainObject(structured)) return result;
    const polls = entry.polls;
    const suggestion = typeof structured["suggestion"] === "string" ? structured["suggestion"] : "";
    const updated: Record<string, unknown> = {
      ...structured,
      suggestion: `The long-running operation finished (${polls} status poll${polls === 1 ? "" : "s"}, ${Math.round((Date.now() - entry.startedAt) / 100) / 10} s). ${suggestion}`,
      operation: operationInfo(entry),
    };
    const text = Array.isArray(updated["available_actions"]) ? renderEnvelope(updated as unknown as Envelope) : undefined;
    return { ...result, ...(text !== undefined && { content: [{ type: "text", text }] }), structuredContent: updated };
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
      response = await upstream.call(request, { timeoutMs, maxResponseBytes, signal: context.signal, binding: operation });
    } catch (error) {
      if (error instanceof UpstreamError) return fail({ kind: "transport", request, error });
      throw error;
    }
    for (const hook of hooksFor(tool)) response = (await hook.afterResponse?.(response, context)) ?? response;

    if (!response.ok) return fail({ kind: "http_status", request, response });
    const statusUrl = response.status === 202 ? findStatusLink(response) : undefined;
    return { ok: true, success: { data: response.body, request, response }, ...(statusUrl && { statusUrl }) };
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

  return {
    toolsFile: tools === toolsFile.tools ? toolsFile : { ...toolsFile, tools },
    mode,
    validators,
    instructions,
    listTools,
    callTool: guardCallTool(callTool, api, env, hardening, log),
  };
}

/**
 * Takes the reserved wait flag out of the arguments: `_wait` always, `wait`
 * unless the tool declares a `wait` parameter of its own. Only `true` waits.
 */
function takeWait(tool: ToolData, rawArgs: ToolArguments | undefined): { args: unknown; wait: boolean } {
  if (!isPlainObject(rawArgs)) return { args: rawArgs, wait: false };
  const properties = isPlainObject(tool.inputSchema["properties"]) ? tool.inputSchema["properties"] : {};
  const names = [WAIT_ALIAS, WAIT_ARG].filter((name) => !(name in properties) && name in rawArgs);
  if (names.length === 0) return { args: rawArgs, wait: false };
  const args: Record<string, unknown> = { ...rawArgs };
  let wait = false;
  for (const name of names) {
    if (args[name] === true) wait = true;
    delete args[name];
  }
  return { args, wait };
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
  const extra: Record<string, { type: "boolean"; description: string }> = {};
  if (confirmDestructive && tool.annotations.destructiveHint && schema.properties?.[CONFIRM_ARG] === undefined)
    extra[CONFIRM_ARG] = { type: "boolean", description: "Set to true to confirm this destructive call (ask the user first)." };
  // Operations that change something are the ones that answer 202 Accepted; `wait` (or `_wait`) waits for them.
  const method = tool.operation?.method;
  if (method !== undefined && !["get", "head", "options"].includes(method)) {
    const name = schema.properties?.[WAIT_ARG] === undefined ? WAIT_ARG : schema.properties?.[WAIT_ALIAS] === undefined ? WAIT_ALIAS : undefined;
    if (name) extra[name] = { type: "boolean", description: "If the API answers 202 Accepted, wait for the long-running operation to finish and return its result." };
  }
  if (Object.keys(extra).length === 0) return schema;
  return { ...schema, properties: { ...schema.properties, ...extra } };
}
