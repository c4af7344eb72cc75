/**
 * How the API's operations are exposed — three surfaces over ONE set of
 * precomputed tool data (switching mode costs nothing at start-up):
 *
 *   per-operation  one MCP tool per operation (the data file as is).
 *   dispatch       one tool for the whole API (≤ 150 operations) or one per
 *                  category (first tag), each `{ action, params }` with the
 *                  operation names in a VISIBLE `action` enum, plus the
 *                  actions `list` (trimmed summaries) and `describe`
 *                  (`params: { action, level? }`).
 *   discovery      `search_operations` → `describe_operation` →
 *                  `invoke_operation`, over a token index built once.
 *
 * Every surface ends in the same guided call path (validation, correction,
 * corrective_params, confirmation gate, envelope); `present` then rewrites
 * every call the result suggests (available_actions, next_steps,
 * corrective_params, valid_example) into the surface in use, so an agent
 * never sees a call it cannot make.
 */
import type { CallToolResult, Tool } from "@modelcontextprotocol/server";
import { describeTool } from "./guidance/describe.js";
import { categoryCounts, errorResult, renderError, shortDescription, unknownToolError } from "./guidance/errors.js";
import { renderEnvelope, type Envelope } from "./guidance/envelope.js";
import { SUGGEST, rankMatches } from "./guidance/fuzzy.js";
import { isPlainObject } from "./guidance/pointer.js";
import { renderDescription } from "./guidance/reserved.js";
import {
  CONFIRM_ARG,
  INFO_TOOL,
  OPERATION_STATUS_TOOL,
  READ_RESPONSE_TOOL,
  RESERVED_TOOL_NAMES,
  WAIT_ALIAS,
  WAIT_ARG,
  type GuidedError,
  type HintLevel,
  type NextStep,
  type ToolCall,
} from "./guidance/types.js";
import type { ApiData, ToolData, ToolMode } from "./tool-data.js";

export type ResolvedMode = Exclude<ToolMode, "auto">;

export const DEFAULT_AUTO_THRESHOLD = 40;
/** Dispatch: one tool for the whole API up to this many operations, one per category above. */
export const DISPATCH_SINGLE_TOOL_MAX = 150;

export const SEARCH_TOOL = "search_operations";
export const DESCRIBE_TOOL = "describe_operation";
export const INVOKE_TOOL = "invoke_operation";

const LEVELS: HintLevel[] = ["minimal", "typed", "full"];
const LIST_ACTION = "list";
const DESCRIBE_ACTION = "describe";
const NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** `auto` is per-operation up to the threshold, discovery above it. */
export function resolveToolMode(requested: ToolMode | undefined, api: Pick<ApiData, "toolMode" | "autoThreshold">, toolCount: number): ResolvedMode {
  const mode = requested ?? api.toolMode ?? "auto";
  if (mode !== "auto") return mode;
  return toolCount <= (api.autoThreshold ?? DEFAULT_AUTO_THRESHOLD) ? "per-operation" : "discovery";
}

/** What a mode-level tool asks the server to do. */
export type Routed =
  | { kind: "result"; result: CallToolResult }
  /** Run `tool` through the guided path with `args` (reserved `_confirm` / `wait` already merged in). */
  | { kind: "invoke"; tool: ToolData; args: unknown; warnings?: string[] };

export interface Surface {
  readonly mode: ResolvedMode;
  /** Mode-level tools (dispatch tools or the discovery meta-tools) as validation data; empty per-operation. */
  readonly tools: ToolData[];
  /** Listed form of `tools` (the dispatch `action` enum lives only here). */
  readonly listed: Tool[];
  /** The instructions paragraph for this mode. */
  readonly workflow: (confirmDestructive: boolean) => string;
  /** Handles a call to one of `tools`, on prepared (validated) arguments. */
  route(tool: ToolData, args: Record<string, unknown>, confirmed: boolean): Routed;
  /** Rewrites every suggested call of a result into this mode. Identity per-operation. */
  present(result: CallToolResult): CallToolResult;
  /** One call in this mode. */
  express(step: ToolCall): ToolCall;
  /** Builds the search index now (discovery); otherwise a no-op. */
  warmUp(): void;
}

const LOOSE_OUTPUT_SCHEMA = { type: "object" as const, additionalProperties: true };
const META_ANNOTATIONS = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

export interface SurfaceOptions {
  api: ApiData;
  tools: readonly ToolData[];
  toolsByName: ReadonlyMap<string, ToolData>;
  mode: ResolvedMode;
}

export function createSurface(options: SurfaceOptions): Surface {
  if (options.mode === "dispatch") return dispatchSurface(options);
  if (options.mode === "discovery") return discoverySurface(options);
  return {
    mode: "per-operation",
    tools: [],
    listed: [],
    workflow: perOperationWorkflow,
    route: () => {
      throw new Error("per-operation mode has no mode-level tools");
    },
    present: (result) => result,
    express: (step) => step,
    warmUp: () => {},
  };
}

/* ------------------------------------------------------------------------ */
/* Shared pieces                                                             */
/* ------------------------------------------------------------------------ */

function commonWorkflow(confirmDestructive: boolean, confirmWhere: string, waitWhere: string): string[] {
  return [
    "Successful results carry `data`, a one-sentence `suggestion`, `available_actions` (exact follow-up calls with parameters filled from the response) and `next_steps` (for example the next page); `resolved_inputs` shows the values in effect, including defaults.",
    "Errors are tool results with `issues` (each with a fix) and usually `corrective_params`: a complete argument object that passes validation — resend it as is after checking the values.",
    confirmDestructive
      ? `Destructive operations (deletes and other irreversible changes) run only when ${confirmWhere} includes "${CONFIRM_ARG}": true; confirm with the user first.`
      : "",
    `Long-running operations (HTTP 202) return an \`operation\` handle: pass "${WAIT_ARG}": true ${waitWhere} to wait for the result, or call \`${OPERATION_STATUS_TOOL}\` {"handle", "wait"} later.`,
    `Large results come back as a \`summary\` with \`detail_available: true\`; page through the rest with \`${READ_RESPONSE_TOOL}\` exactly as given in \`next_steps\`.`,
  ].filter((line) => line !== "");
}

function perOperationWorkflow(confirmDestructive: boolean): string {
  return [
    `Workflow: call \`${INFO_TOOL}\` first to see the tool categories; \`${INFO_TOOL}\` {"tool": "<name>", "level": "typed"|"full"} shows a tool's parameters, constraints and valid examples. Then call the tool.`,
    ...commonWorkflow(confirmDestructive, "the call", "in the call"),
  ].join(" ");
}

function requiredOf(tool: ToolData): string[] {
  return tool.guidance.hints.minimal.required;
}

function summary(tool: ToolData, withCategory: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = { name: tool.name };
  const description = shortDescription(tool.title ?? tool.description, 120) ?? shortDescription(tool.description, 120);
  if (description) out["description"] = description;
  if (withCategory) out["category"] = tool.category;
  const required = requiredOf(tool);
  if (required.length) out["required"] = required;
  if (tool.annotations.destructiveHint) out["destructive"] = true;
  return out;
}

function textResult(text: string, structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: "text", text }], structuredContent: structured };
}

function renderCall(step: ToolCall): string {
  return `\`${step.tool}\` ${JSON.stringify(step.params)}`;
}

function stripReserved(params: Record<string, unknown>): { rest: Record<string, unknown>; confirm?: unknown; wait?: unknown } {
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
function describeResult(tool: ToolData, level: HintLevel, express: (step: ToolCall) => ToolCall): CallToolResult {
  const description = describeTool(tool, level);
  const next: ToolCall[] = [];
  const examples = tool.guidance.examples;
  if (examples) next.push(express({ tool: tool.name, params: examples.minimal, note: "Minimal valid call" }));
  if (examples && JSON.stringify(examples.full) !== JSON.stringify(examples.minimal))
    next.push(express({ tool: tool.name, params: examples.full, note: "Full valid call" }));
  if (level !== "full") next.push(express({ tool: INFO_TOOL, params: { tool: tool.name, level: "full" }, note: "Complete schema and constraints" }));
  const text = [renderDescription(description), next.length ? `## Calls\n\n${next.map((s) => `- ${renderCall(s)}${s.note ? ` — ${s.note}` : ""}`).join("\n")}` : ""]
    .filter(Boolean)
    .join("\n\n");
  return textResult(text, { ...description, next_steps: next });
}

/** UNKNOWN_ACTION / UNKNOWN_OPERATION: did-you-mean over every operation, calls expressed in the mode. */
function unknownOperationError(
  code: "UNKNOWN_ACTION" | "UNKNOWN_OPERATION",
  field: string,
  name: string,
  args: unknown,
  frontTool: string,
  tools: readonly ToolData[],
  listStep: ToolCall,
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
      (best ? ` Did you mean '${best}'?` : base.suggestions.alternatives?.length ? ` Similar: ${base.suggestions.alternatives.map((a) => a.name).join(", ")}.` : "") +
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
      ...base.next_steps.filter((step): step is ToolCall => typeof step !== "string" && step.tool === INFO_TOOL && isPlainObject(step.params) && "tool" in step.params),
    ],
  };
  return error;
}

/**
 * A result with every suggested call rewritten by `express`; the text is
 * re-rendered from the rewritten structured content when it is one of the
 * guidance layer's own shapes (envelope or error).
 */
function presentWith(result: CallToolResult, express: (step: ToolCall) => ToolCall, errorTool: (name: string) => { tool: string; wrap: (params: Record<string, unknown>) => Record<string, unknown> } | undefined): CallToolResult {
  const structured = result.structuredContent;
  if (!isPlainObject(structured)) return result;
  const steps = (value: unknown): unknown => (Array.isArray(value) ? value.map((step) => (isCall(step) ? express(step) : step)) : value);
  const out: Record<string, unknown> = { ...structured };
  for (const key of ["available_actions", "next_steps"]) if (key in out) out[key] = steps(out[key]);
  if (isPlainObject(out["operation"]) && isCall(out["operation"]["status_call"])) out["operation"] = { ...out["operation"], status_call: express(out["operation"]["status_call"]) };
  let rendered: string | undefined;
  if (isPlainObject(out["error"])) {
    const error = { ...(out["error"] as unknown as GuidedError) };
    error.next_steps = steps(error.next_steps) as NextStep[];
    const front = error.tool !== undefined ? errorTool(error.tool) : undefined;
    if (front && error.tool !== undefined) {
      error.details = { ...error.details, operation: error.tool };
      if (error.corrective_params) error.corrective_params = front.wrap(error.corrective_params);
      if (error.valid_example) error.valid_example = front.wrap(error.valid_example);
      error.tool = front.tool;
    }
    out["error"] = error as unknown as Record<string, unknown>;
    rendered = renderError(error);
  } else if (Array.isArray(out["available_actions"]) && typeof out["suggestion"] === "string") {
    rendered = renderEnvelope(out as unknown as Envelope);
  }
  const content = rendered !== undefined && result.content.length === 1 && result.content[0]?.type === "text" ? [{ type: "text" as const, text: rendered }] : result.content;
  return { ...result, content, structuredContent: out };
}

function isCall(value: unknown): value is ToolCall {
  return isPlainObject(value) && typeof value["tool"] === "string" && isPlainObject(value["params"]);
}

function sanitizeName(raw: string, fallback: string): string {
  const cleaned = raw.replace(/[^a-zA-Z0-9_-]+/g, "_").replace(/^[_-]+|[_-]+$/g, "").slice(0, 64);
  return cleaned || fallback;
}

/* ------------------------------------------------------------------------ */
/* Dispatch                                                                  */
/* ------------------------------------------------------------------------ */

interface DispatchGroup {
  name: string;
  category?: string;
  tools: ToolData[];
}

/** One group for ≤ DISPATCH_SINGLE_TOOL_MAX operations, else one per category; names sanitised and unique. */
export function dispatchGroups(api: Pick<ApiData, "name">, tools: readonly ToolData[]): DispatchGroup[] {
  const taken = new Set<string>([...RESERVED_TOOL_NAMES, ...tools.map((tool) => tool.name)]);
  const unique = (raw: string, fallback: string): string => {
    const base = sanitizeName(raw, fallback);
    let name = base;
    for (let n = 2; taken.has(name) || !NAME_PATTERN.test(name); n++) name = `${base.slice(0, 60)}_${n}`;
    taken.add(name);
    return name;
  };
  if (tools.length <= DISPATCH_SINGLE_TOOL_MAX) {
    return [{ name: unique(api.name.replace(/[-_]mcp$/i, ""), "api"), tools: [...tools] }];
  }
  const byCategory = new Map<string, ToolData[]>();
  for (const tool of tools) {
    const list = byCategory.get(tool.category) ?? [];
    list.push(tool);
    byCategory.set(tool.category, list);
  }
  return [...byCategory].map(([category, members]) => ({ name: unique(category, "default"), category, tools: members }));
}

function dispatchSurface({ api, tools, toolsByName }: SurfaceOptions): Surface {
  const groups = dispatchGroups(api, tools);
  const groupOf = new Map<string, DispatchGroup>();
  for (const group of groups) for (const tool of group.tools) groupOf.set(tool.name, group);
  const groupByName = new Map(groups.map((group) => [group.name, group]));

  const express = (step: ToolCall): ToolCall => {
    if (step.tool === INFO_TOOL && typeof step.params["tool"] === "string") {
      const group = groupOf.get(step.params["tool"]);
      if (!group) return step;
      const params: Record<string, unknown> = { action: step.params["tool"] };
      if (step.params["level"] !== undefined) params["level"] = step.params["level"];
      return { ...step, tool: group.name, params: { action: DESCRIBE_ACTION, params } };
    }
    const group = groupOf.get(step.tool);
    if (!group || !toolsByName.has(step.tool)) return step;
    return { ...step, tool: group.name, params: { action: step.tool, params: step.params } };
  };

  const validation = (group: DispatchGroup): ToolData => {
    const tool = metaTool(group.name, "", routedCallSchema("action"), { action: LIST_ACTION }, { action: DESCRIBE_ACTION, params: { action: group.tools[0]?.name ?? "", level: "typed" } });
    // The schema leaves `action` open so an unknown one gets did-you-mean; the hint still names every action.
    const actionHint = tool.guidance.hints.typed["action"];
    if (actionHint) actionHint.enum = [...group.tools.map((t) => t.name), LIST_ACTION, DESCRIBE_ACTION];
    return tool;
  };
  const validationTools = groups.map(validation);

  // Kept terse: with one tool per category this repeats for every category (GitHub: 50 tools).
  const listed: Tool[] = groups.map((group) => {
    const count = group.tools.length;
    const scope = group.category !== undefined ? `${count} '${group.category}' operations of ${api.title}` : `All ${count} operations of ${api.title}`;
    return {
      name: group.name,
      description:
        `${scope}. {"action": "list"}: summaries; {"action": "describe", "params": {"action": "<name>"}}: parameters and valid examples; ` +
        `{"action": "<name>", "params": {...}} runs it.`,
      inputSchema: {
        type: "object",
        properties: {
          action: { type: "string", enum: [...group.tools.map((t) => t.name), LIST_ACTION, DESCRIBE_ACTION] },
          params: { type: "object", description: `The operation's arguments; "${CONFIRM_ARG}": true for destructive ones, "${WAIT_ARG}": true to await a long-running one.` },
        },
        required: ["action"],
      },
      outputSchema: LOOSE_OUTPUT_SCHEMA,
      annotations: {
        readOnlyHint: group.tools.every((t) => t.annotations.readOnlyHint),
        destructiveHint: group.tools.some((t) => t.annotations.destructiveHint),
        idempotentHint: group.tools.every((t) => t.annotations.idempotentHint),
        openWorldHint: true,
      },
    };
  });

  const listStep = (group: DispatchGroup): ToolCall => ({ tool: group.name, params: { action: LIST_ACTION }, note: "Every action with a one-line summary" });

  const invalidParams = (group: DispatchGroup, field: string, problem: string, fix: string, corrective: Record<string, unknown> | undefined, received?: unknown): CallToolResult => {
    const error: GuidedError = {
      code: "INVALID_ARGUMENTS",
      message: `${group.name}: ${problem}.`,
      severity: "high",
      tool: group.name,
      issues: [{ field, code: "INVALID_VALUE", problem, expected: fix, fix, ...(received !== undefined && { received }) }],
      suggestions: { auto_correctable: corrective !== undefined },
      next_steps: corrective ? [{ tool: group.name, params: corrective, note: "Passes validation" }, listStep(group)] : [listStep(group)],
      ...(corrective && { corrective_params: corrective }),
    };
    return errorResult(error);
  };

  const route = (front: ToolData, args: Record<string, unknown>, confirmed: boolean): Routed => {
    const group = groupByName.get(front.name)!;
    const action = args["action"] as string;
    const rawParams = args["params"];
    const params = isPlainObject(rawParams) ? rawParams : {};
    if (rawParams !== undefined && !isPlainObject(rawParams)) {
      return { kind: "result", result: invalidParams(group, "params", "`params` must be an object of the operation's arguments", "Send params as a JSON object", { action, params: {} }, rawParams) };
    }
    if (action === LIST_ACTION) {
      const multi = new Set(group.tools.map((t) => t.category)).size > 1;
      const actions = group.tools.map((tool) => summary(tool, multi));
      const next: ToolCall[] = [{ tool: group.name, params: { action: DESCRIBE_ACTION, params: { action: group.tools[0]?.name ?? "", level: "typed" } }, note: "Parameters and valid examples of one action" }];
      const structured: Record<string, unknown> = { tool: group.name, action_count: actions.length, actions, next_steps: next };
      if (multi) structured["categories"] = categoryCounts(group.tools);
      const lines = actions.map((a) => `- ${a["name"] as string}${a["required"] ? ` (required: ${(a["required"] as string[]).join(", ")})` : ""}${a["destructive"] ? " [destructive]" : ""}${a["description"] ? `: ${a["description"] as string}` : ""}`);
      return { kind: "result", result: textResult(`${actions.length} actions of \`${group.name}\`:\n${lines.join("\n")}\n\nNext: ${renderCall(next[0]!)}`, structured) };
    }
    if (action === DESCRIBE_ACTION) {
      const target = params["action"];
      const level = params["level"] ?? "typed";
      if (typeof target !== "string" || target === "") {
        return { kind: "result", result: invalidParams(group, "params.action", "describe needs params.action: the operation to describe", `Pass one of the action names, e.g. "${group.tools[0]?.name}"`, group.tools[0] ? { action: DESCRIBE_ACTION, params: { action: group.tools[0].name, level: "typed" } } : undefined, target) };
      }
      if (typeof level !== "string" || !LEVELS.includes(level as HintLevel)) {
        return { kind: "result", result: invalidParams(group, "params.level", `level must be one of ${LEVELS.join(", ")}`, `Use "typed" (or minimal / full)`, { action: DESCRIBE_ACTION, params: { action: target, level: "typed" } }, level) };
      }
      const tool = toolsByName.get(target);
      if (!tool) return { kind: "result", result: errorResult(unknownOperationError("UNKNOWN_ACTION", "params.action", target, undefined, group.name, tools, listStep(group))) };
      return { kind: "result", result: describeResult(tool, level as HintLevel, express) };
    }
    const tool = toolsByName.get(action);
    if (!tool) return { kind: "result", result: errorResult(unknownOperationError("UNKNOWN_ACTION", "action", action, params, group.name, tools, listStep(group))) };
    const inner: Record<string, unknown> = { ...params };
    if (confirmed && inner[CONFIRM_ARG] === undefined) inner[CONFIRM_ARG] = true;
    const wait = args[WAIT_ARG] ?? args[WAIT_ALIAS];
    if (wait !== undefined && inner[WAIT_ALIAS] === undefined && inner[WAIT_ARG] === undefined) inner[WAIT_ALIAS] = wait;
    const home = groupOf.get(action);
    const warnings = home && home !== group ? [`'${action}' belongs to \`${home.name}\`; call it there next time.`] : undefined;
    return { kind: "invoke", tool, args: inner, ...(warnings && { warnings }) };
  };

  return {
    mode: "dispatch",
    tools: validationTools,
    listed,
    workflow: (confirmDestructive) =>
      [
        groups.length === 1
          ? `Workflow: \`${groups[0]!.name}\` runs every operation of the API, chosen with \`action\` (the enum in its schema).`
          : `Workflow: each tool covers one category of operations (${groups.length} tools), chosen with \`action\` (the enum in its schema).`,
        `Call a tool with {"action": "list"} for one-line summaries, then {"action": "describe", "params": {"action": "<operation>", "level": "typed"|"full"}} for an operation's parameters and valid examples, then {"action": "<operation>", "params": {...}}.`,
        `Every suggested call (available_actions, next_steps, corrective_params) is already in this {"action", "params"} form.`,
        ...commonWorkflow(confirmDestructive, "`params`", "in `params`"),
      ].join(" "),
    route,
    express,
    present: (result) =>
      presentWith(result, express, (name) => {
        const group = groupOf.get(name);
        return group ? { tool: group.name, wrap: (params) => ({ action: name, params }) } : undefined;
      }),
    warmUp: () => {},
  };
}

/* ------------------------------------------------------------------------ */
/* Discovery                                                                 */
/* ------------------------------------------------------------------------ */

const STOPWORDS = new Set(
  "a an the of for to in on by with and or is are be this that from at as it its into via your you all any can will which".split(" "),
);

function stemToken(token: string): string {
  if (token.length > 4 && token.endsWith("ies")) return token.slice(0, -3) + "y";
  if (token.length > 4 && /(ches|shes|sses|xes)$/.test(token)) return token.slice(0, -2);
  if (token.length > 3 && token.endsWith("s") && !/(ss|us|is)$/.test(token)) return token.slice(0, -1);
  return token;
}

export function searchTokens(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((token) => token.length > 1 && !STOPWORDS.has(token))
    .map(stemToken);
}

export interface SearchHit {
  tool: ToolData;
  score: number;
}

/**
 * Keyword index over names, titles, descriptions, tags and paths. Each
 * operation keeps its best field weight per token; a query token scores
 * weight × idf on exact matches and 0.6 × that on prefix matches (`repo`
 * finds `repository`), and the total is scaled by the share of query tokens
 * matched, so operations matching every word come first.
 */
export class SearchIndex {
  private readonly postings = new Map<string, Array<[number, number]>>();
  private vocabulary: string[] = [];
  private readonly byName: Map<string, number>;
  private readonly nameTokens: string[][];
  /** Adjacent path-segment pairs (`terms>sets`): paths that differ only in segment order rank apart. */
  private readonly pathPairs = new Map<string, number[]>();
  /** `/a/{}/b` → operations, for queries that quote a path. */
  private readonly byPath = new Map<string, number[]>();

  constructor(private readonly tools: readonly ToolData[]) {
    this.byName = new Map(tools.map((tool, index) => [tool.name, index]));
    this.nameTokens = tools.map((tool) => [...new Set(searchTokens(tool.name))]);
    tools.forEach((tool, index) => {
      const weights = new Map<string, number>();
      const add = (text: string | undefined, weight: number) => {
        if (!text) return;
        for (const token of searchTokens(text)) if ((weights.get(token) ?? 0) < weight) weights.set(token, weight);
      };
      add(tool.name, 3);
      add(tool.operationId, 2.5);
      add(tool.title, 2);
      for (const tag of tool.tags ?? [tool.category]) add(tag, 2);
      add(tool.category, 2);
      add(tool.operation?.path.replace(/\{[^}]*\}/g, " "), 1.5);
      const description = tool.description ?? "";
      const first = shortDescription(description, 300);
      add(first, 1.5);
      add(description.slice(0, 600), 0.5);
      if (tool.operation) {
        add(tool.operation.method, 0.5);
        for (const pair of orderedPairs(tool.operation.path.replace(/\{[^}]*\}/g, " "))) pushTo(this.pathPairs, pair, index);
        pushTo(this.byPath, pathShape(tool.operation.path), index);
      }
      for (const [token, weight] of weights) {
        let list = this.postings.get(token);
        if (!list) this.postings.set(token, (list = []));
        list.push([index, weight]);
      }
    });
    this.vocabulary = [...this.postings.keys()].sort();
  }

  private idf(token: string): number {
    return Math.log(1 + this.tools.length / (this.postings.get(token)?.length ?? this.tools.length));
  }

  search(query: string, options: { category?: string; limit?: number } = {}): { hits: SearchHit[]; total: number } {
    const tokens = [...new Set(searchTokens(query))];
    const category = options.category?.toLowerCase();
    const inCategory = (tool: ToolData) =>
      category === undefined || tool.category.toLowerCase() === category || (tool.tags ?? []).some((tag) => tag.toLowerCase() === category);
    const scores = new Map<number, { score: number; matched: number }>();
    for (const token of tokens) {
      const best = new Map<number, number>();
      const credit = (entries: Array<[number, number]> | undefined, factor: number, idf: number) => {
        for (const [index, weight] of entries ?? []) {
          const value = weight * idf * factor;
          if ((best.get(index) ?? 0) < value) best.set(index, value);
        }
      };
      credit(this.postings.get(token), 1, this.idf(token));
      if (token.length >= 3) {
        // Binary search to the first vocabulary entry >= token, then walk the prefix range.
        let lo = 0;
        let hi = this.vocabulary.length;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (this.vocabulary[mid]! < token) lo = mid + 1;
          else hi = mid;
        }
        for (let i = lo; i < this.vocabulary.length && this.vocabulary[i]!.startsWith(token); i++) {
          const word = this.vocabulary[i]!;
          if (word !== token) credit(this.postings.get(word), 0.6, this.idf(word));
        }
      }
      for (const [index, value] of best) {
        const entry = scores.get(index) ?? { score: 0, matched: 0 };
        entry.score += value;
        entry.matched += 1;
        scores.set(index, entry);
      }
    }
    for (const pair of new Set(orderedPairs(query))) {
      for (const index of this.pathPairs.get(pair) ?? []) {
        const entry = scores.get(index);
        if (entry) entry.score += 1.5;
      }
    }
    for (const quoted of query.match(/\/[^\s]+/g) ?? []) {
      for (const index of this.byPath.get(pathShape(quoted)) ?? []) scores.set(index, { score: 1e5, matched: tokens.length || 1 });
    }
    const exact = this.byName.get(query.trim());
    if (exact !== undefined) scores.set(exact, { score: 1e6, matched: tokens.length || 1 });
    const hits: SearchHit[] = [];
    for (const [index, { score, matched }] of scores) {
      const tool = this.tools[index]!;
      if (!inCategory(tool)) continue;
      const coverage = tokens.length ? matched / tokens.length : 1;
      // Of two names matching the same words, the one with fewer other words is the closer match.
      const extra = this.nameTokens[index]!.filter((word) => !tokens.some((token) => word === token || (token.length >= 3 && word.startsWith(token)))).length;
      hits.push({ tool, score: Math.round(((score * coverage * coverage) / (1 + 0.08 * extra)) * 100) / 100 });
    }
    hits.sort((a, b) => b.score - a.score || a.tool.name.localeCompare(b.tool.name));
    return { hits: hits.slice(0, options.limit ?? 10), total: hits.length };
  }
}

function orderedPairs(text: string): string[] {
  const tokens = searchTokens(text);
  return tokens.slice(1).map((token, index) => `${tokens[index]}>${token}`);
}

/** `/sites/{site-id}/lists/` → `/sites/{}/lists`, so a quoted path matches whatever its parameters are called. */
function pathShape(path: string): string {
  return path.replace(/\{[^}]*\}/g, "{}").replace(/\/+$/, "").toLowerCase();
}

function pushTo(map: Map<string, number[]>, key: string, index: number): void {
  const list = map.get(key);
  if (list) {
    if (list[list.length - 1] !== index) list.push(index);
  } else map.set(key, [index]);
}

export const SEARCH_INPUT_SCHEMA = {
  type: "object",
  properties: {
    query: { type: "string", minLength: 1, description: "What you want to do, in a few words (e.g. \"create issue comment\"), an operation name, or an API path (/repos/{owner}/{repo}/issues)." },
    category: { type: "string", description: "Only operations of this category (tag)." },
    limit: { type: "integer", minimum: 1, maximum: 50, default: 10, description: "How many results (1-50)." },
  },
  required: ["query"],
  additionalProperties: false,
};

export const DESCRIBE_INPUT_SCHEMA = {
  type: "object",
  properties: {
    name: { type: "string", minLength: 1, description: "The operation name from search_operations." },
    level: { type: "string", enum: LEVELS, default: "typed", description: "minimal (parameter names), typed (types, defaults, enums) or full (complete schema)." },
  },
  required: ["name"],
  additionalProperties: false,
};

/** What a dispatch tool (`action`) or `invoke_operation` (`name`) accepts before the call is routed to its operation. */
function routedCallSchema(operationKey: "action" | "name") {
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

const INVOKE_VALIDATION_SCHEMA = routedCallSchema("name");

function metaTool(name: string, description: string, inputSchema: Record<string, unknown>, example: Record<string, unknown>, full: Record<string, unknown>): ToolData {
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

function discoverySurface({ api, tools, toolsByName }: SurfaceOptions): Surface {
  let index: SearchIndex | undefined;
  const searchIndex = () => (index ??= new SearchIndex(tools));
  const first = tools[0];
  const categories = categoryCounts(tools);

  const express = (step: ToolCall): ToolCall => {
    if (step.tool === INFO_TOOL && typeof step.params["tool"] === "string" && toolsByName.has(step.params["tool"])) {
      const params: Record<string, unknown> = { name: step.params["tool"] };
      if (step.params["level"] !== undefined) params["level"] = step.params["level"];
      return { ...step, tool: DESCRIBE_TOOL, params };
    }
    if (!toolsByName.has(step.tool)) return step;
    const { rest, confirm, wait } = stripReserved(step.params);
    const params: Record<string, unknown> = { name: step.tool, params: rest };
    if (confirm !== undefined) params[CONFIRM_ARG] = confirm;
    if (wait !== undefined) params[WAIT_ARG] = wait;
    return { ...step, tool: INVOKE_TOOL, params };
  };

  const searchTool = metaTool(
    SEARCH_TOOL,
    `Step 1 of 3. Finds operations of ${api.title} (${tools.length} in ${categories.length} categories) by keywords over names, descriptions, tags and paths; returns the best matches with their required parameters.`,
    SEARCH_INPUT_SCHEMA,
    { query: first ? (shortDescription(first.title ?? first.description, 60) ?? first.name) : "list" },
    { query: first?.name ?? "list", limit: 5 },
  );
  const describeToolData = metaTool(
    DESCRIBE_TOOL,
    "Step 2 of 3. An operation's parameters at level minimal | typed | full, with valid examples and the exact invoke_operation call.",
    DESCRIBE_INPUT_SCHEMA,
    { name: first?.name ?? "" },
    { name: first?.name ?? "", level: "full" },
  );
  const invokeTool = metaTool(
    INVOKE_TOOL,
    "Step 3 of 3. Runs an operation with its arguments in `params` (validated, auto-corrected, confirmation-gated). " +
      `Add "${CONFIRM_ARG}": true for destructive operations and "${WAIT_ARG}": true to wait for a long-running one.`,
    INVOKE_VALIDATION_SCHEMA,
    { name: first?.name ?? "", params: first?.guidance.examples?.minimal ?? {} },
    { name: first?.name ?? "", params: first?.guidance.examples?.full ?? {} },
  );
  invokeTool.annotations = {
    readOnlyHint: tools.every((t) => t.annotations.readOnlyHint),
    destructiveHint: tools.some((t) => t.annotations.destructiveHint),
    idempotentHint: false,
    openWorldHint: true,
  };
  const metaTools = [searchTool, describeToolData, invokeTool];

  const invokeListed = {
    type: "object" as const,
    properties: {
      name: { type: "string", description: "The operation name (from search_operations)." },
      params: { type: "object", description: "The operation's arguments (describe_operation shows them)." },
      [CONFIRM_ARG]: { type: "boolean", description: "Set to true to confirm a destructive operation (ask the user first)." },
      [WAIT_ARG]: { type: "boolean", description: "Wait for a long-running operation (HTTP 202) to finish and return its result." },
    },
    required: ["name"],
  };
  const listed: Tool[] = metaTools.map((tool) => ({
    name: tool.name,
    title: tool.name === SEARCH_TOOL ? "Search operations" : tool.name === DESCRIBE_TOOL ? "Describe an operation" : "Invoke an operation",
    description: tool.description,
    inputSchema: tool.name === INVOKE_TOOL ? invokeListed : (tool.inputSchema as Tool["inputSchema"]),
    outputSchema: LOOSE_OUTPUT_SCHEMA,
    annotations: tool.annotations,
  }));

  const searchStep = (query: string): ToolCall => ({ tool: SEARCH_TOOL, params: { query }, note: "Search by what you want to do" });

  const route = (front: ToolData, args: Record<string, unknown>, confirmed: boolean): Routed => {
    if (front.name === SEARCH_TOOL) {
      const query = args["query"] as string;
      const category = args["category"] as string | undefined;
      if (category !== undefined && !categories.some((c) => c.name.toLowerCase() === category.toLowerCase()) && !tools.some((t) => (t.tags ?? []).some((tag) => tag.toLowerCase() === category.toLowerCase()))) {
        const ranked = rankMatches(category, categories.map((c) => c.name), { limit: 3 });
        const best = ranked[0] && ranked[0].score >= SUGGEST ? ranked[0].name : undefined;
        const error: GuidedError = {
          code: "INVALID_ARGUMENTS",
          message: `No category '${category}'.${best ? ` Did you mean '${best}'?` : ""} Search without a category, or use one of: ${categories.slice(0, 20).map((c) => c.name).join(", ")}${categories.length > 20 ? ", …" : ""}.`,
          severity: "medium",
          tool: SEARCH_TOOL,
          issues: [{ field: "category", code: "INVALID_ENUM", problem: `'${category}' is not a category`, received: category, expected: "a category name", fix: best ? `Use "${best}"` : "Drop the category", ...(best && { did_you_mean: best }) }],
          suggestions: { ...(best && { did_you_mean: best }), auto_correctable: true },
          corrective_params: best ? { ...args, category: best } : Object.fromEntries(Object.entries(args).filter(([key]) => key !== "category")),
          next_steps: [{ tool: SEARCH_TOOL, params: best ? { ...args, category: best } : { query }, note: best ? "Closest category" : "Without the category" }],
          details: { categories: categories.slice(0, 50) },
        };
        return { kind: "result", result: errorResult(error) };
      }
      const limit = (args["limit"] as number | undefined) ?? 10;
      const { hits, total } = searchIndex().search(query, { ...(category !== undefined && { category }), limit });
      const results = hits.map(({ tool, score }) => {
        const entry = summary(tool, true);
        if (tool.operation) {
          entry["method"] = tool.operation.method.toUpperCase();
          entry["path"] = tool.operation.path;
        }
        // The minimal valid arguments ride along (when short), so a found operation is one invoke away.
        const example = tool.guidance.examples?.minimal;
        if (example && JSON.stringify(example).length <= 300) entry["example"] = example;
        entry["score"] = score;
        return entry;
      });
      const top = hits[0]?.tool;
      const next: ToolCall[] = [];
      if (top) {
        next.push({ tool: DESCRIBE_TOOL, params: { name: top.name }, note: "Parameters and valid examples of the best match" });
        if (top.guidance.examples) next.push(express({ tool: top.name, params: top.guidance.examples.minimal, note: "Minimal valid call of the best match" }));
      } else {
        next.push({ tool: INFO_TOOL, params: {}, note: "Browse the categories instead" });
      }
      const structured: Record<string, unknown> = { query, total_matches: total, results, next_steps: next };
      if (category !== undefined) structured["category"] = category;
      const lines = results.map(
        (r) =>
          `- ${r["name"] as string}${r["method"] ? ` (${r["method"] as string} ${r["path"] as string})` : ""}${r["required"] ? ` required: ${(r["required"] as string[]).join(", ")}` : ""}${r["destructive"] ? " [destructive]" : ""}${r["description"] ? ` — ${r["description"] as string}` : ""}`,
      );
      const text = results.length
        ? `${total} match${total === 1 ? "" : "es"} for "${query}"${total > results.length ? ` (top ${results.length})` : ""}:\n${lines.join("\n")}\n\nNext: ${renderCall(next[0]!)}`
        : `No operation matches "${query}". Try other words (a resource or verb such as "issue", "create"), or browse with \`${INFO_TOOL}\`.`;
      return { kind: "result", result: textResult(text, structured) };
    }
    const name = args["name"] as string;
    const tool = toolsByName.get(name);
    if (front.name === DESCRIBE_TOOL) {
      if (!tool) return { kind: "result", result: errorResult(unknownOperationError("UNKNOWN_OPERATION", "name", name, undefined, DESCRIBE_TOOL, tools, searchStep(name))) };
      return { kind: "result", result: describeResult(tool, (args["level"] as HintLevel | undefined) ?? "typed", express) };
    }
    const params = isPlainObject(args["params"]) ? args["params"] : {};
    if (!tool) return { kind: "result", result: errorResult(unknownOperationError("UNKNOWN_OPERATION", "name", name, params, INVOKE_TOOL, tools, searchStep(name))) };
    const inner: Record<string, unknown> = { ...params };
    if (confirmed && inner[CONFIRM_ARG] === undefined) inner[CONFIRM_ARG] = true;
    const wait = args[WAIT_ARG] ?? args[WAIT_ALIAS];
    if (wait !== undefined && inner[WAIT_ALIAS] === undefined && inner[WAIT_ARG] === undefined) inner[WAIT_ALIAS] = wait;
    return { kind: "invoke", tool, args: inner };
  };

  return {
    mode: "discovery",
    tools: metaTools,
    listed,
    workflow: (confirmDestructive) =>
      [
        `Workflow (${tools.length} operations behind three tools): \`${SEARCH_TOOL}\` {"query": "<what you want to do>"} → \`${DESCRIBE_TOOL}\` {"name", "level": "typed"} (parameters and valid examples) → \`${INVOKE_TOOL}\` {"name", "params": {...}}.`,
        `Use "${WAIT_ARG}": true in \`${INVOKE_TOOL}\` for long operations; pass "${CONFIRM_ARG}": true to \`${INVOKE_TOOL}\` for destructive ones (confirm with the user first). \`${INFO_TOOL}\` lists the categories.`,
        `Every suggested call (available_actions, next_steps, corrective_params) is already an \`${INVOKE_TOOL}\` call.`,
        ...commonWorkflow(confirmDestructive, `the \`${INVOKE_TOOL}\` call`, `in \`${INVOKE_TOOL}\``),
      ].join(" "),
    route,
    express,
    present: (result) =>
      presentWith(result, express, (name) =>
        toolsByName.has(name) ? { tool: INVOKE_TOOL, wrap: (params) => ({ name, params }) } : undefined,
      ),
    warmUp: () => {
      searchIndex();
    },
  };
}
