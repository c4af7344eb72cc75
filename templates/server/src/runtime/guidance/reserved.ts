/**
 * The two tools every generated server adds to the API's own:
 *
 *   info           categories with tool counts; one category's tools; or one
 *                  tool's schema at `level` minimal | typed | full, with its
 *                  guaranteed-valid examples.
 *   read_response  pages through an oversized response that progressive
 *                  disclosure summarised (see envelope.ts / cache.ts).
 *
 * They are described as `ToolData` so their arguments go through the same
 * preparation (fuzzy key correction, validation, corrective_params) as any
 * API tool.
 */
import type { ToolData } from "../shared/tool-data.js";
import { READ_RESPONSE_INPUT_SCHEMA, type ResponseCache } from "../call/response-cache.js";
import { describeTool, listCategories, type CategoryListing, type ToolDescription } from "./describe.js";
import { categoryCounts, unknownToolError } from "./errors.js";
import { renderSchemaHint } from "./render.js";
import { SUGGEST, rankMatches } from "./fuzzy.js";
import { OPERATION_STATUS_INPUT_SCHEMA } from "../call/long-running.js";
import {
  CONFIRM_ARG,
  INFO_TOOL,
  OPERATION_STATUS_TOOL,
  READ_RESPONSE_TOOL,
  type GuidedError,
  type HintLevel,
  type ToolCall,
  type ToolOutcome,
} from "../call/types.js";

const LEVELS: HintLevel[] = ["minimal", "typed", "full"];
/** Above this many tools, `info()` lists categories only (each category is one `info` call away). */
const LIST_ALL_TOOLS_UP_TO = 60;

const META_ANNOTATIONS = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

export const INFO_INPUT_SCHEMA = {
  type: "object",
  properties: {
    tool: { type: "string", description: "A tool name: describe that tool (parameters, constraints, valid examples)." },
    level: {
      type: "string",
      enum: LEVELS,
      default: "typed",
      description:
        "Detail for `tool`: minimal (parameter names), typed (types, defaults, enums) or full (complete schema).",
    },
    category: { type: "string", description: "A category name: list its tools." },
  },
  additionalProperties: false,
};

function infoTool(tools: readonly ToolData[]): ToolData {
  const first = tools[0]?.name;
  return {
    name: INFO_TOOL,
    title: "Describe tools",
    description:
      `Start here. Without arguments: the tool categories with counts${tools.length <= LIST_ALL_TOOLS_UP_TO ? " and every tool" : ""}. ` +
      'With {"category"}: that category\'s tools. With {"tool", "level"}: the tool\'s parameters ' +
      "at level minimal | typed | full, with valid examples.",
    category: "meta",
    pointer: "",
    annotations: META_ANNOTATIONS,
    inputSchema: INFO_INPUT_SCHEMA,
    guidance: {
      hints: {
        minimal: { required: [], optional: ["tool", "level", "category"] },
        typed: {
          tool: { type: "string", required: false },
          level: { type: "string", required: false, default: "typed", enum: LEVELS },
          category: { type: "string", required: false },
        },
        full: { required: [], properties: INFO_INPUT_SCHEMA.properties },
      },
      examples: { minimal: {}, full: first ? { tool: first, level: "full" } : {} },
      links: [],
    },
  };
}

function readResponseTool(): ToolData {
  return {
    name: READ_RESPONSE_TOOL,
    title: "Read a large response",
    description:
      "Pages through a response that was too large to return whole (its result had `detail_available: true`). " +
      "Make the exact call given in that result's `next_steps`/`detail`, then follow each page's `next`.",
    category: "meta",
    pointer: "",
    annotations: META_ANNOTATIONS,
    inputSchema: READ_RESPONSE_INPUT_SCHEMA as unknown as ToolData["inputSchema"],
    guidance: {
      hints: {
        minimal: { required: ["handle"], optional: ["offset", "limit"] },
        typed: {
          handle: { type: "string", required: true },
          offset: { type: "integer", required: false, default: 0 },
          limit: { type: "integer", required: false },
        },
        full: {
          required: ["handle"],
          properties: READ_RESPONSE_INPUT_SCHEMA.properties as unknown as Record<string, Record<string, unknown>>,
        },
      },
      // No examples: a made-up handle would only ever produce RESPONSE_EXPIRED.
      links: [],
    },
  };
}

function operationStatusTool(): ToolData {
  return {
    name: OPERATION_STATUS_TOOL,
    title: "Long-running operation status",
    description:
      "Status of a long-running operation (an API call answered with 202 Accepted): pass the `handle` from that result's `operation`. " +
      'With "wait": true, waits until it finishes (bounded by the server\'s wait timeout) and returns the final result.',
    category: "meta",
    pointer: "",
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    inputSchema: OPERATION_STATUS_INPUT_SCHEMA as unknown as ToolData["inputSchema"],
    guidance: {
      hints: {
        minimal: { required: ["handle"], optional: ["wait"] },
        typed: {
          handle: { type: "string", required: true },
          wait: { type: "boolean", required: false, default: false },
        },
        full: {
          required: ["handle"],
          properties: OPERATION_STATUS_INPUT_SCHEMA.properties as unknown as Record<string, Record<string, unknown>>,
        },
      },
      // No examples: a made-up handle would only ever produce UNKNOWN_HANDLE.
      links: [],
    },
  };
}

/**
 * The built-in tools, for listing and argument preparation: `info`,
 * `read_response`, and `operation_status` whenever the API has HTTP
 * operations (any of them may answer 202 Accepted; the data file does not
 * say which, and a handle must always have a listed tool to follow it).
 */
export function reservedTools(tools: readonly ToolData[]): ToolData[] {
  const out = [infoTool(tools), readResponseTool()];
  if (tools.some((tool) => tool.operation !== undefined)) out.push(operationStatusTool());
  return out;
}

function answer(text: string, structured: Record<string, unknown>): ToolOutcome {
  return { kind: "answer", text, structured };
}

function renderListing(listing: CategoryListing, withTools: boolean): string {
  const lines = [
    `${listing.tool_count} tools in ${listing.categories.length} categor${listing.categories.length === 1 ? "y" : "ies"}:`,
  ];
  for (const c of listing.categories) {
    lines.push(`- ${c.name} (${c.count})`);
    if (withTools) for (const t of c.tools) lines.push(`  - ${t.name}${t.description ? `: ${t.description}` : ""}`);
  }
  return lines.join("\n");
}

export function renderDescription(d: ToolDescription): string {
  const out = [`# ${d.name}${d.title ? ` — ${d.title}` : ""}`, d.description];
  if (d.http) out.push(`HTTP: ${d.http.method} ${d.http.path}`);
  const schema = renderSchemaHint(d.schema, d.level);
  if (schema) out.push(`## Parameters (${d.level})\n\n${schema}`);
  if (d.examples) {
    out.push(`## Minimal valid example\n\n\`\`\`json\n${JSON.stringify(d.examples.minimal, null, 2)}\n\`\`\``);
    out.push(`## Full valid example\n\n\`\`\`json\n${JSON.stringify(d.examples.full, null, 2)}\n\`\`\``);
  }
  if (d.requires_confirmation)
    out.push(`Destructive: the call runs only with "${CONFIRM_ARG}": true (confirm with the user first).`);
  if (d.pagination) out.push(`Paginated (${d.pagination.kind}); results give the exact next-page call in next_steps.`);
  if (d.follow_ups.length) out.push(`Follow-ups: ${d.follow_ups.map((f) => `${f.tool} (${f.name})`).join(", ")}`);
  if (d.list_tool) out.push(`List/search tool for this resource: ${d.list_tool}`);
  for (const [field, sources] of Object.entries(d.identifier_sources ?? {}))
    out.push(`Real values of ${field} come from: ${sources.join("; ")}`);
  return out.join("\n\n");
}

function unknownCategoryError(category: string, tools: readonly ToolData[]): GuidedError {
  const categories = categoryCounts(tools);
  const ranked = rankMatches(
    category,
    categories.map((c) => c.name),
    { limit: 3 },
  );
  const best = ranked[0] && ranked[0].score >= SUGGEST ? ranked[0].name : undefined;
  const nextSteps: ToolCall[] = [
    { tool: INFO_TOOL, params: best ? { category: best } : {}, note: best ? "Closest category" : "All categories" },
  ];
  return {
    code: "INVALID_ARGUMENTS",
    message: `No category '${category}'.${best ? ` Did you mean '${best}'?` : ""} Categories: ${categories.map((c) => c.name).join(", ")}.`,
    severity: "medium",
    tool: INFO_TOOL,
    issues: [
      {
        field: "category",
        code: "INVALID_ENUM",
        problem: `'${category}' is not a category`,
        received: category,
        expected: `one of: ${categories.map((c) => c.name).join(", ")}`,
        fix: best ? `Use "${best}"` : "Use one of the listed categories",
        ...(best && { did_you_mean: best }),
      },
    ],
    suggestions: { ...(best && { did_you_mean: best }), auto_correctable: best !== undefined },
    ...(best && { corrective_params: { category: best } }),
    next_steps: nextSteps,
    details: { categories },
  };
}

/** The `info` tool, on prepared (validated) arguments. */
export function callInfo(
  args: Record<string, unknown>,
  tools: readonly ToolData[],
  toolsByName: ReadonlyMap<string, ToolData>,
): ToolOutcome {
  const level = (args["level"] as HintLevel | undefined) ?? "typed";
  const toolName = args["tool"] as string | undefined;
  if (toolName !== undefined) {
    const tool = toolsByName.get(toolName);
    if (!tool) return { kind: "error", error: unknownToolError(toolName, tools) };
    const description = describeTool(tool, level);
    const next: ToolCall[] = [];
    if (tool.guidance.examples)
      next.push({ tool: tool.name, params: tool.guidance.examples.minimal, note: "Minimal valid call" });
    if (level !== "full")
      next.push({
        tool: INFO_TOOL,
        params: { tool: tool.name, level: "full" },
        note: "Complete schema and constraints",
      });
    return answer(renderDescription(description), { ...description, next_steps: next });
  }
  const category = args["category"] as string | undefined;
  const listing = listCategories(tools, category);
  if (category !== undefined && listing.categories.length === 0)
    return { kind: "error", error: unknownCategoryError(category, tools) };
  const withTools = category !== undefined || tools.length <= LIST_ALL_TOOLS_UP_TO;
  const structured: Record<string, unknown> = withTools
    ? { ...listing }
    : { tool_count: listing.tool_count, categories: listing.categories.map(({ name, count }) => ({ name, count })) };
  const next: ToolCall[] = withTools
    ? [{ tool: INFO_TOOL, params: { tool: "<tool name>", level: "typed" }, note: "Parameters of one tool" }]
    : listing.categories
        .slice(0, 5)
        .map((c) => ({ tool: INFO_TOOL, params: { category: c.name }, note: `The ${c.count} tools of ${c.name}` }));
  structured["next_steps"] = next;
  const hint = withTools
    ? `Next: ${INFO_TOOL} {"tool": "<name>", "level": "typed"} for a tool's parameters and valid examples.`
    : `Next: ${INFO_TOOL} {"category": "<name>"} to list a category's tools.`;
  return answer(`${renderListing(listing, withTools)}\n\n${hint}`, structured);
}

/** The `read_response` tool, on prepared (validated) arguments. */
export function callReadResponse(args: Record<string, unknown>, cache: ResponseCache): ToolOutcome {
  const read = cache.read(
    args["handle"] as string,
    (args["offset"] as number | undefined) ?? 0,
    args["limit"] as number | undefined,
  );
  if (!read.ok) {
    const call = cache.callFor(args["handle"] as string);
    if (call) read.error.next_steps.unshift({ ...call, note: "Re-run to get a fresh handle" });
    return { kind: "error", error: read.error };
  }
  const page = read.page;
  const structured: Record<string, unknown> = { ...page };
  if (page.next) structured["next_steps"] = [page.next];
  const range = page.items
    ? `items ${page.offset}–${page.offset + page.returned - 1} of ${page.total_items}`
    : `characters ${page.offset}–${page.offset + page.returned} of ${page.total_chars}`;
  const body = page.items ? JSON.stringify(page.items) : (page.text ?? "");
  const tail = page.next
    ? `More: \`${READ_RESPONSE_TOOL}\` ${JSON.stringify(page.next.params)}`
    : "This is the last page.";
  return answer(`${range}:\n${body}\n\n${tail}`, structured);
}

/** Output schema for the reserved tools (loose: their structured content is informational). */
export const RESERVED_OUTPUT_SCHEMA = { type: "object", additionalProperties: true } as const;
