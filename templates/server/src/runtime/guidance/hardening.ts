/**
 * Guided errors for the runtime's protective limits: oversized arguments,
 * an open circuit breaker, and the retry/circuit facts added to upstream
 * errors (`details.attempts`, `details.circuit`).
 */
import type { CallFailure } from "../call/outcomes.js";
import type { ApiData, ToolData } from "../shared/tool-data.js";
import type { CircuitSnapshot } from "../upstream/upstream.js";
import { INFO_TOOL, type GuidedError } from "../call/types.js";
import { SETTINGS, settingEnv } from "../config/settings.js";

/** The arguments' JSON is larger than `<PREFIX>_MAX_ARGUMENT_BYTES`: nothing was validated or sent. */
export function argumentsTooLargeError(
  toolName: string,
  bytes: number,
  maxBytes: number,
  envPrefix: string,
): GuidedError {
  const limitEnv = settingEnv(SETTINGS.maxArgumentBytes, envPrefix);
  return {
    code: "INVALID_ARGUMENTS",
    message:
      `The arguments of '${toolName.slice(0, 64)}' are ${bytes} bytes of JSON, over this ` +
      `server's limit of ${maxBytes} bytes; nothing was sent. ` +
      `Send less data per call (split it up, or reference it instead of inlining it). The ` +
      `operator can raise ${limitEnv}.`,
    severity: "high",
    ...(toolName !== "" && { tool: toolName.slice(0, 64) }),
    issues: [
      {
        field: "(arguments)",
        code: "INVALID_LENGTH",
        problem: `${bytes} bytes of JSON arguments`,
        expected: `at most ${maxBytes} bytes`,
        fix: "Send smaller arguments, e.g. split the data over several calls",
      },
    ],
    suggestions: {},
    next_steps: [{ tool: INFO_TOOL, params: {}, note: "Tools and their parameters" }],
    recovery_actions: ["reduce the size of the arguments", "retry"],
    details: {
      reason: "arguments_too_large",
      bytes,
      max_bytes: maxBytes,
      max_bytes_env: limitEnv,
    },
  };
}

/** The upstream host's circuit is open: the call failed fast, the API was not called. */
export function circuitOpenError(
  tool: ToolData,
  api: ApiData,
  circuit: CircuitSnapshot,
  args: Record<string, unknown> = {},
): GuidedError {
  const wait = Math.max(1000, circuit.retry_after_ms);
  return {
    code: "UPSTREAM_UNAVAILABLE",
    message:
      `The API has failed ${circuit.failures} calls in a row, so the server stopped calling it ` +
      `for now (circuit breaker open); '${tool.name}' was NOT sent. ` +
      `Retry in ${Math.ceil(wait / 1000)} s; until then every call to this API fails the same way.`,
    severity: "high",
    tool: tool.name,
    issues: [],
    suggestions: {},
    next_steps: [{ tool: tool.name, params: args, note: `Same call, after ${Math.ceil(wait / 1000)} s` }],
    retry_after_ms: wait,
    recovery_actions: [
      `wait ${Math.ceil(wait / 1000)} s`,
      "retry the same call once",
      `if it still fails, tell the user the API is down (check ${api.baseUrlEnv})`,
    ],
    ...(tool.guidance.fallbackTool && { fallback_tool: tool.guidance.fallbackTool }),
    details: { reason: "circuit_open", upstream_called: false, circuit },
  };
}

/** Adds `attempts` (when the server retried) and the circuit breaker's state to an upstream error. */
export function addResilienceDetails(error: GuidedError, failure: CallFailure): GuidedError {
  const source =
    failure.kind === "http_status" ? failure.response : failure.kind === "transport" ? failure.error : undefined;
  if (!source) return error;
  const details: Record<string, unknown> = { ...error.details };
  if (source.attempts !== undefined && source.attempts > 1) {
    details["attempts"] = source.attempts;
    error.message += ` (The server already tried ${source.attempts} times with backoff.)`;
  }
  const circuit = source.circuit;
  if (circuit && (circuit.state !== "closed" || circuit.failures > 0)) {
    details["circuit"] = circuit;
    if (circuit.state === "open") {
      error.retry_after_ms = Math.max(error.retry_after_ms ?? 0, circuit.retry_after_ms);
      error.message +=
        ` The API has now failed ${circuit.failures} calls in a row: the server will not call it ` +
        `for ${Math.ceil(circuit.retry_after_ms / 1000)} s (circuit breaker open).`;
    }
  }
  error.details = details;
  return error;
}
