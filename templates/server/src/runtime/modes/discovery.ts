/**
 * Discovery mode: `search_operations` → `describe_operation` →
 * `invoke_operation`, over a token index built once (search-index.ts).
 */
import type { Tool } from "@modelcontextprotocol/server";
import {
  CONFIRM_ARG,
  INFO_TOOL,
  WAIT_ARG,
  type GuidedError,
  type HintLevel,
  type ToolCall,
  type ToolOutcome,
} from "../call/types.js";
import { categoryCounts, infoStep, shortDescription } from "../guidance/errors.js";
import { SUGGEST, rankMatches } from "../guidance/fuzzy.js";
import { renderCall } from "../guidance/text.js";
import { isPlainObject } from "../shared/json.js";
import type { ApiData, ToolData } from "../shared/tool-data.js";
import {
  commonWorkflow,
  describeResult,
  invokeOperation,
  metaTool,
  presentWith,
  routedCallSchema,
  stripReserved,
  summary,
  answer,
  unknownOperationError,
} from "./presentation.js";
import { SearchIndex } from "./search-index.js";
import {
  DESCRIBE_TOOL,
  INVOKE_TOOL,
  LEVELS,
  LOOSE_OUTPUT_SCHEMA,
  SEARCH_TOOL,
  type Routed,
  type Surface,
  type SurfaceOptions,
} from "./types.js";

export const SEARCH_INPUT_SCHEMA = {
  type: "object",
  properties: {
    query: {
      type: "string",
      minLength: 1,
      description:
        'What you want to do, in a few words (e.g. "create issue comment"), an operation name, or ' +
        "an API path (/repos/{owner}/{repo}/issues).",
    },
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
    level: {
      type: "string",
      enum: LEVELS,
      default: "typed",
      description: "minimal (parameter names), typed (types, defaults, enums) or full (complete schema).",
    },
  },
  required: ["name"],
  additionalProperties: false,
};

const INVOKE_VALIDATION_SCHEMA = routedCallSchema("name");

export function discoverySurface({ api, tools, toolsByName }: SurfaceOptions): Surface {
  let index: SearchIndex | undefined;
  const searchIndex = () => (index ??= new SearchIndex(tools));
  const categories = categoryCounts(tools);

  const express = (step: ToolCall): ToolCall => expressInDiscovery(toolsByName, step);

  const metaTools = discoveryTools(api, tools, categories.length);
  const listed = metaTools.map(listedMetaTool);
  const searchStep = (query: string): ToolCall => ({
    tool: SEARCH_TOOL,
    params: { query },
    note: "Search by what you want to do",
  });

  /** UNKNOWN_OPERATION for `front`; its valid example is `front`'s call of the closest operation. */
  const unknownName = (name: string, params: unknown, front: string) =>
    unknownOperationError(
      "UNKNOWN_OPERATION",
      "name",
      name,
      params,
      front,
      tools,
      searchStep(name),
      (operation, example) =>
        express(front === DESCRIBE_TOOL ? infoStep(operation) : { tool: operation, params: example }),
    );

  const search = (args: Record<string, unknown>): ToolOutcome => {
    const query = args["query"] as string;
    const category = args["category"] as string | undefined;
    if (
      category !== undefined &&
      !categories.some((c) => c.name.toLowerCase() === category.toLowerCase()) &&
      !tools.some((t) => (t.tags ?? []).some((tag) => tag.toLowerCase() === category.toLowerCase()))
    )
      return { kind: "error", error: unknownCategoryError(category, query, args, categories) };
    const limit = (args["limit"] as number | undefined) ?? 10;
    const { hits, total } = searchIndex().search(query, { ...(category !== undefined && { category }), limit });
    const results = hits.map(({ tool, score }) => searchEntry(tool, score));
    const next = searchNextSteps(hits[0]?.tool, express);
    const structured: Record<string, unknown> = { query, total_matches: total, results, next_steps: next };
    if (category !== undefined) structured["category"] = category;
    return answer(searchText(query, total, results, next), structured);
  };

  const route = (front: ToolData, args: Record<string, unknown>, confirmed: boolean): Routed => {
    if (front.name === SEARCH_TOOL) return { kind: "result", result: search(args) };
    const name = args["name"] as string;
    const tool = toolsByName.get(name);
    if (front.name === DESCRIBE_TOOL) {
      if (!tool)
        return {
          kind: "result",
          result: { kind: "error", error: unknownName(name, undefined, DESCRIBE_TOOL) },
        };
      return {
        kind: "result",
        result: describeResult(tool, (args["level"] as HintLevel | undefined) ?? "typed", express),
      };
    }
    const params = isPlainObject(args["params"]) ? args["params"] : {};
    if (!tool)
      return {
        kind: "result",
        result: { kind: "error", error: unknownName(name, params, INVOKE_TOOL) },
      };
    return invokeOperation(tool, params, args, confirmed);
  };

  return {
    mode: "discovery",
    tools: metaTools,
    listed,
    workflow: (confirmDestructive) =>
      [
        `Workflow (${tools.length} operations behind three tools): \`${SEARCH_TOOL}\` {"query": ` +
          `"<what you want to do>"} → \`${DESCRIBE_TOOL}\` {"name", "level": "typed"} (parameters and ` +
          `valid examples) → \`${INVOKE_TOOL}\` {"name", "params": {...}}.`,
        `Use "${WAIT_ARG}": true in \`${INVOKE_TOOL}\` for long operations; pass "${CONFIRM_ARG}": ` +
          `true to \`${INVOKE_TOOL}\` for destructive ones (confirm with the user first). ` +
          `\`${INFO_TOOL}\` lists the categories.`,
        `Every suggested call (available_actions, next_steps, corrective_params) is already an \`${INVOKE_TOOL}\` call.`,
        ...commonWorkflow(confirmDestructive, `the \`${INVOKE_TOOL}\` call`, `in \`${INVOKE_TOOL}\``),
      ].join(" "),
    route,
    express,
    present: (result) =>
      presentWith(result, express, (name) =>
        toolsByName.has(name)
          ? { tool: INVOKE_TOOL, wrap: (params) => express({ tool: name, params }).params }
          : undefined,
      ),
    warmUp: () => {
      searchIndex();
    },
  };
}

/** After a search: describe the best match and call it minimally, or browse the categories when nothing matched. */
function searchNextSteps(top: ToolData | undefined, express: (step: ToolCall) => ToolCall): ToolCall[] {
  if (!top) return [{ tool: INFO_TOOL, params: {}, note: "Browse the categories instead" }];
  const next: ToolCall[] = [
    { tool: DESCRIBE_TOOL, params: { name: top.name }, note: "Parameters and valid examples of the best match" },
  ];
  if (top.guidance.examples)
    next.push(
      express({ tool: top.name, params: top.guidance.examples.minimal, note: "Minimal valid call of the best match" }),
    );
  return next;
}

/** The text rendering of a search: one line per match, then the first next step. */
function searchText(query: string, total: number, results: Record<string, unknown>[], next: ToolCall[]): string {
  if (results.length === 0)
    return (
      `No operation matches "${query}". Try other words (a resource or verb such as "issue", "create"), ` +
      `or browse with \`${INFO_TOOL}\`.`
    );
  const lines = results.map(
    (r) =>
      `- ${r["name"] as string}` +
      (r["method"] ? ` (${r["method"] as string} ${r["path"] as string})` : "") +
      (r["required"] ? ` required: ${(r["required"] as string[]).join(", ")}` : "") +
      (r["destructive"] ? " [destructive]" : "") +
      (r["description"] ? ` — ${r["description"] as string}` : ""),
  );
  return (
    `${total} match${total === 1 ? "" : "es"} for ` +
    `"${query}"${total > results.length ? ` (top ${results.length})` : ""}:\n${lines.join("\n")}\n\nNext: ` +
    `${renderCall(next[0]!)}`
  );
}

/** The three meta-tools as validation data, with examples built from the API's first operation. */
function discoveryTools(api: ApiData, tools: readonly ToolData[], categoryCount: number): ToolData[] {
  const first = tools[0];
  const searchTool = metaTool(
    SEARCH_TOOL,
    `Step 1 of 3. Finds operations of ${api.title} (${tools.length} in ${categoryCount} ` +
      `categories) by keywords over names, descriptions, tags and paths; returns the best matches ` +
      `with their required parameters.`,
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
  return [searchTool, describeToolData, invokeTool];
}

/** A meta-tool as listed; `invoke_operation` shows `_confirm` and `wait`, which validation takes out before routing. */
function listedMetaTool(tool: ToolData): Tool {
  const invokeListed = {
    type: "object" as const,
    properties: {
      name: { type: "string", description: "The operation name (from search_operations)." },
      params: { type: "object", description: "The operation's arguments (describe_operation shows them)." },
      [CONFIRM_ARG]: {
        type: "boolean",
        description: "Set to true to confirm a destructive operation (ask the user first).",
      },
      [WAIT_ARG]: {
        type: "boolean",
        description: "Wait for a long-running operation (HTTP 202) to finish and return its result.",
      },
    },
    required: ["name"],
  };
  return {
    name: tool.name,
    title:
      tool.name === SEARCH_TOOL
        ? "Search operations"
        : tool.name === DESCRIBE_TOOL
          ? "Describe an operation"
          : "Invoke an operation",
    description: tool.description,
    inputSchema: tool.name === INVOKE_TOOL ? invokeListed : (tool.inputSchema as Tool["inputSchema"]),
    outputSchema: LOOSE_OUTPUT_SCHEMA,
    annotations: tool.annotations,
  };
}

/** `category` names no category or tag: did-you-mean, and the search again without it (or with the closest one). */
function unknownCategoryError(
  category: string,
  query: string,
  args: Record<string, unknown>,
  categories: Array<{ name: string; count: number }>,
): GuidedError {
  const ranked = rankMatches(
    category,
    categories.map((c) => c.name),
    { limit: 3 },
  );
  const best = ranked[0] && ranked[0].score >= SUGGEST ? ranked[0].name : undefined;
  const error: GuidedError = {
    code: "INVALID_ARGUMENTS",
    message: `No category '${category}'.${best ? ` Did you mean '${best}'?` : ""} Search without a category, or use one of: ${categories
      .slice(0, 20)
      .map((c) => c.name)
      .join(", ")}${categories.length > 20 ? ", …" : ""}.`,
    severity: "medium",
    tool: SEARCH_TOOL,
    issues: [
      {
        field: "category",
        code: "INVALID_ENUM",
        problem: `'${category}' is not a category`,
        received: category,
        expected: "a category name",
        fix: best ? `Use "${best}"` : "Drop the category",
        ...(best && { did_you_mean: best }),
      },
    ],
    suggestions: { ...(best && { did_you_mean: best }), auto_correctable: true },
    corrective_params: best
      ? { ...args, category: best }
      : Object.fromEntries(Object.entries(args).filter(([key]) => key !== "category")),
    next_steps: [
      {
        tool: SEARCH_TOOL,
        params: best ? { ...args, category: best } : { query },
        note: best ? "Closest category" : "Without the category",
      },
    ],
    details: { categories: categories.slice(0, 50) },
  };
  return error;
}

/**
 * One call in discovery form: `describe_operation` for info, `invoke_operation` (with `_confirm`/`wait`
 * outside `params`) for operations.
 */
function expressInDiscovery(toolsByName: ReadonlyMap<string, ToolData>, step: ToolCall): ToolCall {
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
}

/** One search result: the operation's summary, method and path, and its minimal arguments when short. */
function searchEntry(tool: ToolData, score: number): Record<string, unknown> {
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
}
