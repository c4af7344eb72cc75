/**
 * What the dispatch and discovery modes share: the workflow text, operation
 * summaries, the describe answer, UNKNOWN_ACTION / UNKNOWN_OPERATION errors,
 * the meta-tool data, and `presentWith`, which rewrites every call a result
 * value suggests into the mode in use (before the one render).
 */
import {
  CONFIRM_ARG,
  INFO_TOOL,
  OPERATION_STATUS_TOOL,
  READ_RESPONSE_TOOL,
  WAIT_ALIAS,
  WAIT_ARG,
  type GuidedError,
  type HintLevel,
  type NextStep,
  type ToolCall,
  type ToolOutcome,
} from "../call/types.js";
import { describeTool } from "../guidance/describe.js";
import { shortDescription, unknownToolError } from "../guidance/errors.js";
import { renderDescription } from "../guidance/reserved.js";
import { renderCall, renderCallWithNote } from "../guidance/text.js";
import { isPlainObject } from "../shared/json.js";
import type { ToolData } from "../shared/tool-data.js";
import { META_ANNOTATIONS, type Routed } from "./types.js";

export function commonWorkflow(confirmDestructive: boolean, confirmWhere: string, waitWhere: string): string[] {
  return [
    "Successful results carry `data`, a one-sentence `suggestion`, `available_actions` (exact " +
      "follow-up calls with parameters filled from the response) and `next_steps` (for example " +
      "the next page); `resolved_inputs` shows the values in effect, including defaults.",
    "Errors are tool results with `issues` (each with a fix) and usually `corrective_params`: " +
      "a complete argument object that passes validation — resend it as is after checking the values.",
    confirmDestructive
      ? `Destructive operations (deletes and other irreversible changes) run only when ` +
        `${confirmWhere} includes "${CONFIRM_ARG}": true; confirm with the user first.`
      : "",
    `Long-running operations (HTTP 202) return an \`operation\` handle: pass "${WAIT_ARG}": ` +
      `true ${waitWhere} to wait for the result, or call \`${OPERATION_STATUS_TOOL}\` {"handle", "wait"} later.`,
    `Large results come back as a \`summary\` with \`detail_available: true\`; page through ` +
      `the rest with \`${READ_RESPONSE_TOOL}\` exactly as given in \`next_steps\`.`,
  ].filter((line) => line !== "");
}

function requiredOf(tool: ToolData): string[] {
  return tool.guidance.hints.minimal.required;
}

export function summary(tool: ToolData, withCategory: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = { name: tool.name };
  const description = shortDescription(tool.title ?? tool.description, 120) ?? shortDescription(tool.description, 120);
  if (description) out["description"] = description;
  if (withCategory) out["category"] = tool.category;
  const required = requiredOf(tool);
  if (required.length) out["required"] = required;
  if (tool.annotations.destructiveHint) out["destructive"] = true;
  return out;
}

/** A front tool's own answer (list, describe, search), its text written with it. */
export function answer(text: string, structured: Record<string, unknown>): ToolOutcome {
  return { kind: "answer", text, structured };
}

export function stripReserved(params: Record<string, unknown>): {
  rest: Record<string, unknown>;
  confirm?: unknown;
  wait?: unknown;
} {
  const { [CONFIRM_ARG]: confirm, [WAIT_ARG]: wait, [WAIT_ALIAS]: alias, ...rest } = params;
  const out: { rest: Record<string, unknown>; confirm?: unknown; wait?: unknown } = { rest };
  if (confirm !== undefined) out.confirm = confirm;
  if ((wait ?? alias) !== undefined) out.wait = wait ?? alias;
  return out;
}

/**
 * The describe answer shared by dispatch and discovery: the operation's hints
 * at `level` with its valid examples, and the exact calls in the mode.
 */
export function describeResult(tool: ToolData, level: HintLevel, express: (step: ToolCall) => ToolCall): ToolOutcome {
  const description = describeTool(tool, level);
  const next: ToolCall[] = [];
  const examples = tool.guidance.examples;
  if (examples) next.push(express({ tool: tool.name, params: examples.minimal, note: "Minimal valid call" }));
  if (examples && JSON.stringify(examples.full) !== JSON.stringify(examples.minimal))
    next.push(express({ tool: tool.name, params: examples.full, note: "Full valid call" }));
  if (level !== "full")
    next.push(
      express({ tool: INFO_TOOL, params: { tool: tool.name, level: "full" }, note: "Complete schema and constraints" }),
    );
  const text = [
    renderDescription(description),
    next.length ? `## Calls\n\n${next.map((s) => `- ${renderCallWithNote(s)}`).join("\n")}` : "",
  ]
    .filter(Boolean)
    .join("\n\n");
  return answer(text, { ...description, next_steps: next });
}

/** UNKNOWN_ACTION / UNKNOWN_OPERATION: did-you-mean over every operation, calls expressed in the mode. */
export function unknownOperationError(
  code: "UNKNOWN_ACTION" | "UNKNOWN_OPERATION",
  field: string,
  name: string,
  args: unknown,
  frontTool: string,
  tools: readonly ToolData[],
  listStep: ToolCall,
  /** The call `frontTool` would take for `operation` (its valid example in this mode). */
  offered: (operation: string, example: Record<string, unknown>) => ToolCall,
): GuidedError {
  const base = unknownToolError(name, tools, args);
  const best = base.suggestions.did_you_mean;
  const what = code === "UNKNOWN_ACTION" ? "Action" : "Operation";
  const error: GuidedError = {
    ...base,
    code,
    tool: frontTool,
    message:
      `${what} '${name}' not found.` +
      (best
        ? ` Did you mean '${best}'?`
        : base.suggestions.alternatives?.length
          ? ` Similar: ${base.suggestions.alternatives.map((a) => a.name).join(", ")}.`
          : "") +
      ` ${renderCall(listStep)} shows what exists.`,
    issues: [
      {
        field,
        code: "INVALID_ENUM",
        problem: `'${name}' is not an operation of this API`,
        received: name,
        expected: `one of the ${tools.length} operation names`,
        fix: best ? `Use "${best}"` : `Pick a name from ${listStep.tool}`,
        ...(best && { did_you_mean: best }),
      },
    ],
    next_steps: [
      ...base.next_steps.filter((step): step is ToolCall => typeof step !== "string" && step.tool !== INFO_TOOL),
      listStep,
      ...base.next_steps.filter(
        (step): step is ToolCall =>
          typeof step !== "string" && step.tool === INFO_TOOL && isPlainObject(step.params) && "tool" in step.params,
      ),
    ],
  };
  // The operation's own example is not a call of the front tool: offer the front tool's call instead.
  delete error.valid_example;
  const call = best !== undefined ? offered(best, base.valid_example ?? {}) : undefined;
  if (call && call.tool === frontTool) error.valid_example = call.params;
  return error;
}

/** Which front tool an error of operation `name` is expressed on, and how its argument objects are wrapped. */
export type ErrorTool = (
  name: string,
) => { tool: string; wrap: (params: Record<string, unknown>) => Record<string, unknown> } | undefined;

/**
 * The tool mode's presentation: the value with every call it suggests (available_actions, next_steps, the
 * operation's status call, an error's corrective_params and valid_example) rewritten by `express`. Works on
 * the value, before the one render; a result a user hook rendered itself passes through as it is.
 */
export function presentWith(
  outcome: ToolOutcome,
  express: (step: ToolCall) => ToolCall,
  errorTool: ErrorTool,
): ToolOutcome {
  switch (outcome.kind) {
    case "envelope":
      return { kind: "envelope", envelope: presentCalls(outcome.envelope, express) };
    case "answer":
      return { kind: "answer", text: outcome.text, structured: presentCalls(outcome.structured, express) };
    case "error":
      return { kind: "error", error: presentError(outcome.error, express, errorTool) };
    case "rendered":
      return outcome;
  }
}

function presentSteps<T>(value: T, express: (step: ToolCall) => ToolCall): T {
  return (Array.isArray(value) ? value.map((step: unknown) => (isCall(step) ? express(step) : step)) : value) as T;
}

/** `available_actions`, `next_steps` and `operation.status_call` in the mode. */
function presentCalls<T extends object>(value: T, express: (step: ToolCall) => ToolCall): T {
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const key of ["available_actions", "next_steps"]) if (key in out) out[key] = presentSteps(out[key], express);
  const operation = out["operation"];
  if (isPlainObject(operation) && isCall(operation["status_call"]))
    out["operation"] = { ...operation, status_call: express(operation["status_call"]) };
  return out as T;
}

/** The error's calls in the mode; an operation's error is expressed on the front tool that runs it. */
function presentError(error: GuidedError, express: (step: ToolCall) => ToolCall, errorTool: ErrorTool): GuidedError {
  const out: GuidedError = { ...error, next_steps: presentSteps(error.next_steps, express) as NextStep[] };
  const front = out.tool !== undefined ? errorTool(out.tool) : undefined;
  if (front && out.tool !== undefined) {
    out.details = { ...out.details, operation: out.tool };
    if (out.corrective_params) out.corrective_params = front.wrap(out.corrective_params);
    if (out.valid_example) out.valid_example = front.wrap(out.valid_example);
    out.tool = front.tool;
  }
  return out;
}

export function isCall(value: unknown): value is ToolCall {
  return isPlainObject(value) && typeof value["tool"] === "string" && isPlainObject(value["params"]);
}

export function sanitizeName(raw: string, fallback: string): string {
  const cleaned = raw
    .replace(/[^a-zA-Z0-9_-]+/g, "_")
    .replace(/^[_-]+|[_-]+$/g, "")
    .slice(0, 64);
  return cleaned || fallback;
}

/** What a dispatch tool (`action`) or `invoke_operation` (`name`) accepts before the call is routed to its operation. */
export function routedCallSchema(operationKey: "action" | "name") {
  return {
    type: "object",
    properties: {
      [operationKey]: { type: "string", minLength: 1 },
      params: { type: "object" },
      [WAIT_ARG]: { type: "boolean" },
      [WAIT_ALIAS]: { type: "boolean" },
    },
    required: [operationKey],
    additionalProperties: false,
  };
}

export function metaTool(
  name: string,
  description: string,
  inputSchema: Record<string, unknown>,
  example: Record<string, unknown>,
  full: Record<string, unknown>,
): ToolData {
  const properties = inputSchema["properties"] as Record<string, Record<string, unknown>>;
  const required = inputSchema["required"] as string[];
  return {
    name,
    description,
    category: "meta",
    pointer: "",
    annotations: META_ANNOTATIONS,
    inputSchema,
    guidance: {
      hints: {
        minimal: { required, optional: Object.keys(properties).filter((key) => !required.includes(key)) },
        typed: Object.fromEntries(
          Object.entries(properties).map(([key, schema]) => [
            key,
            {
              type: typeof schema["type"] === "string" ? schema["type"] : "any",
              required: required.includes(key),
              ...(schema["default"] !== undefined && { default: schema["default"] }),
              ...(Array.isArray(schema["enum"]) && { enum: schema["enum"] as unknown[] }),
            },
          ]),
        ),
        full: { required, properties },
      },
      examples: { minimal: example, full },
      links: [],
    },
  };
}

/**
 * The operation call a dispatch or discovery tool routes to: the operation's
 * own arguments, with the front tool's confirmation and wait flags as fields.
 * A flag the operation's arguments already carry wins over the front tool's.
 */
export function invokeOperation(
  tool: ToolData,
  params: Record<string, unknown>,
  frontArgs: Record<string, unknown>,
  confirmed: boolean,
  warnings?: string[],
): Routed {
  const wait = frontArgs[WAIT_ARG] ?? frontArgs[WAIT_ALIAS];
  const waitInParams = params[WAIT_ALIAS] !== undefined || params[WAIT_ARG] !== undefined;
  return {
    kind: "invoke",
    tool,
    args: { ...params },
    confirmed: confirmed && params[CONFIRM_ARG] === undefined,
    wait: !waitInParams && wait === true,
    ...(warnings && { warnings }),
  };
}
