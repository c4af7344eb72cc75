/**
 * Which arguments are identifiers: values an agent cannot make up and must
 * take from an earlier answer of the API. Examples for them are labelled
 * placeholders, and the guidance stage looks for the operations producing them.
 */
import type { JsonSchema, ToolModel } from "../model/ir.js";
import { words } from "./schema-util.js";

const ID_WORDS = new Set(["id", "ids", "uuid", "guid"]);

/** `id`, `authorId`, `author_id`, `AUTHOR-ID`, `user_uuid`. */
export function isIdentifierName(name: string): boolean {
  const ws = words(name);
  return ws.length > 0 && ID_WORDS.has(ws[ws.length - 1]!);
}

/** What the identifier identifies: `author_id` → `author`; `id` → undefined. */
export function identifierStem(name: string): string | undefined {
  const ws = words(name);
  if (ws.length < 2 || !ID_WORDS.has(ws[ws.length - 1]!)) return undefined;
  return ws.slice(0, -1).join("_");
}

/** A description that calls the value an ID ("The ID of the customer", "an object ID"). */
export function describedAsIdentifier(schema: JsonSchema | undefined): boolean {
  const description = schema?.["description"];
  if (typeof description !== "string") return false;
  // Large APIs repeat the same descriptions across operations: each is read once.
  let known = describedIds.get(description);
  if (known === undefined) {
    if (describedIds.size >= MAX_DESCRIPTIONS) describedIds.clear();
    const text = description.slice(0, 200);
    known =
      /^(the |a |an )?(unique )?(ID|identifier)\b/i.test(text) ||
      /\b(object|resource) ID\b|\b(ID|identifier) of (the|an?|this)\b/i.test(text);
    describedIds.set(description, known);
  }
  return known;
}
const describedIds = new Map<string, boolean>();
/** Cleared when full, so a long-lived process does not grow without bound. */
const MAX_DESCRIPTIONS = 20_000;

function hasFixedValues(schema: JsonSchema | undefined): boolean {
  return schema !== undefined && ("enum" in schema || "const" in schema);
}

/** Asked for every tool, and again for every candidate producer of every identifier: computed once per tool. */
const identifierArgsOf = new WeakMap<ToolModel, ReadonlySet<string>>();

/**
 * Top-level arguments of a tool that are identifiers: path parameters, and
 * arguments named or described as ids; never arguments with fixed values.
 */
export function identifierArgs(tool: ToolModel): ReadonlySet<string> {
  let known = identifierArgsOf.get(tool);
  if (!known) identifierArgsOf.set(tool, (known = findIdentifierArgs(tool)));
  return known;
}

function findIdentifierArgs(tool: ToolModel): Set<string> {
  const out = new Set<string>();
  const props = (tool.inputSchema["properties"] ?? {}) as Record<string, JsonSchema>;
  for (const binding of tool.operation?.parameters ?? []) {
    if (binding.in === "path" && !hasFixedValues(props[binding.arg])) out.add(binding.arg);
  }
  for (const name of Object.keys(props)) {
    const schema = props[name];
    if (hasFixedValues(schema)) continue;
    if (isIdentifierName(name) || describedAsIdentifier(schema)) out.add(name);
  }
  return out;
}
