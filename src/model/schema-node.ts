/**
 * One schema node's conversion (see schema.ts), its sub-schemas converted by
 * the caller's `sub`: the node's own keywords are the same at every depth, so
 * the conversion proper (schema.ts) and the length-only walk that picks a
 * bounded schema's depth (schema-fit.ts) share this.
 */
import type { Diagnostic, JsonSchema } from "./ir.js";
import { isObject } from "../normalise/index.js";
import {
  MAP_KEYWORD_COUNT,
  MAP_OR_LIST_KEYWORD_COUNT,
  SUB_SCHEMA_KEYWORDS,
  type SchemaDirection,
  type Where,
} from "./schema-keywords.js";
import { checkPattern } from "./schema-patterns.js";

/** Converts one sub-schema of the node: its keyword, and its name or index under a map or list keyword. */
export type ConvertSub = (value: unknown, keyword: string, name?: string | number) => JsonSchema;

/** Keywords that describe documents, not values: dropped to keep schemas small and Ajv-clean. */
const DROPPED_KEYWORDS = new Set([
  "xml",
  "externalDocs",
  "discriminator",
  "example",
  "nullable",
  "$schema",
  "$id",
  "$anchor",
  "$comment",
  "$dynamicAnchor",
  "id",
]);

/** The node `schema` converted, each sub-schema replaced by `sub`'s answer, in the fixed keyword order (diagnostics come in that order). */
export function convertNode(
  schema: Record<string, unknown>,
  pointer: Where,
  direction: SchemaDirection,
  diagnostics: Diagnostic[],
  sub: ConvertSub,
): JsonSchema {
  const keys = Object.keys(schema);
  const out = keptKeywords(schema, keys);
  const present = keywordBits(keys);
  // Only the keywords present, in the fixed order (diagnostics come in that order).
  const bits = present & SUB_SCHEMA_MASK;
  for (let index = 0; bits >>> index !== 0; index++) {
    if ((bits & (1 << index)) === 0) continue;
    const keyword = SUB_SCHEMA_KEYWORDS[index]!;
    const value = schema[keyword];
    if (index < MAP_KEYWORD_COUNT) {
      if (isObject(value)) out[keyword] = convertMap(value, keyword, direction, sub);
    } else if (index < MAP_OR_LIST_KEYWORD_COUNT) {
      if (Array.isArray(value)) out[keyword] = value.map((item, at) => sub(item, keyword, at));
    } else if (value !== undefined) {
      if (keyword === "items" && Array.isArray(value)) {
        // Draft-04..07 tuple form; 2020-12 spells it prefixItems.
        out.prefixItems = value.map((item, at) => sub(item, "items", at));
        delete out.items;
      } else out[keyword] = typeof value === "boolean" ? value : sub(value, keyword);
    }
  }

  // Each rewrite only where its keywords are present: asking objects of thousands of shapes for absent keys costs.
  if (present & NULLABLE) applyNullable(schema, out);
  if (present & LEGACY) applyLegacyKeywords(schema, out, present);
  if (present & REQUIRED) dropHiddenRequired(schema, out, direction);
  if (present & PATTERNS) checkPattern(out, pointer, diagnostics);
  if (present & EXAMPLE && schema.example !== undefined && out.examples === undefined) out.examples = [schema.example];
  return out;
}

/** Keywords a node's conversion may rewrite, as bits above the sub-schema keywords' (see `subSchemaKeywordBits`). */
export const NULLABLE = 1 << 20;
export const EXCLUSIVE = 1 << 21;
export const TYPE = 1 << 22;
export const REQUIRED = 1 << 23;
export const ENUM = 1 << 24;
export const PATTERNS = 1 << 25;
const EXAMPLE = 1 << 26;
const LEGACY = EXCLUSIVE | TYPE | REQUIRED | ENUM;
const SUB_SCHEMA_MASK = (1 << SUB_SCHEMA_KEYWORDS.length) - 1;
const KEYWORD_BITS = new Map<string, number>([
  ...SUB_SCHEMA_KEYWORDS.map((keyword, index) => [keyword, 1 << index] as const),
  ["nullable", NULLABLE],
  ["x-nullable", NULLABLE],
  ["exclusiveMinimum", EXCLUSIVE],
  ["exclusiveMaximum", EXCLUSIVE],
  ["type", TYPE],
  ["required", REQUIRED],
  ["enum", ENUM],
  ["pattern", PATTERNS],
  ["patternProperties", PATTERNS | (1 << SUB_SCHEMA_KEYWORDS.indexOf("patternProperties"))],
  ["example", EXAMPLE],
]);

/** Which sub-schema and rewritten keywords are among `keys` (a node's own keys): one lookup per key. */
export function keywordBits(keys: string[]): number {
  let bits = 0;
  for (const key of keys) bits |= KEYWORD_BITS.get(key) ?? 0;
  return bits;
}

/** A map of sub-schemas (`properties`…) converted; properties hidden in this direction left out. */
function convertMap(
  map: Record<string, unknown>,
  keyword: string,
  direction: SchemaDirection,
  sub: ConvertSub,
): Record<string, unknown> {
  const names = Object.keys(map);
  const hides = keyword === "properties" && hidesAny(map, names, direction);
  // A copy with the map's shape, its values then replaced in place (see keptKeywords).
  const converted: Record<string, unknown> = hides ? {} : { ...map };
  for (const name of names) {
    const value = map[name];
    if (hides && isHiddenInDirection(value, direction)) continue;
    setOwn(converted, name, sub(value, keyword, name));
  }
  return converted;
}

/**
 * The schema's own keywords, in order, without those that describe documents
 * (sub-schemas are replaced after). Most nodes have none to drop: a spread
 * copies the object with its shape in one step, where adding the keys one by
 * one built each node's shape anew (a quarter of the conversion's time).
 * Like `setOwn`, a spread keeps a `__proto__` key an own property.
 */
function keptKeywords(schema: Record<string, unknown>, keys: string[]): JsonSchema {
  let drops = false;
  for (const key of keys) {
    if (isDropped(key)) {
      drops = true;
      break;
    }
  }
  if (!drops) return { ...schema };
  const out: JsonSchema = {};
  for (const key of keys) if (!isDropped(key)) setOwn(out, key, schema[key]);
  return out;
}

export function isDropped(key: string): boolean {
  return DROPPED_KEYWORDS.has(key) || key.startsWith("x-") || key === "$ref";
}

/** `target[key] = value`, except that a key named `__proto__` (a legal property name) stays an own property instead of replacing the prototype. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__")
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** A property that the spec says is never sent in this direction (readOnly for requests, writeOnly for responses). */
export function isHiddenInDirection(schema: unknown, direction: SchemaDirection): boolean {
  if (!isObject(schema)) return false;
  return direction === "input" ? schema.readOnly === true : schema.writeOnly === true;
}

function hidesAny(properties: Record<string, unknown>, names: string[], direction: SchemaDirection): boolean {
  for (const name of names) if (isHiddenInDirection(properties[name], direction)) return true;
  return false;
}

function dropHiddenRequired(source: Record<string, unknown>, out: JsonSchema, direction: SchemaDirection): void {
  const properties = source.properties;
  if (!Array.isArray(out.required) || !isObject(properties)) return;
  const kept = (out.required as unknown[]).filter(
    (name) => typeof name === "string" && !isHiddenInDirection(properties[name], direction),
  );
  if (kept.length === 0) delete out.required;
  // `kept` is already a fresh array: a Set and a second copy only when a name repeats (rare).
  else out.required = hasRepeats(kept) ? [...new Set(kept)] : kept;
}

export function hasRepeats(names: unknown[]): boolean {
  if (names.length > 32) return new Set(names).size !== names.length;
  for (let index = 1; index < names.length; index++) if (names.lastIndexOf(names[index], index - 1) >= 0) return true;
  return false;
}

function applyNullable(source: Record<string, unknown>, out: JsonSchema): void {
  const nullable = source.nullable === true || source["x-nullable"] === true;
  if (!nullable) return;
  // `nullable` without `type` constrains nothing (OpenAPI 3.0.3 clarification); only widen an explicit type.
  if (typeof out.type === "string") out.type = out.type === "null" ? "null" : [out.type, "null"];
  else if (Array.isArray(out.type) && !out.type.includes("null")) out.type = [...out.type, "null"];
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
}

/** `present`: the node's keyword bits (see `keywordBits`); each part runs only where its keyword is. */
function applyLegacyKeywords(source: Record<string, unknown>, out: JsonSchema, present: number): void {
  if (present & EXCLUSIVE) applyLegacyBounds(source, out);
  if (present & TYPE) applyLegacyType(out);
  if (present & REQUIRED && out.required !== undefined && !Array.isArray(out.required)) delete out.required;
  if (present & ENUM && Array.isArray(out.enum) && out.enum.length === 0) delete out.enum;
}

/** Draft-04 boolean exclusive bounds, which 3.0 documents still carry when not upgraded. */
function applyLegacyBounds(source: Record<string, unknown>, out: JsonSchema): void {
  if (source.exclusiveMinimum === true && typeof source.minimum === "number") {
    out.exclusiveMinimum = source.minimum;
    delete out.minimum;
  } else if (typeof source.exclusiveMinimum === "boolean") delete out.exclusiveMinimum;
  if (source.exclusiveMaximum === true && typeof source.maximum === "number") {
    out.exclusiveMaximum = source.maximum;
    delete out.maximum;
  } else if (typeof source.exclusiveMaximum === "boolean") delete out.exclusiveMaximum;
}

/** Swagger's `file` type, and type lists without repeats. */
function applyLegacyType(out: JsonSchema): void {
  if (out.type === "file") {
    out.type = "string";
    out.format = "binary";
  }
  if (Array.isArray(out.type)) {
    const types = (out.type as unknown[]).map((t) => (t === "file" ? "string" : t));
    out.type = [...new Set(types)];
  }
}

/** What a cut-off sub-schema becomes: its type and description, accepting any content. */
export function stubFor(schema: Record<string, unknown>, recursive: boolean): JsonSchema {
  const stub: JsonSchema = {};
  if (typeof schema.type === "string" || Array.isArray(schema.type)) stub.type = schema.type;
  const title = typeof schema.title === "string" ? ` ${schema.title}` : "";
  const reason = recursive ? `recursive${title} structure` : `nested${title} structure (depth limit)`;
  stub.description =
    `${typeof schema.description === "string" ? schema.description + " " : ""}(${reason}; contents not constrained here)`.trim();
  return stub;
}
