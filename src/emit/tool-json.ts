/**
 * A tool's JSON in a large API's data/tools.json (see ./tools-file.ts), made
 * in two parts. Its head — every member up to its guidance's hints and links:
 * names, texts, schemas, the operation (≈ 90 % of Stripe's 3.4 MB) — needs no
 * example, so a run with the example worker serialises it while the worker
 * finishes the examples (src/guide-stage.ts), and emit then only adds the
 * examples and the guidance members after them (producers are completed with
 * other tools' examples, so they come last).
 */
import type { GuidedTool, SchemaHints, ToolData, ToolLink, ToolModel } from "../model/ir.js";
import { schemaText } from "../model/schema-text.js";
import { toToolData } from "./index.js";

/** A head and what it was made from, by the hints object the guided tool will carry. */
interface Head {
  tool: ToolModel;
  links: ToolLink[];
  /** The tool's JSON up to its guidance's members: `{…,"guidance":{`. */
  text: string;
  /** Its guidance's first members, `"hints":…,"links":[…]`: also the start of its guidance cache entry's. */
  hintsAndLinks: string;
}

const heads = new WeakMap<SchemaHints, Head>();

/**
 * Serialises the head of the tool whose guidance will hold these very `hints` and `links` (the guidance stage's
 * objects, which later stages do not change), for `toolJson` and `guidanceJson`.
 */
export function prepareToolJson(tool: ToolModel, hints: SchemaHints, links: ToolLink[]): void {
  const text = withSchemaText(toToolData({ ...tool, guidance: {} as GuidedTool["guidance"] }));
  // `{…,"guidance":{}}`: the guidance is the last member, so the head is all but its last two characters.
  const hintsAndLinks = `"hints":${JSON.stringify(hints)},"links":${JSON.stringify(links)}`;
  heads.set(hints, { tool, links, text: text.slice(0, -2), hintsAndLinks });
}

/** `JSON.stringify(toToolData(tool))`, from the head `prepareToolJson` made for it when there is one. */
export function toolJson(tool: GuidedTool): string {
  const head = headOf(tool.guidance);
  // Used once (emit), and no longer held once the file's text is made.
  heads.delete(tool.guidance.hints);
  if (!head || !sameMembers(head.tool, tool)) return JSON.stringify(toToolData(tool));
  return `${head.text}${head.hintsAndLinks}${membersAfterLinks(tool.guidance)}}}`;
}

/** `JSON.stringify(guidance)`, from the head made for a tool with these hints and links; undefined without one. */
export function guidanceJson(guidance: GuidedTool["guidance"]): string | undefined {
  const head = headOf(guidance);
  return head && `{${head.hintsAndLinks}${membersAfterLinks(guidance)}}`;
}

/** The head made for this guidance's hints, if its first members are still those hints and links. */
function headOf(guidance: GuidedTool["guidance"]): Head | undefined {
  const head = heads.get(guidance.hints);
  if (!head || guidance.links !== head.links) return undefined;
  const keys = Object.keys(guidance);
  return keys[0] === "hints" && keys[1] === "links" ? head : undefined;
}

/** The members after the links, as JSON.stringify writes them: in order, those whose value serialises. */
function membersAfterLinks(guidance: GuidedTool["guidance"]): string {
  let text = "";
  for (const key of Object.keys(guidance).slice(2)) {
    const value = JSON.stringify(guidance[key as keyof typeof guidance]);
    if (value !== undefined) text += `,${JSON.stringify(key)}:${value}`;
  }
  return text;
}

/**
 * `JSON.stringify(data)`, with the input schema's JSON as the example units already made it (src/parallel/units.ts:
 * ≈ 30 % of Stripe's tool JSON). JSON.stringify writes an object's members in order, each as it would alone.
 */
function withSchemaText(data: ToolData): string {
  if (typeof data.inputSchema !== "object" || data.inputSchema === null) return JSON.stringify(data);
  const before: Record<string, unknown> = {};
  const after: Record<string, unknown> = {};
  let members = before;
  for (const [key, value] of Object.entries(data)) {
    if (key === "inputSchema") members = after;
    else members[key] = value;
  }
  const head = JSON.stringify(before).slice(1, -1);
  const tail = JSON.stringify(after).slice(1, -1);
  return `{${head}${head ? "," : ""}"inputSchema":${schemaText(data.inputSchema)}${tail ? "," : ""}${tail}}`;
}

/** Whether the guided tool has the members the head was made from (it is the model's tool with its guidance). */
function sameMembers(model: ToolModel, guided: GuidedTool): boolean {
  return (
    model.name === guided.name &&
    model.title === guided.title &&
    model.description === guided.description &&
    model.category === guided.category &&
    model.tags === guided.tags &&
    model.operationId === guided.operationId &&
    model.pointer === guided.pointer &&
    model.annotations === guided.annotations &&
    model.inputSchema === guided.inputSchema &&
    model.responseSchema === guided.responseSchema &&
    model.operation === guided.operation &&
    model.handler === guided.handler
  );
}
