/**
 * The error contract of every generated server.
 *
 * Every failure — bad arguments, unknown tool, a destructive call awaiting
 * confirmation, an upstream error — is returned as a TOOL result (never a
 * protocol error), so the model sees it and can self-correct (MCP SEP
 * "input validation errors as tool execution errors"):
 *
 *   { isError: true,
 *     content: [{ type: "text", text: <markdown: issues with fixes, schema,
 *                 valid example, corrective call, next steps> }],
 *     structuredContent: { error } }
 *
 *   error: {
 *     code,                // for bad arguments, the primary issue's code (MISSING_REQUIRED,
 *                          // UNKNOWN_PARAMETER, INVALID_TYPE, INVALID_ENUM, OUT_OF_RANGE,
 *                          // INVALID_LENGTH, INVALID_FORMAT, INVALID_PATTERN, INVALID_VALUE);
 *                          // otherwise UNKNOWN_TOOL | CONFIRMATION_REQUIRED |
 *                          // UPSTREAM_UNAUTHORIZED | UPSTREAM_FORBIDDEN | UPSTREAM_NOT_FOUND |
 *                          // UPSTREAM_CONFLICT | UPSTREAM_VALIDATION | RATE_LIMITED |
 *                          // UPSTREAM_UNAVAILABLE | UPSTREAM_UNREACHABLE | UPSTREAM_ERROR |
 *                          // TIMEOUT | RESPONSE_EXPIRED
 *     message,             // one paragraph a human or model can act on
 *     severity,            // critical | high | medium | low
 *     tool?,               // the tool concerned
 *     issues: [{ field, code, problem, received?, expected, fix, did_you_mean? }],
 *                          // issue codes: UNKNOWN_PARAMETER | MISSING_REQUIRED | INVALID_TYPE |
 *                          // OUT_OF_RANGE | INVALID_ENUM | INVALID_FORMAT | INVALID_PATTERN |
 *                          // INVALID_LENGTH | INVALID_VALUE; `field` is a dotted path (`pet.tags[0]`)
 *     suggestions: { did_you_mean?, alternatives?: [{ name, score, description? }], auto_correctable? },
 *     schema_hint?,        // the tool's schema at the level the severity calls for:
 *     schema_hint_level?,  //   critical -> full, high -> typed, medium/low -> minimal
 *     corrective_params?,  // COMPLETE argument object, verified to pass validation; keeps every
 *                          // valid value sent, renames misspelt keys, coerces "50" -> 50, clamps
 *                          // ranges, fixes enum typos; omitted rather than guessed (never invents ids)
 *     valid_example?,      // a complete valid argument object from the spec
 *     next_steps: [ "text" | { tool, params, note? } ],   // exact calls to make next
 *     retry_after_ms?,     // upstream: when a retry makes sense
 *     recovery_actions?,   // upstream: ordered plan
 *     fallback_tool?,      // upstream: alternative tool
 *     details?,            // code-specific facts (upstream status/body, pending operation, categories)
 *     corrections?, warnings? }
 *
 * Severity rules for INVALID_ARGUMENTS: critical when the arguments are not
 * an object, when none of the keys sent is a known parameter, or with 4+
 * issues (the caller does not know the schema: show it in full); high when a
 * required parameter is missing or a type is wrong; medium otherwise.
 *
 * Credentials: an UPSTREAM_UNAUTHORIZED/FORBIDDEN error names the environment
 * variables that hold the credentials, never their values; upstream bodies are
 * trimmed and any credential value found in them is redacted.
 */
import {
  CONFIRM_ARG,
  INFO_TOOL,
  type Correction,
  type ErrorCode,
  type GuidedError,
  type HintLevel,
  type Issue,
  type IssueCode,
  type NextStep,
  type Severity,
  type ToolCall,
} from "../call/types.js";
import { isPlainObject } from "../shared/json.js";
import type { ToolData } from "../shared/tool-data.js";
import { LIST, SUGGEST, prepareName, rankMatches, type PreparedName } from "./fuzzy.js";
import { producerSteps } from "./producers.js";

/** Everything `invalidArgumentsError` needs to explain a failed validation. */
export interface ArgumentProblems {
  /** The arguments exactly as the caller sent them. */
  received: unknown;
  issues: Issue[];
  corrections: Correction[];
  warnings: string[];
  /** A complete argument object verified to pass validation, if a confident one exists. */
  corrective_params?: Record<string, unknown>;
  /** Fields of `corrective_params` whose values came from the generated example, not from the caller. */
  example_fields?: string[];
  /** Why `corrective_params` is absent, when it is. */
  corrective_note?: string;
  /** The arguments were not a JSON object at all. */
  not_object?: boolean;
}

export const SEVERITY_HINT_LEVEL: Record<Severity, HintLevel> = {
  critical: "full",
  high: "typed",
  medium: "minimal",
  low: "minimal",
};

/** The tool's precomputed schema hint at `level`. */
export function schemaHint(tool: ToolData, level: HintLevel): unknown {
  return tool.guidance.hints[level];
}

/** The example to show: the full one unless it is bulky; undefined when the generator could not build one. */
export function validExample(tool: ToolData): Record<string, unknown> | undefined {
  const examples = tool.guidance.examples;
  if (!examples) return undefined;
  return JSON.stringify(examples.full).length <= 1500 ? examples.full : examples.minimal;
}

/** First sentence of a description, at most `max` characters. */
export function shortDescription(text: string | undefined, max = 120): string | undefined {
  if (!text) return undefined;
  const first = text.split(/(?<=[.!?])\s|\n/)[0]!.trim();
  return first.length > max ? first.slice(0, max - 1) + "…" : first;
}

export function withHint(error: GuidedError, tool: ToolData, severity: Severity): GuidedError {
  const level = SEVERITY_HINT_LEVEL[severity];
  error.schema_hint = schemaHint(tool, level);
  error.schema_hint_level = level;
  return error;
}

export function infoStep(tool: string, level: HintLevel = "full"): ToolCall {
  return { tool: INFO_TOOL, params: { tool, level }, note: "Full schema, constraints and examples for this tool" };
}

/* ------------------------------------------------------------------------ */
/* INVALID_ARGUMENTS                                                         */
/* ------------------------------------------------------------------------ */

function argumentSeverity(tool: ToolData, p: ArgumentProblems): Severity {
  if (p.not_object) return "critical";
  if (isPlainObject(p.received)) {
    const keys = Object.keys(p.received).filter((k) => k !== CONFIRM_ARG);
    const props = isPlainObject(tool.inputSchema["properties"]) ? (tool.inputSchema["properties"] as object) : {};
    if (keys.length > 0 && keys.every((k) => !(k in props))) return "critical";
  }
  if (p.issues.length >= 4) return "critical";
  if (p.issues.some((i) => i.code === "MISSING_REQUIRED" || i.code === "INVALID_TYPE")) return "high";
  return "medium";
}

export function invalidArgumentsError(tool: ToolData, problems: ArgumentProblems): GuidedError {
  const severity = argumentSeverity(tool, problems);
  const n = problems.issues.length;
  const summary = problems.issues
    .slice(0, 4)
    .map((i) => `${i.field}: ${i.code}`)
    .join(", ");
  const message =
    `Tool '${tool.name}' received invalid arguments: ${n} issue${n === 1 ? "" : "s"} (${summary}${n > 4 ? ", …" : ""}). ` +
    (problems.corrective_params
      ? "corrective_params holds a complete, validated argument object — retry with it after checking the values."
      : "Apply each issue's fix and retry.");
  const withDym = problems.issues.find((i) => i.did_you_mean !== undefined);
  const nextSteps: NextStep[] = [];
  if (problems.corrective_params) {
    nextSteps.push({
      tool: tool.name,
      params: problems.corrective_params,
      note: problems.example_fields?.length
        ? `Passes validation. ${problems.example_fields.join(", ")} came from the example — replace with real values if they matter.`
        : "Passes validation and keeps every valid value you sent.",
    });
  } else {
    if (problems.corrective_note) nextSteps.push(problems.corrective_note);
    nextSteps.push("Apply the `fix` of each issue, then retry the call.");
  }
  nextSteps.push(...identifierSteps(tool, problems));
  if (severity !== "critical") nextSteps.push(infoStep(tool.name));
  const error: GuidedError = {
    code: "INVALID_ARGUMENTS",
    message,
    severity,
    tool: tool.name,
    issues: problems.issues,
    suggestions: { auto_correctable: problems.corrective_params !== undefined },
    next_steps: nextSteps,
  };
  const example = validExample(tool);
  if (example) error.valid_example = example;
  if (withDym) error.suggestions.did_you_mean = String(withDym.did_you_mean);
  if (problems.corrective_params) error.corrective_params = problems.corrective_params;
  if (problems.corrections.length) error.corrections = problems.corrections;
  if (problems.warnings.length) error.warnings = problems.warnings;
  return withHint(error, tool, severity);
}

/**
 * Exact calls yielding real values for the missing identifiers (their
 * producers, with the caller's own arguments carried); the resource's list
 * tool when no producer is known.
 */
function identifierSteps(tool: ToolData, problems: ArgumentProblems): ToolCall[] {
  const missing = problems.issues.filter((i) => i.code === "MISSING_REQUIRED").map((i) => i.field);
  const steps = missing.flatMap((field) => producerSteps(tool, field, problems.received));
  if (steps.length) return steps;
  if (tool.guidance.listTool && missing.length && problems.corrective_note)
    return [{ tool: tool.guidance.listTool, params: {}, note: "Find real values for the missing identifiers" }];
  return [];
}

/* ------------------------------------------------------------------------ */
/* UNKNOWN_TOOL                                                              */
/* ------------------------------------------------------------------------ */

const preparedTools = new WeakMap<readonly ToolData[], PreparedName[]>();

/** Categories with their tool counts, largest first. */
export function categoryCounts(tools: readonly ToolData[]): Array<{ name: string; count: number }> {
  const counts = new Map<string, number>();
  for (const t of tools) counts.set(t.category, (counts.get(t.category) ?? 0) + 1);
  return [...counts]
    .map(([name, count]) => ({ name, count }))
    .sort((a, b) => b.count - a.count || a.name.localeCompare(b.name));
}

/**
 * Tokenises every tool name once (call at start-up with the same array later
 * passed to `unknownToolError`, so no call pays for it).
 */
export function prepareToolNames(tools: readonly ToolData[]): PreparedName[] {
  let prepared = preparedTools.get(tools);
  if (!prepared) {
    prepared = tools.map((t) => prepareName(t.name));
    preparedTools.set(tools, prepared);
  }
  return prepared;
}

export function unknownToolError(name: string, tools: readonly ToolData[], args?: unknown): GuidedError {
  const prepared = prepareToolNames(tools);
  const ranked = rankMatches(name, prepared, { min: LIST, limit: 5 });
  const byName = new Map(tools.map((t) => [t.name, t]));
  const best = ranked[0] && ranked[0].score >= SUGGEST ? byName.get(ranked[0].name) : undefined;
  const categories = categoryCounts(tools);
  const alternatives = ranked.map((m) => {
    const description = shortDescription(byName.get(m.name)?.description);
    return description ? { ...m, description } : { ...m };
  });
  const nextSteps: NextStep[] = [];
  if (best) {
    const props = isPlainObject(best.inputSchema["properties"]) ? (best.inputSchema["properties"] as object) : {};
    const reuse = isPlainObject(args) && Object.keys(args).length > 0 && Object.keys(args).every((k) => k in props);
    nextSteps.push({
      tool: best.name,
      params: reuse ? (args as Record<string, unknown>) : (best.guidance.examples?.minimal ?? {}),
      note: reuse ? "Same arguments, closest tool name" : "Closest tool; the params are its minimal valid example",
    });
  }
  nextSteps.push({ tool: INFO_TOOL, params: {}, note: "List every tool by category" });
  if (ranked.length) nextSteps.push(infoStep(ranked[0]!.name));
  const error: GuidedError = {
    code: "UNKNOWN_TOOL",
    message:
      `Tool '${name}' not found.` +
      (best
        ? ` Did you mean '${best.name}'?`
        : ranked.length
          ? ` Similar: ${ranked.map((m) => m.name).join(", ")}.`
          : "") +
      ` Call ${INFO_TOOL}() to list the ${tools.length} available tools.`,
    severity: "high",
    issues: [],
    suggestions: { alternatives },
    next_steps: nextSteps,
    details: { categories, tool_count: tools.length },
  };
  if (best) {
    error.suggestions.did_you_mean = best.name;
    error.schema_hint = schemaHint(best, "typed");
    error.schema_hint_level = "typed";
    const example = validExample(best);
    if (example) error.valid_example = example;
  }
  return error;
}

/* ------------------------------------------------------------------------ */
/* CONFIRMATION_REQUIRED                                                     */
/* ------------------------------------------------------------------------ */

/** `/pets/{petId}` with `{ petId: 42 }` -> `/pets/42`. */
export function resolvedPath(tool: ToolData, args: Record<string, unknown>): string | undefined {
  const op = tool.operation;
  if (!op) return undefined;
  return op.path.replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const binding = op.parameters.find((p) => p.in === "path" && p.name === name);
    const value = binding ? args[binding.arg] : undefined;
    return value === undefined || value === null
      ? whole
      : encodeURIComponent(typeof value === "object" ? JSON.stringify(value) : String(value));
  });
}

/**
 * A destructive tool (annotations.destructiveHint) runs only when the call
 * carries the reserved argument `"_confirm": true`. `_confirm` is not in the
 * tool's inputSchema: prepareArguments strips it before validation and it is
 * never sent upstream. This error says exactly what would happen and gives the
 * confirmed call verbatim.
 */
export function confirmationRequiredError(tool: ToolData, args: Record<string, unknown>): GuidedError {
  const op = tool.operation;
  const what = op
    ? `${op.method.toUpperCase()} ${resolvedPath(tool, args)}`
    : `run handler ${tool.handler?.module ?? tool.name}`;
  const nextSteps: NextStep[] = [
    {
      tool: tool.name,
      params: { ...args, [CONFIRM_ARG]: true },
      note: "Only if the user intends this irreversible change",
    },
  ];
  if (tool.guidance.listTool)
    nextSteps.push({ tool: tool.guidance.listTool, params: {}, note: "Review the current state first" });
  return {
    code: "CONFIRMATION_REQUIRED",
    message:
      `'${tool.name}' is destructive and was not run. It would ${what}` +
      `${Object.keys(args).length ? ` with ${JSON.stringify(args)}` : ""}. ` +
      `If the user intends this, resend the same call with "${CONFIRM_ARG}": true.`,
    severity: "medium",
    tool: tool.name,
    issues: [],
    suggestions: {},
    next_steps: nextSteps,
    recovery_actions: [
      "confirm the intent with the user if it is not explicit",
      `resend the identical call with "${CONFIRM_ARG}": true`,
    ],
    details: {
      would_run: op
        ? { method: op.method.toUpperCase(), path: op.path, resolved_path: resolvedPath(tool, args), args }
        : { handler: tool.handler?.module, args },
      annotations: tool.annotations,
    },
  };
}

/** Most actionable first: what to add, then what to rename, then what to change. */
const ISSUE_PRIORITY: readonly IssueCode[] = [
  "MISSING_REQUIRED",
  "UNKNOWN_PARAMETER",
  "INVALID_TYPE",
  "INVALID_ENUM",
  "OUT_OF_RANGE",
  "INVALID_LENGTH",
  "INVALID_FORMAT",
  "INVALID_PATTERN",
  "INVALID_VALUE",
];

/**
 * An argument error is named by its primary issue (`MISSING_REQUIRED`,
 * `INVALID_ENUM`…), so a client can branch on `error.code` alone; every
 * issue stays listed in `issues`. `INVALID_ARGUMENTS` remains only for
 * arguments that produced no issue.
 */
export function argumentErrorCode(issues: readonly Issue[]): ErrorCode {
  for (const code of ISSUE_PRIORITY) if (issues.some((issue) => issue.code === code)) return code;
  return "INVALID_ARGUMENTS";
}
