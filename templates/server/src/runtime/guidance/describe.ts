/**
 * The `info` capability: categories with tool counts, and any tool's schema
 * hints at the level asked for, with its guaranteed-valid examples.
 */
import type { ToolData } from "../shared/tool-data.js";
import { categoryCounts, shortDescription } from "./errors.js";
import { identifierSources } from "./producers.js";
import { CONFIRM_ARG, type HintLevel } from "../call/types.js";

export interface ToolDescription {
  name: string;
  title?: string;
  description: string;
  category: string;
  level: HintLevel;
  schema: unknown;
  examples?: { minimal: Record<string, unknown>; full: Record<string, unknown> };
  annotations: ToolData["annotations"];
  http?: { method: string; path: string };
  /** Destructive tools run only with `"_confirm": true`. */
  requires_confirmation: boolean;
  follow_ups: Array<{ name: string; tool: string }>;
  pagination?: ToolData["guidance"]["pagination"];
  list_tool?: string;
  /** Identifier argument → the calls whose answers hold real values for it (best first, `take` = where). */
  identifier_sources?: Record<string, string[]>;
}

export function describeTool(tool: ToolData, level: HintLevel = "typed"): ToolDescription {
  const out: ToolDescription = {
    name: tool.name,
    description: tool.description,
    category: tool.category,
    level,
    schema: tool.guidance.hints[level],
    annotations: tool.annotations,
    requires_confirmation: tool.annotations.destructiveHint,
    follow_ups: tool.guidance.links.map((l) => ({ name: l.name, tool: l.tool })),
  };
  if (tool.title) out.title = tool.title;
  if (tool.guidance.examples) out.examples = tool.guidance.examples;
  if (tool.operation) out.http = { method: tool.operation.method.toUpperCase(), path: tool.operation.path };
  if (tool.guidance.pagination) out.pagination = tool.guidance.pagination;
  if (tool.guidance.listTool) out.list_tool = tool.guidance.listTool;
  const sources = identifierSources(tool);
  if (sources) out.identifier_sources = sources;
  if (out.requires_confirmation) out.description += ` (Destructive: add "${CONFIRM_ARG}": true to run it.)`;
  return out;
}

export interface CategoryListing {
  tool_count: number;
  categories: Array<{ name: string; count: number; tools: Array<{ name: string; description?: string }> }>;
}

/** Categories (largest first) with their tools and one-line descriptions; optionally one category only. */
export function listCategories(tools: readonly ToolData[], category?: string): CategoryListing {
  const categories = categoryCounts(tools)
    .filter((c) => category === undefined || c.name === category)
    .map((c) => ({
      ...c,
      tools: tools
        .filter((t) => t.category === c.name)
        .map((t) => {
          const description = shortDescription(t.description, 100);
          return description ? { name: t.name, description } : { name: t.name };
        }),
    }));
  return { tool_count: tools.length, categories };
}
