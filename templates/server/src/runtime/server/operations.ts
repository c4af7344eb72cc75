/**
 * Long-running operations: an upstream that answers 202 Accepted with a
 * status link starts one. The call returns a handle at once, or waits when
 * asked (`wait: true`); `operation_status` reports on it or waits for it.
 * Status links are polled with the operation's own credentials, and only on
 * the API's own origin.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { classifyPoll, finalResult, percentDone, statusWord, type PendingOperation } from "../call/long-running.js";
import type { CallSuccess, PreparedCall } from "../call/outcomes.js";
import {
  INFO_TOOL,
  OPERATION_STATUS_TOOL,
  type Envelope,
  type GuidedError,
  type ToolCall,
  type ToolOutcome,
} from "../call/types.js";
import { redactSecrets } from "../guidance/upstream-errors.js";
import { parseRetryAfter } from "../shared/parse.js";
import type { ToolData } from "../shared/tool-data.js";
import { applyCredentials } from "../upstream/auth.js";
import type { BuiltRequest } from "../upstream/request.js";
import { UpstreamError, type UpstreamResponse } from "../upstream/upstream.js";
import type { CallSession, RuntimeParts } from "./context.js";

/** Retry-After between polls is honoured up to this; longer waits poll again at this interval. */
const MAX_POLL_DELAY_MS = 30_000;

export interface LongRunningOperations {
  /** The upstream accepted `call` (202 + status link): a handle now, or the final result when `wait` is set. */
  start(
    tool: ToolData,
    call: PreparedCall,
    success: CallSuccess,
    statusUrl: URL,
    wait: boolean,
    session: CallSession,
  ): Promise<ToolOutcome>;
  /** The `operation_status` tool. */
  status(args: Record<string, unknown>, session: CallSession): Promise<ToolOutcome>;
}

type Poll =
  { kind: "response"; response: UpstreamResponse; request: BuiltRequest } | { kind: "failure"; result: ToolOutcome };

export function createOperations(parts: RuntimeParts): LongRunningOperations {
  const {
    api,
    upstream,
    outcomes,
    outcomeContext,
    timeoutMs,
    maxResponseBytes,
    waitTimeoutMs,
    pollIntervalMs,
    operations,
  } = parts;

  async function start(
    tool: ToolData,
    call: PreparedCall,
    success: CallSuccess,
    statusUrl: URL,
    wait: boolean,
    session: CallSession,
  ): Promise<ToolOutcome> {
    const origin = success.request?.url.origin;
    const entry = operations.create(tool, call, statusUrl, origin !== undefined && statusUrl.origin === origin);
    entry.lastBody = success.data;
    entry.lastStatus = statusWord(success.data);
    if (!entry.pollable) {
      return runningResult(entry, [crossOriginWarning(statusUrl)]);
    }
    if (wait) return awaitOperation(entry, session, session.signal ?? new AbortController().signal);
    return runningResult(entry, []);
  }

  async function status(args: Record<string, unknown>, session: CallSession): Promise<ToolOutcome> {
    const handle = args["handle"] as string;
    const entry = operations.get(handle);
    if (!entry) return { kind: "error", error: unknownHandleError(handle) };
    if (!entry.pollable)
      return runningResult(entry, [
        `The status link ${entry.statusUrl.href} is on another origin, so the server cannot poll it.`,
      ]);
    const signal = session.signal ?? new AbortController().signal;
    if (args["wait"] === true) return awaitOperation(entry, session, signal);
    const polled = await pollOnce(entry, signal, session.forwardedToken);
    if (polled.kind === "failure") return polled.result;
    if (entry.state !== "running") return finishedResult(parts, entry, polled.response);
    return runningResult(entry, []);
  }

  async function pollOnce(entry: PendingOperation, signal: AbortSignal, forwardedToken?: string): Promise<Poll> {
    const request = await statusRequest(parts, entry, forwardedToken);
    let response: UpstreamResponse;
    try {
      response = await upstream.call(request, { timeoutMs, maxResponseBytes, signal });
    } catch (error) {
      if (error instanceof UpstreamError)
        return {
          kind: "failure",
          result: outcomes.onFailure(entry.tool, entry.call, { kind: "transport", request, error }, outcomeContext),
        };
      throw error;
    }
    entry.polls++;
    // A 303 to another origin is where the finished resource lives; the server does not follow it there.
    if (!response.ok && response.status !== 303) {
      return {
        kind: "failure",
        result: outcomes.onFailure(entry.tool, entry.call, { kind: "http_status", request, response }, outcomeContext),
      };
    }
    entry.state = response.status === 303 ? "succeeded" : classifyPoll(response);
    entry.lastStatus = statusWord(response.body) ?? (entry.state === "running" ? "running" : entry.state);
    entry.lastBody = response.body;
    return { kind: "response", response, request };
  }

  async function awaitOperation(
    entry: PendingOperation,
    session: CallSession,
    signal: AbortSignal,
  ): Promise<ToolOutcome> {
    const deadline = Date.now() + waitTimeoutMs;
    let reported = 0;
    for (let round = 1; ; round++) {
      const polled = await pollOnce(entry, signal, session.forwardedToken);
      if (polled.kind === "failure") return polled.result;
      if (entry.state !== "running") return finishedResult(parts, entry, polled.response);
      // MCP progress must increase: a reported percentage when there is one, else the poll count.
      const percent = percentDone(polled.response.body);
      const value = percent ?? round;
      if (value > reported) {
        reported = value;
        try {
          await session.progress?.(
            value,
            percent !== undefined ? 100 : undefined,
            `${entry.tool.name}: ${entry.lastStatus ?? "running"} (poll ${round})`,
          );
        } catch {
          // A client that went away only loses its progress bar.
        }
      }
      const retryAfter = parseRetryAfter(polled.response.headers["retry-after"]);
      const delay = Math.max(50, Math.min(retryAfter ?? pollIntervalMs, MAX_POLL_DELAY_MS));
      if (Date.now() + delay > deadline) {
        return runningResult(entry, [stillRunningWarning(waitTimeoutMs, api.envPrefix)]);
      }
      try {
        await sleep(delay, undefined, { signal });
      } catch {
        return runningResult(entry, ["The wait was cancelled; the operation itself may still be running."]);
      }
    }
  }

  return { start, status };
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

function crossOriginWarning(statusUrl: URL): string {
  return (
    `The status link ${statusUrl.href} is on another origin than the API, so the server does ` +
    `not poll it (credentials never leave the API's origin).`
  );
}

function stillRunningWarning(waitTimeoutMs: number, envPrefix: string): string {
  return (
    `Still running after waiting ${Math.round(waitTimeoutMs / 1000)} s ` +
    `(${envPrefix}_WAIT_TIMEOUT_MS); call ${OPERATION_STATUS_TOOL} again to keep waiting.`
  );
}

/** The operation is (or may be) still running: its handle and the exact status call. */
function runningResult(entry: PendingOperation, warnings: string[]): ToolOutcome {
  const statusCall: ToolCall = {
    tool: OPERATION_STATUS_TOOL,
    params: { handle: entry.handle, wait: true },
    note: "Wait for the result",
  };
  const envelope: Envelope = {
    next_actions: [OPERATION_STATUS_TOOL],
    suggestion:
      `${entry.tool.title ?? entry.tool.name} was accepted and is still running (handle ` +
      `${entry.handle}${entry.lastStatus ? `, status "${entry.lastStatus}"` : ""}); ` +
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
  envelope.operation = operationInfo(entry);
  return { kind: "envelope", envelope };
}

function unknownHandleError(handle: string): GuidedError {
  return {
    code: "UNKNOWN_HANDLE",
    message:
      `No long-running operation with handle '${handle.slice(0, 80)}' (handles are per server ` +
      `process and expire an hour after the operation finishes). Re-run the original call to start a new one.`,
    severity: "medium",
    tool: OPERATION_STATUS_TOOL,
    issues: [
      {
        field: "handle",
        code: "INVALID_VALUE",
        problem: "unknown or expired handle",
        received: handle,
        expected: "a handle from an `operation` field",
        fix: "Use the handle of a recent long-running call",
      },
    ],
    suggestions: {},
    next_steps: ["Re-run the call that started the operation."],
  };
}

function operationFailedError(entry: PendingOperation, upstreamBody: string): GuidedError {
  const tool = entry.tool;
  return {
    code: "OPERATION_FAILED",
    message:
      `${tool.name} was accepted, but the long-running operation ended with status ` +
      `"${entry.lastStatus ?? "failed"}". The upstream body says why (details.upstream_body).`,
    severity: "high",
    tool: tool.name,
    issues: [],
    suggestions: {},
    next_steps: [
      { tool: INFO_TOOL, params: { tool: tool.name, level: "full" }, note: "Check the parameters before retrying" },
    ],
    recovery_actions: ["read details.upstream_body", "fix the cause it names", "start the operation again"],
    details: { operation: operationInfo(entry), upstream_body: upstreamBody },
  };
}

/**
 * A GET of the status URL with the operation's own credentials (same origin only; checked by the caller), OAuth2
 * tokens the server fetches included. A token that cannot be had now leaves the poll without it: the API's 401
 * is then reported like any other. `forwardedToken` (`api.forwardAuthorization`): the POLLING caller's own token.
 */
async function statusRequest(
  { api, env, tokens }: RuntimeParts,
  entry: PendingOperation,
  forwardedToken: string | undefined,
): Promise<BuiltRequest> {
  const request: BuiltRequest = {
    url: new URL(entry.statusUrl.href),
    method: "GET",
    headers: { accept: "application/json, */*;q=0.1", "user-agent": `${api.name} (create-guided-mcp)` },
  };
  const operation = entry.tool.operation;
  const fetched =
    operation && !forwardedToken ? await tokens.forCall(api, operation).catch(() => undefined) : undefined;
  applyCredentials(request, api, operation, env, {
    ...(fetched !== undefined && { accessTokens: fetched }),
    ...(forwardedToken !== undefined && { forwardedToken }),
  });
  return request;
}

/** The operation finished: its final result in the envelope, or OPERATION_FAILED. */
function finishedResult(
  { api, env, outcomes, outcomeContext }: RuntimeParts,
  entry: PendingOperation,
  response: UpstreamResponse,
): ToolOutcome {
  const tool = entry.tool;
  if (entry.state === "failed") {
    const body = response.body;
    const text = typeof body === "string" ? body : JSON.stringify(body ?? null);
    const upstreamBody = redactSecrets(text.length > 2000 ? `${text.slice(0, 2000)}…` : text, api, env);
    return { kind: "error", error: operationFailedError(entry, upstreamBody) };
  }
  const data = finalResult(response.body);
  const outcome = outcomes.onSuccess(tool, entry.call, { data, response: { ...response, body: data } }, outcomeContext);
  if (outcome.kind !== "envelope") return outcome;
  const polls = entry.polls;
  const envelope: Envelope = {
    ...outcome.envelope,
    suggestion:
      `The long-running operation finished (${polls} status poll${polls === 1 ? "" : "s"}, ` +
      `${Math.round((Date.now() - entry.startedAt) / 100) / 10} s). ${outcome.envelope.suggestion}`,
    operation: operationInfo(entry),
  };
  return { kind: "envelope", envelope };
}
