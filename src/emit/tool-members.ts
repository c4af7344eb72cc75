/**
 * Each tool's JSON in a large API's data/tools.json, up to its guidance, made
 * before the example worker joins (src/generate.ts, two threads only).
 *
 * Everything in a tool's entry but its guidance is the model's (name, texts,
 * schemas, operation), known once the model is built; only the guidance waits
 * for the examples. Serialised after the join, those members were ≈ 12 ms of
 * the run's serial tail on Stripe, where this thread runs alone while the
 * worker is idle. Made while the worker still searches for examples, they take
 * the place of example units this thread would have computed, and the two
 * threads share that time instead.
 *
 * The text is used only for a guided tool whose members are the very values
 * it was made from (a guided tool is its model tool and its guidance), so it
 * is `JSON.stringify` of what emit would serialise (see tools-file.ts `toolJson`).
 */
import type { GuidedTool, ToolModel } from "../model/ir.js";
import { hasLazySchema, schemaRef } from "../model/lazy-schema.js";
import { serialiseHead, type GuidanceWithoutExamples } from "./guidance-head.js";
import { toToolData } from "./index.js";
import { isCompactToolsFile, toolDataJson } from "./tools-file.js";

/** Above this many tools nothing is made ahead: Microsoft Graph's members would hold ≈ 50 MB until emit. */
const MAX_TOOLS_AHEAD = 5_000;

/** Tools serialised between two asks of `more` (Stripe: ≈ 1 ms). */
const BATCH = 32;

/** By the tool's input schema (a tool's own object; a lazy one's cell is never a key): what was made and from what. */
const made = new WeakMap<object, { source: ToolModel; members: string }>();

/**
 * Serialises the members of `tools` (a large API's, whose data/tools.json is compact) for `membersAhead`, in
 * batches while `more()` says so: the rest are serialised by emit, as before.
 */
export function serialiseMembersAhead(tools: readonly ToolModel[], total: number, more = () => true): void {
  inBatchesWhile(tools, total, more, (tool) => {
    // A tool read from the cache holds its schemas as text: serialising it would parse them.
    if (hasLazySchema(tool)) return;
    // A model tool has no guidance, so its entry's JSON is exactly the members'.
    made.set(tool.inputSchema, { source: tool, members: toolDataJson(toToolData(tool as GuidedTool)) });
  });
}

/**
 * Serialises the hints and links of `guidances` (the tools' guidance prepared before their examples) for
 * guidance-head.ts, in batches while `more()` says so: the rest are serialised by emit, as before.
 */
export function serialiseGuidanceAhead(
  guidances: readonly GuidanceWithoutExamples[],
  total: number,
  more = () => true,
): void {
  inBatchesWhile(guidances, total, more, serialiseHead);
}

/** `each` item of a large API's (`total` tools, a compact data/tools.json), asking `more` before every batch. */
function inBatchesWhile<T>(items: readonly T[], total: number, more: () => boolean, each: (item: T) => void): void {
  if (!isCompactToolsFile(total) || total > MAX_TOOLS_AHEAD) return;
  for (const [index, item] of items.entries()) {
    if (index % BATCH === 0 && !more()) return;
    each(item);
  }
}

/**
 * The JSON of `tool`'s members as data/tools.json holds them (an object, without the guidance), if it was made
 * ahead from a tool whose members are `tool`'s own (same keys and values, besides the guidance).
 */
export function membersAhead(tool: GuidedTool): string | undefined {
  const entry = made.get(schemaRef(tool, "inputSchema"));
  if (!entry || !sameMembers(entry.source, tool)) return undefined;
  return entry.members;
}

/** Whether `tool` is `source` with guidance: the same keys and values, besides its guidance. */
export function sameMembers(source: ToolModel, tool: GuidedTool): boolean {
  const keys = Object.keys(source);
  if (Object.hasOwn(source, "guidance") || Object.keys(tool).length !== keys.length + 1) return false;
  const from = source as unknown as Record<string, unknown>;
  const to = tool as unknown as Record<string, unknown>;
  for (const key of keys) if (to[key] !== from[key]) return false;
  return Object.hasOwn(tool, "guidance");
}
