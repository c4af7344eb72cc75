/**
 * How each end of a tool call becomes an MCP `CallToolResult`, and the output
 * schema that describes the successful envelope.
 *
 * These are deliberately basic: the guidance layer replaces them by passing
 * its own `Outcomes` to `createServer`. The contract every implementation
 * must keep: `structuredContent` (success AND error) must validate against
 * `outputSchema(tool)`, because MCP clients check it against what they saw in
 * `tools/list` and reject the whole call otherwise.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { RequestBuildError } from "./errors.js";
import type { BuiltRequest } from "./request.js";
import type { ApiData, ToolData } from "./tool-data.js";
import type { UpstreamError, UpstreamResponse } from "./upstream.js";
import type { ToolValidators, ValidationResult } from "./validation.js";

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

export interface OutcomeContext {
  api: ApiData;
  tools: readonly ToolData[];
  validators: ToolValidators;
}

export type ValidationFailure = Extract<ValidationResult, { valid: false }>;

/** The tools/list output schema: `type: "object"` at the root is required by MCP. */
export type OutputSchema = { type: "object"; [keyword: string]: unknown };

export interface Outcomes {
  outputSchema(tool: ToolData): OutputSchema;
  onUnknownTool(name: string, context: OutcomeContext): CallToolResult;
  onInvalidArguments(tool: ToolData, args: Record<string, unknown>, invalid: ValidationFailure, context: OutcomeContext): CallToolResult;
  onFailure(tool: ToolData, args: Record<string, unknown>, failure: CallFailure, context: OutcomeContext): CallToolResult;
  onSuccess(tool: ToolData, args: Record<string, unknown>, success: CallSuccess, context: OutcomeContext): CallToolResult;
}

/**
 * `{ data: <responseSchema> }` plus anything else (`additionalProperties`).
 * `data` is not required, so the error envelope `{ error }` validates too.
 * `$defs` move to the root because `#/$defs/...` references resolve against
 * the root, and `$schema` is dropped: clients validate with whatever Ajv draft
 * they ship and may not know the 2020-12 meta-schema URI.
 */
export function envelopeOutputSchema(tool: ToolData): OutputSchema {
  const { $schema: _schema, $id: _id, $defs, definitions, ...dataSchema } = tool.responseSchema ?? {};
  const schema: OutputSchema = { type: "object", properties: { data: dataSchema }, additionalProperties: true };
  if ($defs !== undefined) schema["$defs"] = $defs;
  if (definitions !== undefined) schema["definitions"] = definitions;
  return schema;
}

function errorResult(text: string, error: Record<string, unknown>): CallToolResult {
  return { isError: true, content: [{ type: "text", text }], structuredContent: { error } };
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export const basicOutcomes: Outcomes = {
  outputSchema: envelopeOutputSchema,

  onUnknownTool(name) {
    return errorResult(`Unknown tool "${name}". Call tools/list to see the available tools.`, { kind: "unknown_tool", tool: name });
  },

  onInvalidArguments(tool, _args, invalid) {
    if (invalid.schemaError) {
      return errorResult(`The input schema of ${tool.name} could not be compiled: ${invalid.schemaError}`, {
        kind: "schema_error",
        message: invalid.schemaError,
      });
    }
    const issues = invalid.errors.map((error) => ({ path: error.instancePath || "/", message: error.message ?? error.keyword }));
    const text = [`Invalid arguments for ${tool.name}:`, ...issues.map((issue) => `- ${issue.path}: ${issue.message}`)].join("\n");
    return errorResult(text, { kind: "invalid_arguments", issues });
  },

  onFailure(tool, _args, failure) {
    switch (failure.kind) {
      case "http_status": {
        const { status, bodyText } = failure.response;
        return errorResult(`${tool.name} failed: the upstream answered HTTP ${status}.\n${bodyText}`, {
          kind: "http_status",
          status,
          body: bodyText,
        });
      }
      case "transport":
        return errorResult(`${tool.name} failed: ${failure.error.message}`, {
          kind: failure.error.kind,
          message: failure.error.message,
        });
      case "missing_credentials":
        return errorResult(`${tool.name} needs credentials: set ${failure.envVars.join(" and ")} in the server's environment.`, {
          kind: "missing_credentials",
          envVars: failure.envVars,
        });
      case "invalid_request":
        return errorResult(`${tool.name} failed: ${failure.error.message}`, {
          kind: failure.error.code,
          message: failure.error.message,
        });
      case "handler_error":
        return errorResult(`${tool.name} failed: ${errorMessage(failure.error)}`, { kind: "handler_error", message: errorMessage(failure.error) });
      case "not_implemented":
        return errorResult(failure.message, { kind: "not_implemented", message: failure.message });
      case "internal":
        return errorResult(`${tool.name} failed unexpectedly: ${errorMessage(failure.error)}`, {
          kind: "internal",
          message: errorMessage(failure.error),
        });
    }
  },

  onSuccess(tool, _args, success, context) {
    if (success.data === undefined) {
      // 204/HEAD: there is nothing to check against the response schema, and `{}` is a valid envelope.
      const status = success.response ? ` (HTTP ${success.response.status})` : "";
      return { content: [{ type: "text", text: `${tool.name} succeeded with no content${status}.` }], structuredContent: {} };
    }
    // Upstreams drift from their specs; returning a non-conforming body as `data` would make
    // the client reject the whole call, so it is passed through under another name instead.
    const conformance = context.validators.validateResponse(tool, success.data);
    const envelope: Record<string, unknown> = conformance.valid
      ? { data: success.data }
      : {
          unvalidatedData: success.data,
          schemaMismatch: `The response does not match the documented schema (${describeIssues(conformance)}).`,
        };
    return { content: [{ type: "text", text: JSON.stringify(envelope) }], structuredContent: envelope };
  },
};

function describeIssues(invalid: ValidationFailure): string {
  if (invalid.schemaError) return invalid.schemaError;
  return invalid.errors
    .slice(0, 3)
    .map((error) => `${error.instancePath || "/"} ${error.message ?? error.keyword}`)
    .join("; ");
}
