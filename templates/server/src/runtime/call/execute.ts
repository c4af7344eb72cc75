/**
 * Execution: a prepared, confirmed call runs through its handler or its HTTP
 * operation, with the user's hooks around it.
 *
 *   handler (hooks.handlers, then the generated registry) | HTTP operation
 *   HTTP: credentials checked -> OAuth2 tokens fetched (client credentials) -> request built
 *         -> beforeRequest hooks -> upstream (a 401 to a fetched token: a fresh token, sent once more)
 *         -> afterResponse hooks
 *   a failure -> onError hooks (the tool's own first), else the outcome layer
 *   every result -> transformResult hooks
 *
 * The result is a value (`Execution`); turning it into a tool result is the
 * outcome layer's job.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import { NotImplementedError, type Handler, type HookContext, type Hooks, type ToolHooks } from "../hook-types.js";
import type { ApiData, OperationBinding, ToolData } from "../shared/tool-data.js";
import { missingCredentials, withForwardedToken, type Env } from "../upstream/auth.js";
import type { ClientCredentialsTokens } from "../upstream/oauth.js";
import { RequestBuildError } from "../upstream/errors.js";
import { buildRequest, type BuiltRequest } from "../upstream/request.js";
import type { ResilientUpstream } from "../upstream/resilience.js";
import { UpstreamError, type UpstreamResponse } from "../upstream/upstream.js";
import { findStatusLink } from "./long-running.js";
import type { CallFailure, CallSuccess, OutcomeContext, Outcomes, PreparedCall } from "./outcomes.js";
import type { ToolOutcome } from "./types.js";

/** How an execution ended; `statusUrl` is set when the upstream accepted a long-running operation (202). */
export type Execution = { ok: true; success: CallSuccess; statusUrl?: URL } | { ok: false; failure: CallFailure };

export interface ExecutorOptions {
  api: ApiData;
  env: Env;
  hooks: Hooks;
  handlers: Record<string, Handler>;
  upstream: ResilientUpstream;
  tokens: ClientCredentialsTokens;
  outcomes: Outcomes;
  outcomeContext: OutcomeContext;
  log: (line: string) => void;
  timeoutMs: number;
  maxResponseBytes: number;
}

export interface Executor {
  /** `forwardedToken`: the MCP request's bearer token, sent upstream as Authorization (`api.forwardAuthorization`). */
  execute(tool: ToolData, context: HookContext, forwardedToken?: string): Promise<Execution>;
  /** The onError hooks' replacement for a failure, else the outcome layer's result. */
  failureResult(tool: ToolData, call: PreparedCall, failure: CallFailure, context: HookContext): Promise<ToolOutcome>;
  /** The transformResult hooks, in order; one that throws turns the result into an internal error. */
  transformResult(result: CallToolResult, context: HookContext): Promise<CallToolResult>;
}

export function createExecutor(options: ExecutorOptions): Executor {
  const { api, env, hooks, handlers, upstream, tokens, outcomes, outcomeContext, log, timeoutMs, maxResponseBytes } =
    options;
  const hooksFor = (tool: ToolData): ToolHooks[] =>
    [hooks, hooks.tools?.[tool.name]].filter((entry) => entry !== undefined);

  async function execute(tool: ToolData, context: HookContext, forwardedToken?: string): Promise<Execution> {
    const handler = hooks.handlers?.[tool.name] ?? (tool.handler ? handlers[tool.name] : undefined);
    if (handler) return runHandler(handler, tool, context);
    if (tool.handler) {
      return fail({
        kind: "not_implemented",
        message: `${tool.name} has no handler registered (expected one from ${tool.handler.module}).`,
      });
    }
    if (!tool.operation)
      return fail({ kind: "not_implemented", message: `${tool.name} has neither an HTTP operation nor a handler.` });
    return runOperation(tool, tool.operation, context, forwardedToken);
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

  async function runOperation(
    tool: ToolData,
    operation: OperationBinding,
    context: HookContext,
    forwardedToken: string | undefined,
  ): Promise<Execution> {
    const callEnv = withForwardedToken(api, env, forwardedToken);
    const missing = missingCredentials(api, operation, callEnv);
    if (missing.length > 0) return fail({ kind: "missing_credentials", envVars: missing });

    const sender: Sender = { ...options, env: callEnv, forwardedToken, hooks: hooksFor(tool) };
    let sent = await send(sender, operation, context);
    // A token the server fetched itself may have been revoked or expired early: a fresh one, one more try.
    if (sent.ok && sent.response.status === 401 && sent.tokens.size > 0)
      sent = await send(sender, operation, context, sent.tokens);
    if (!sent.ok) return sent.execution;
    const { request, response } = sent;
    if (!response.ok) return fail({ kind: "http_status", request, response });
    const statusUrl = response.status === 202 ? findStatusLink(response) : undefined;
    return { ok: true, success: { data: response.body, request, response }, ...(statusUrl && { statusUrl }) };
  }

  async function failureResult(
    tool: ToolData,
    call: PreparedCall,
    failure: CallFailure,
    context: HookContext,
  ): Promise<ToolOutcome> {
    // The tool's own onError is more specific than the global one, so it is asked first.
    for (const hook of hooksFor(tool).reverse()) {
      try {
        const replacement = await hook.onError?.(failure, context);
        if (replacement) return { kind: "rendered", result: replacement };
      } catch (error) {
        log(
          `${api.name}: onError hook for ${tool.name} threw: ${error instanceof Error ? error.message : String(error)}`,
        );
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
        // Hooks see the rendered result, so their failure is rendered here too (not presented in the mode again).
        const failure: CallFailure = { kind: "internal", error };
        return outcomes.render(outcomes.onFailure(context.tool, plainCall(context.args), failure, outcomeContext));
      }
    }
    return current;
  }

  return { execute, failureResult, transformResult };
}

/** What one attempt at an HTTP operation needs: the call's env (a forwarded token included) and the tool's hooks. */
type Sender = ExecutorOptions & { forwardedToken: string | undefined; hooks: ToolHooks[] };

type Sent =
  | { ok: true; request: BuiltRequest; response: UpstreamResponse; tokens: ReadonlyMap<string, string> }
  | { ok: false; execution: Execution };

/**
 * Builds and sends the request once, with the hooks around it. `refused`: OAuth2 tokens the API answered 401 to.
 * A forwarded token is the Authorization header whatever the API's schemes: each user acts as themselves.
 */
async function send(
  sender: Sender,
  operation: OperationBinding,
  context: HookContext,
  refused?: ReadonlyMap<string, string>,
): Promise<Sent> {
  const { api, env, tokens, upstream, forwardedToken, hooks } = sender;
  let request: BuiltRequest;
  let fetched: Map<string, string>;
  try {
    fetched = forwardedToken === undefined ? await tokens.forCall(api, operation, refused) : new Map();
    request = buildRequest(api, operation, context.args, env, {
      accessTokens: fetched,
      ...(forwardedToken !== undefined && { forwardedToken }),
    });
  } catch (error) {
    if (error instanceof RequestBuildError) return { ok: false, execution: fail({ kind: "invalid_request", error }) };
    if (error instanceof UpstreamError)
      return { ok: false, execution: fail({ kind: "transport", request: tokenRequest(error), error }) };
    throw error;
  }
  for (const hook of hooks) request = (await hook.beforeRequest?.(request, context)) ?? request;

  let response: UpstreamResponse;
  try {
    const { timeoutMs, maxResponseBytes } = sender;
    response = await upstream.call(request, {
      timeoutMs,
      maxResponseBytes,
      signal: context.signal,
      binding: operation,
    });
  } catch (error) {
    if (error instanceof UpstreamError) return { ok: false, execution: fail({ kind: "transport", request, error }) };
    throw error;
  }
  for (const hook of hooks) response = (await hook.afterResponse?.(response, context)) ?? response;
  return { ok: true, request, response, tokens: fetched };
}

/** What a failed token request is reported as: where it went, never what it carried. */
function tokenRequest(error: UpstreamError): BuiltRequest {
  return { url: new URL(error.url), method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" } };
}

function fail(failure: CallFailure): Execution {
  return { ok: false, failure };
}

/** A call whose arguments were not prepared (no corrections, no defaults): for failures before or after preparation. */
export function plainCall(args: Record<string, unknown>): PreparedCall {
  return { args, resolvedInputs: args, corrections: [], warnings: [] };
}
