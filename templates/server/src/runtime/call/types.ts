/**
 * The vocabulary of a tool call: the names the server reserves, the error
 * value (`GuidedError`) every failure becomes, the success envelope, the
 * `ToolOutcome` value a call produces, and the upstream response shape. Core
 * modules and the guidance layer both speak it; it imports only types.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";

/** Reserved tool the server exposes for paging through a cached oversized response. */
export const READ_RESPONSE_TOOL = "read_response";
/** Reserved tool the server exposes for describing tools and listing categories. */
export const INFO_TOOL = "info";
/**
 * Reserved argument that confirms a destructive call. It is NOT part of any
 * tool's inputSchema: `prepareArguments` strips it before validation (unless
 * the schema itself declares a property with that name) and reports
 * `confirmed: true`.
 */
export const CONFIRM_ARG = "_confirm";
/**
 * Reserved arguments that make a call wait for a long-running operation
 * (upstream 202 + status link) to finish. `_wait` is accepted by every tool;
 * `wait` too, unless the operation declares its own `wait` parameter. Both
 * are stripped before validation and never sent upstream.
 */
export const WAIT_ARG = "wait";
export const WAIT_ALIAS = "_wait";
/** Reserved tool that reports (or waits for) a long-running operation started by a 202 response. */
export const OPERATION_STATUS_TOOL = "operation_status";
/**
 * Tool names the server itself provides; the generator never gives an API
 * tool one of these names (it suffixes `_op` instead).
 */
export const RESERVED_TOOL_NAMES: readonly string[] = [INFO_TOOL, READ_RESPONSE_TOOL, OPERATION_STATUS_TOOL];

export type IssueCode =
  | "UNKNOWN_PARAMETER"
  | "MISSING_REQUIRED"
  | "INVALID_TYPE"
  | "OUT_OF_RANGE"
  | "INVALID_ENUM"
  | "INVALID_FORMAT"
  | "INVALID_PATTERN"
  | "INVALID_LENGTH"
  /** Anything else a schema can reject: uniqueItems, not, ambiguous oneOf, ... */
  | "INVALID_VALUE";

export interface Issue {
  /** Dotted path of the offending value: `limit`, `pet.tags[0]`, `(arguments)` for the root. */
  field: string;
  code: IssueCode;
  /** What is wrong, in one sentence. */
  problem: string;
  /** The value the caller sent (trimmed preview when large); absent when nothing was sent. */
  received?: unknown;
  /** What the schema accepts, e.g. `integer between 1 and 100`. */
  expected: string;
  /** A specific instruction, e.g. `Provide an integer between 1 and 100`. */
  fix: string;
  did_you_mean?: unknown;
}

export type Severity = "critical" | "high" | "medium" | "low";
export type HintLevel = "minimal" | "typed" | "full";

/** An exact tool call an agent can make as is. */
export interface ToolCall {
  tool: string;
  params: Record<string, unknown>;
  /** Why / when to make this call. */
  note?: string;
  /** JSON pointer into this call's answer (its `data`) where the value to carry on is. */
  take?: string;
}

export type NextStep = string | ToolCall;

export interface Correction {
  from: string;
  to: string;
  confidence: number;
}

export type ErrorCode =
  | IssueCode
  | "INVALID_ARGUMENTS"
  | "UNKNOWN_TOOL"
  /** Dispatch mode: the `action` names no operation of the API. */
  | "UNKNOWN_ACTION"
  /** Discovery mode: the operation `name` names no operation of the API. */
  | "UNKNOWN_OPERATION"
  /** operation_status: the handle is unknown or expired. */
  | "UNKNOWN_HANDLE"
  /** A long-running operation reported that it failed. */
  | "OPERATION_FAILED"
  | "CONFIRMATION_REQUIRED"
  | "UPSTREAM_UNAUTHORIZED"
  | "UPSTREAM_FORBIDDEN"
  | "UPSTREAM_NOT_FOUND"
  | "UPSTREAM_CONFLICT"
  | "UPSTREAM_VALIDATION"
  | "RATE_LIMITED"
  | "UPSTREAM_UNAVAILABLE"
  | "UPSTREAM_UNREACHABLE"
  | "UPSTREAM_ERROR"
  | "TIMEOUT"
  | "RESPONSE_EXPIRED"
  /** The user declined (or cancelled) the confirmation prompt of a destructive call. */
  | "CONFIRMATION_DECLINED"
  /** The arguments passed the schema but cannot form a safe HTTP request (CR/LF in a header, `..` in a path). */
  | "INVALID_REQUEST"
  /** The server's deployment settings (base URL, credential values) are unusable; the caller cannot fix it. */
  | "CONFIGURATION_ERROR"
  /** The tool has no implementation yet (handler not written / not registered). */
  | "NOT_IMPLEMENTED"
  /** A user-written handler threw. */
  | "HANDLER_ERROR"
  /** The client cancelled the call. */
  | "CANCELLED"
  /** A bug in the server or one of its hooks. */
  | "INTERNAL_ERROR";

/** See the contract comment at the top of errors.ts. */
export interface GuidedError {
  code: ErrorCode;
  message: string;
  severity: Severity;
  /** The tool the error is about (absent for UNKNOWN_TOOL). */
  tool?: string;
  issues: Issue[];
  suggestions: {
    did_you_mean?: string;
    alternatives?: Array<{ name: string; score: number; description?: string }>;
    auto_correctable?: boolean;
  };
  schema_hint?: unknown;
  schema_hint_level?: HintLevel;
  corrective_params?: Record<string, unknown>;
  valid_example?: Record<string, unknown>;
  next_steps: NextStep[];
  retry_after_ms?: number;
  recovery_actions?: string[];
  fallback_tool?: string;
  /** Code-specific facts: upstream status/body, the pending operation, categories... */
  details?: Record<string, unknown>;
  corrections?: Correction[];
  warnings?: string[];
}

/** A link resolved into an exact call: `name` is the link's. */
export interface ResolvedAction extends ToolCall {
  name: string;
}

/** The success envelope (guidance/envelope.ts builds it). */
export interface Envelope {
  data?: unknown;
  unvalidated_data?: unknown;
  next_actions: string[];
  suggestion: string;
  context: Record<string, unknown>;
  available_actions: ResolvedAction[];
  resolved_inputs: Record<string, unknown>;
  next_steps?: ToolCall[];
  tips?: string[];
  warnings?: string[];
  corrections?: Correction[];
  summary?: Record<string, unknown>;
  detail_available?: true;
  detail?: { handle: string; tool: string; params: Record<string, unknown>; total_items?: number; total_chars: number };
  /** A long-running operation's handle, state and exact status call (server/operations.ts). */
  operation?: Record<string, unknown>;
}

/**
 * What a tool call produced, as a value: the outcome layer and the built-in tools make one, the tool mode's
 * presentation rewrites its calls, and `Outcomes.render` turns it into the `CallToolResult` once, at the edge.
 *
 * - `envelope`: a success (directive envelope);
 * - `error`: a guided error;
 * - `answer`: a built-in tool's answer (info, read_response, search...), its text written with it;
 * - `rendered`: a result a user hook built itself (`onError`), passed on as it is.
 */
export type ToolOutcome =
  | { kind: "envelope"; envelope: Envelope }
  | { kind: "error"; error: GuidedError }
  | { kind: "answer"; text: string; structured: Record<string, unknown> }
  | { kind: "rendered"; result: CallToolResult };

/** Response headers as the fetch API or a plain object gives them. */
export type HeadersLike = Headers | Record<string, string | string[] | undefined>;

/** The upstream HTTP response, with its body already parsed (JSON) or as text. */
export interface UpstreamResponse {
  status: number;
  statusText?: string;
  headers?: HeadersLike;
  body?: unknown;
}

/** An upstream call that produced no HTTP response. */
export interface UpstreamFailure {
  failure: "timeout" | "network";
  /** The timeout that elapsed (for "timeout"). */
  timeout_ms?: number;
  /** Low-level error message (e.g. ECONNREFUSED); secrets are redacted before display. */
  message?: string;
}

/** Case-insensitive header lookup; multiple values are joined with ", ". */
export function headerValue(headers: HeadersLike | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  const lower = name.toLowerCase();
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (key.toLowerCase() === lower && value !== undefined) return Array.isArray(value) ? value.join(", ") : value;
  }
  return undefined;
}
