/**
 * The swap point between the runtime core and the layer that turns each end
 * of a tool call into a value (`ToolOutcome`: an envelope or a guided error),
 * and that value, once presented in the tool mode, into the MCP
 * `CallToolResult` (`render`, called exactly once per call).
 *
 * The default implementation is the guidance layer (`guidance/outcomes.ts`):
 * directive envelopes on success, self-healing `{ error }` results on
 * failure. The contract every implementation must keep: `structuredContent`
 * (success AND error) must validate against `outputSchema(tool)`, because MCP
 * clients check it against what they saw in `tools/list` and reject the whole
 * call otherwise.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { ResponseCache } from "./response-cache.js";
import type { Correction, GuidedError, ToolOutcome } from "./types.js";
import type { RequestBuildError } from "../upstream/errors.js";
import type { BuiltRequest } from "../upstream/request.js";
import type { ApiData, ToolData } from "../shared/tool-data.js";
import type { Env } from "../upstream/auth.js";
import type { UpstreamError, UpstreamResponse } from "../upstream/upstream.js";
import type { ToolValidators } from "./validation.js";

export type CallFailure =
  /** The upstream answered with a non-2xx status. */
  | { kind: "http_status"; request: BuiltRequest; response: UpstreamResponse }
  /** Timeout, connection failure, oversized body, or cancellation. */
  | { kind: "transport"; request: BuiltRequest; error: UpstreamError }
  /** None of the operation's security alternatives has its env vars set. */
  | { kind: "missing_credentials"; envVars: string[] }
  /** The arguments or deployment config cannot form a safe request (CRLF in a header, no base URL...). */
  | { kind: "invalid_request"; error: RequestBuildError }
  /** A user handler threw. */
  | { kind: "handler_error"; error: unknown }
  /** The tool has neither an HTTP binding nor a registered handler. */
  | { kind: "not_implemented"; message: string }
  /** A bug: a hook or the runtime itself threw. */
  | { kind: "internal"; error: unknown };

export interface CallSuccess {
  /** The upstream body (parsed JSON or text) or a handler's return value. */
  data: unknown;
  request?: BuiltRequest;
  response?: UpstreamResponse;
}

/** The arguments of a call once prepared (corrected and validated). */
export interface PreparedCall {
  /** What was sent upstream / to the handler: confident renames applied, `_confirm` removed. */
  args: Record<string, unknown>;
  /** `args` plus the schema defaults in effect. */
  resolvedInputs: Record<string, unknown>;
  corrections: Correction[];
  warnings: string[];
}

export interface OutcomeContext {
  api: ApiData;
  /** The environment the runtime was given: credential values, redacted from error texts. */
  env: Env;
  /** The API's tools (the reserved `info`/`read_response` are not among them). */
  tools: readonly ToolData[];
  toolsByName: ReadonlyMap<string, ToolData>;
  validators: ToolValidators;
  /** Progressive-disclosure budget for `data`, in JSON characters. */
  budgetChars: number;
  /** Upstream deadline, for TIMEOUT errors. */
  timeoutMs: number;
  /** Where oversized responses are kept for `read_response`. */
  cache: ResponseCache;
}

/** How a pending destructive call was answered, when the client was asked (MCP elicitation). */
export type ConfirmationAnswer = "decline" | "cancel";

/** The tools/list output schema: `type: "object"` at the root is required by MCP. */
export type OutputSchema = { type: "object"; [keyword: string]: unknown };

export interface Outcomes {
  outputSchema(tool: ToolData): OutputSchema;
  onUnknownTool(name: string, args: unknown, context: OutcomeContext): ToolOutcome;
  /** The arguments were larger than the configured limit; nothing ran (see call/guard.ts). */
  onArgumentsTooLarge(name: string, bytes: number, maxBytes: number, api: ApiData): ToolOutcome;
  /** The arguments failed preparation (see guidance/correct.ts); `error` explains it. */
  onInvalidArguments(tool: ToolData, args: unknown, error: GuidedError, context: OutcomeContext): ToolOutcome;
  /** A destructive call was not confirmed; `answer` is set when the user was asked and said no. */
  onConfirmationRequired(
    tool: ToolData,
    call: PreparedCall,
    answer: ConfirmationAnswer | undefined,
    context: OutcomeContext,
  ): ToolOutcome;
  onFailure(tool: ToolData, call: PreparedCall, failure: CallFailure, context: OutcomeContext): ToolOutcome;
  onSuccess(tool: ToolData, call: PreparedCall, success: CallSuccess, context: OutcomeContext): ToolOutcome;
  /** The one render: a value, already presented in the tool mode, as the result the client receives. */
  render(outcome: ToolOutcome): CallToolResult;
}
