/**
 * The guidance layer plugged into the runtime's `Outcomes` swap point:
 * every success becomes the agent-directive envelope (envelope.ts), every
 * failure a self-healing `{ error }` result (errors.ts), including the
 * runtime's own failure kinds (missing credentials, unsafe requests, handler
 * errors, unimplemented tools, internal bugs).
 */
import type { ErrorObject } from "ajv";
import type {
  CallFailure,
  ConfirmationAnswer,
  OutcomeContext,
  Outcomes,
  OutputSchema,
  PreparedCall,
} from "../call/outcomes.js";
import type { ApiData, JsonSchema, ToolData } from "../shared/tool-data.js";
import { schemeEnvNames } from "../shared/credentials.js";
import type { Env } from "../upstream/auth.js";
import { SETTINGS, settingEnv } from "../config/settings.js";
import { buildEnvelope } from "./envelope.js";
import { addResilienceDetails, argumentsTooLargeError, circuitOpenError } from "./hardening.js";
import { confirmationRequiredError, resolvedPath, unknownToolError } from "./errors.js";
import { renderOutcome } from "./result.js";
import { redactSecrets, toolSchemes, upstreamError } from "./upstream-errors.js";
import { isPlainObject } from "../shared/json.js";
import { INFO_TOOL, type GuidedError, type Issue, type Severity } from "../call/types.js";

/* ------------------------------------------------------------------------ */
/* outputSchema                                                              */
/* ------------------------------------------------------------------------ */

/**
 * Every envelope field except `data`, named but unconstrained and none
 * required, so the error, summary and unvalidated variants validate too.
 * Empty on purpose: this block is repeated in every tool of tools/list, and
 * a client compiles each tool's schema (a typed block was 28% of the v1
 * client's compile time on GitHub's 1,226 tools; an empty schema costs Ajv
 * no code).
 */
const ENVELOPE_FIELDS = [
  "unvalidated_data",
  "next_actions",
  "suggestion",
  "context",
  "available_actions",
  "resolved_inputs",
  "next_steps",
  "tips",
  "warnings",
  "corrections",
  "summary",
  "detail_available",
  "detail",
  "error",
];
const ENVELOPE_PROPERTIES: Record<string, unknown> = Object.fromEntries(ENVELOPE_FIELDS.map((name) => [name, {}]));

/**
 * The envelope: `data` is the tool's response schema, every other field is
 * described loosely and nothing is required. `$defs` move to the root because
 * `#/$defs/...` references resolve against the root, and `$schema` is
 * dropped: clients validate with whatever Ajv draft they ship.
 */
export function envelopeOutputSchema(tool: ToolData): OutputSchema {
  const { $schema: _schema, $id: _id, $defs, definitions, ...dataSchema } = tool.responseSchema ?? {};
  const schema: OutputSchema = {
    type: "object",
    properties: { data: dataSchema, ...ENVELOPE_PROPERTIES },
    additionalProperties: true,
  };
  if ($defs !== undefined) schema["$defs"] = $defs;
  if (definitions !== undefined) schema["definitions"] = definitions;
  return schema;
}

/* ------------------------------------------------------------------------ */
/* Failures the runtime raises itself                                        */
/* ------------------------------------------------------------------------ */

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function baseError(tool: ToolData, code: GuidedError["code"], severity: Severity, text: string): GuidedError {
  return { code, message: text, severity, tool: tool.name, issues: [], suggestions: {}, next_steps: [] };
}

function missingCredentialsError(tool: ToolData, api: ApiData, envVars: string[]): GuidedError {
  const e = baseError(
    tool,
    "UPSTREAM_UNAUTHORIZED",
    "high",
    `'${tool.name}' needs credentials that are not configured: set ${envVars.join(" and ")} in ` +
      `the MCP server's environment and restart it. ` +
      "The API was not called; retrying will not help until then.",
  );
  e.recovery_actions = [
    "tell the user which environment variable to set",
    "do not retry until credentials are configured",
  ];
  e.next_steps.push(`Ask the user to set ${envVars.join(" and ")} and restart the server.`);
  e.details = {
    reason: "missing_credentials",
    missing_env: envVars,
    credential_env: toolSchemes(tool, api).flatMap(schemeEnvNames),
    upstream_called: false,
  };
  return e;
}

function invalidRequestError(
  tool: ToolData,
  api: ApiData,
  failure: Extract<CallFailure, { kind: "invalid_request" }>,
  args: Record<string, unknown>,
  env: Env,
): GuidedError {
  const { code, subject } = failure.error;
  const text = redactSecrets(failure.error.message, api, env);
  const props = isPlainObject(tool.inputSchema["properties"]) ? (tool.inputSchema["properties"] as JsonSchema) : {};
  const byArgument =
    code !== "missing_base_url" && code !== "invalid_base_url" && (subject === undefined || subject in props);
  if (!byArgument) {
    const e = baseError(
      tool,
      "CONFIGURATION_ERROR",
      "critical",
      `The MCP server is misconfigured, so '${tool.name}' cannot run: ${text} This is for the ` +
        `user/operator to fix; the arguments are not the problem.`,
    );
    e.recovery_actions = ["tell the user the server configuration problem", "do not retry until it is fixed"];
    e.next_steps.push(
      subject
        ? `Ask the user to fix ${subject} in the MCP server's environment and restart it.`
        : "Ask the user to check the server configuration.",
    );
    e.details = { reason: code, ...(subject !== undefined && { env: subject }), base_url_env: api.baseUrlEnv };
    return e;
  }
  const issue: Issue = {
    field: subject ?? "(arguments)",
    code: code === "header_injection" ? "INVALID_PATTERN" : "INVALID_VALUE",
    problem: text,
    expected:
      code === "header_injection"
        ? "a single-line value without CR, LF or NUL characters"
        : "a value that addresses one resource under the API's base path",
    fix:
      code === "header_injection"
        ? `Remove line breaks and NUL characters from ${subject ?? "the header value"}`
        : `Use a real identifier for ${subject ?? "the path parameters"} (not empty, ".", ".." or a path)`,
  };
  if (subject !== undefined && args[subject] !== undefined) issue.received = args[subject];
  const e = baseError(tool, "INVALID_REQUEST", "high", `'${tool.name}' was not sent: ${text}`);
  e.issues.push(issue);
  e.recovery_actions = ["fix the value named in issues", "retry"];
  if (tool.guidance.listTool && code !== "header_injection")
    e.next_steps.push({ tool: tool.guidance.listTool, params: {}, note: "Find a real identifier" });
  e.next_steps.push({
    tool: INFO_TOOL,
    params: { tool: tool.name, level: "full" },
    note: "Parameters and constraints",
  });
  e.details = { reason: code };
  return e;
}

/** The upstream body was over `<PREFIX>_MAX_RESPONSE_BYTES`: ask for less (half the page when the tool pages). */
function tooLargeError(tool: ToolData, api: ApiData, message: string, args: Record<string, unknown>): GuidedError {
  const limitEnv = settingEnv(SETTINGS.maxResponseBytes, api.envPrefix);
  const e = baseError(
    tool,
    "UPSTREAM_ERROR",
    "medium",
    `${message} Ask for less data (a smaller page or narrower filters); the ` + `operator can raise ${limitEnv}.`,
  );
  const limitArg = tool.guidance.pagination?.limitArg;
  const limit = limitArg ? args[limitArg] : undefined;
  e.recovery_actions = ["ask for less data", "retry"];
  if (limitArg && typeof limit === "number" && limit > 1)
    e.next_steps.push({
      tool: tool.name,
      params: { ...args, [limitArg]: Math.max(1, Math.floor(limit / 2)) },
      note: "Smaller page",
    });
  e.details = { reason: "too_large", max_bytes_env: limitEnv };
  return e;
}

/** Maps any runtime failure to the guided error contract; credential values in `env` never reach the text. */
export function failureError(
  tool: ToolData,
  api: ApiData,
  failure: CallFailure,
  args: Record<string, unknown>,
  timeoutMs: number,
  env: Env,
): GuidedError {
  const now = Date.now();
  switch (failure.kind) {
    case "http_status": {
      const { status, headers, body, bodyText } = failure.response;
      return upstreamError(tool, api, { status, headers, body: body ?? (bodyText || undefined) }, args, now, env);
    }
    case "transport": {
      const { kind } = failure.error;
      if (kind === "timeout")
        return upstreamError(tool, api, { failure: "timeout", timeout_ms: timeoutMs }, args, now, env);
      if (kind === "network")
        return upstreamError(tool, api, { failure: "network", message: failure.error.message }, args, now, env);
      if (kind === "circuit_open")
        return circuitOpenError(
          tool,
          api,
          failure.error.circuit ?? { state: "open", failures: 0, retry_after_ms: 0 },
          args,
        );
      if (kind === "too_large") return tooLargeError(tool, api, failure.error.message, args);
      const e = baseError(
        tool,
        "CANCELLED",
        "low",
        `'${tool.name}' was cancelled before the API answered; it may or may not have been applied.`,
      );
      e.details = { reason: "aborted" };
      return e;
    }
    case "missing_credentials":
      return missingCredentialsError(tool, api, failure.envVars);
    case "invalid_request":
      return invalidRequestError(tool, api, failure, args, env);
    case "handler_error": {
      const e = baseError(
        tool,
        "HANDLER_ERROR",
        "high",
        `'${tool.name}' failed in its handler: ${redactSecrets(message(failure.error), api, env)}`,
      );
      e.recovery_actions = [
        "check the arguments against the tool's schema",
        "retry once",
        "report the failure to the user",
      ];
      e.next_steps.push({
        tool: INFO_TOOL,
        params: { tool: tool.name, level: "full" },
        note: "Parameters and examples",
      });
      return e;
    }
    case "not_implemented": {
      const e = baseError(
        tool,
        "NOT_IMPLEMENTED",
        "high",
        `${failure.message} The tool cannot run until it is implemented; do not retry.`,
      );
      e.recovery_actions = ["tell the user the tool is not implemented", "use another tool"];
      e.next_steps.push({ tool: INFO_TOOL, params: {}, note: "Other tools" });
      if (tool.handler) e.details = { handler_module: tool.handler.module };
      return e;
    }
    case "internal": {
      const e = baseError(
        tool,
        "INTERNAL_ERROR",
        "high",
        `'${tool.name}' failed unexpectedly inside the MCP server: ${redactSecrets(message(failure.error), api, env)}`,
      );
      e.recovery_actions = ["retry once", "report the failure to the user"];
      return e;
    }
  }
}

function declinedError(tool: ToolData, call: PreparedCall, answer: ConfirmationAnswer): GuidedError {
  const op = tool.operation;
  const what = op ? `${op.method.toUpperCase()} ${resolvedPath(tool, call.args)}` : tool.name;
  const e = baseError(
    tool,
    "CONFIRMATION_DECLINED",
    "medium",
    `The user ${answer === "decline" ? "declined" : "cancelled"} the confirmation, so ` +
      `'${tool.name}' (${what}) was NOT run. Do not retry it unless the user asks for it again.`,
  );
  e.recovery_actions = ["tell the user the change was not made", "ask what they want instead"];
  e.next_steps.push("Ask the user how to proceed.");
  e.details = { answer, args: call.args };
  return e;
}

/* ------------------------------------------------------------------------ */
/* Outcomes                                                                  */
/* ------------------------------------------------------------------------ */

export const guidedOutcomes: Outcomes = {
  outputSchema: envelopeOutputSchema,
  render: renderOutcome,

  onUnknownTool(name, args, context) {
    return { kind: "error", error: unknownToolError(name, context.tools, args) };
  },

  onArgumentsTooLarge(name, bytes, maxBytes, api) {
    return { kind: "error", error: argumentsTooLargeError(name, bytes, maxBytes, api.envPrefix) };
  },

  onInvalidArguments(_tool, _args, error) {
    return { kind: "error", error: error };
  },

  onConfirmationRequired(tool, call, answer, _context) {
    const error = answer ? declinedError(tool, call, answer) : confirmationRequiredError(tool, call.args);
    if (!answer && call.corrections.length) error.corrections = call.corrections;
    if (!answer && call.warnings.length) error.warnings = call.warnings;
    return { kind: "error", error: error };
  },

  onFailure(tool, call, failure, context) {
    const error = addResilienceDetails(
      failureError(tool, context.api, failure, call.args, context.timeoutMs, context.env),
      failure,
    );
    if (call.corrections.length) error.corrections = call.corrections;
    if (call.warnings.length) error.warnings = [...(error.warnings ?? []), ...call.warnings];
    return { kind: "error", error: error };
  },

  onSuccess(tool, call, success, context) {
    const response = success.response
      ? { status: success.response.status, headers: success.response.headers, body: success.data }
      : { status: 200, body: success.data };
    const check = success.data === undefined ? undefined : context.validators.validateResponse(tool, success.data);
    const drift = check && !check.valid ? driftPointer(check.errors) : undefined;
    const envelope = buildEnvelope(tool, context.toolsByName, {
      args: call.args,
      resolvedInputs: call.resolvedInputs,
      corrections: call.corrections,
      warnings: call.warnings,
      response,
      budgetChars: context.budgetChars,
      ...(success.response && { url: success.response.url }),
      ...(drift !== undefined && { drift }),
      cache: context.cache,
    });
    if (success.data === undefined) {
      delete envelope.data;
      envelope.suggestion = `No content returned${success.response ? ` (HTTP ${success.response.status})` : ""}. ${envelope.suggestion}`;
    }
    return { kind: "envelope", envelope };
  },
};

/**
 * Where the answer first departs from the documented response schema, as a
 * JSON pointer into the data: a missing required field is named itself, not
 * its parent. "" (the root) when the schema could not be compiled.
 */
export function driftPointer(errors: readonly ErrorObject[]): string {
  const first = errors[0];
  if (!first) return "";
  const missing = first.keyword === "required" ? first.params["missingProperty"] : undefined;
  const escaped = typeof missing === "string" ? `/${missing.replace(/~/g, "~0").replace(/\//g, "~1")}` : "";
  return `${first.instancePath}${escaped}`;
}
