/**
 * The one render: a `ToolOutcome` value — envelope, guided error, built-in answer — becomes the
 * `CallToolResult` the client receives (text for the model plus `structuredContent`). Everything before it
 * (outcomes, the tool mode's presentation) works on the value; nothing reads a rendered result back.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { Envelope, GuidedError, ToolOutcome } from "../call/types.js";
import { renderEnvelope } from "./envelope.js";
import { argumentErrorCode } from "./errors.js";
import { renderError } from "./render.js";

export function renderOutcome(outcome: ToolOutcome): CallToolResult {
  switch (outcome.kind) {
    case "envelope":
      return {
        content: [{ type: "text", text: renderEnvelope(outcome.envelope) }],
        structuredContent: outcome.envelope as unknown as Record<string, unknown>,
      };
    case "error": {
      const { error } = outcome;
      // The specific code (INVALID_TYPE, MISSING_REQUIRED...) when every issue agrees on one.
      const named = error.code === "INVALID_ARGUMENTS" ? { ...error, code: argumentErrorCode(error.issues) } : error;
      return {
        isError: true,
        content: [{ type: "text", text: renderError(named) }],
        structuredContent: { error: named as unknown as Record<string, unknown> },
      };
    }
    case "answer":
      return { content: [{ type: "text", text: outcome.text }], structuredContent: outcome.structured };
    case "rendered":
      return outcome.result;
  }
}

/** A guided error, rendered (for layers outside a tool call, e.g. the stateless handle check). */
export function errorResult(error: GuidedError): CallToolResult {
  return renderOutcome({ kind: "error", error });
}

/** A success envelope, rendered. */
export function envelopeResult(envelope: Envelope): CallToolResult {
  return renderOutcome({ kind: "envelope", envelope });
}
