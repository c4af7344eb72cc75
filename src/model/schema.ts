/**
 * Copies a dereferenced OpenAPI 3.1 schema (which may contain object cycles
 * and shared sub-objects) into a plain JSON Schema 2020-12 tree that Ajv and
 * MCP clients accept. Cycles and excessive depth are cut to a permissive
 * stub, so a recursive schema can never hang or crash anything downstream.
 */
import type { Diagnostic, JsonSchema } from "./ir.js";
import { childPointer } from "../diagnostics.js";
import { isObject } from "../normalise/index.js";
import {
  MAP_KEYWORD_COUNT,
  MAP_OR_LIST_KEYWORD_COUNT,
  ChildWhere,
  pointerAt,
  SCHEMA_KEYWORDS,
  SCHEMA_LIST_KEYWORDS,
  SCHEMA_MAP_KEYWORDS,
  SUB_SCHEMA_KEYWORDS,
  subSchemaKeywordBits,
  type SchemaDirection,
  type Where,
} from "./schema-keywords.js";
import { ANY_DEPTH, makeConverted, SchemaMemo, type Converted } from "./schema-memo.js";
import { chargeOwn, chargeReused, type SizeBudget } from "./schema-budget.js";
import { jsonLengthUpTo } from "./schema-length.js";
import { checkPattern } from "./schema-patterns.js";

export { SCHEMA_KEYWORDS, SCHEMA_LIST_KEYWORDS, SCHEMA_MAP_KEYWORDS, type SchemaDirection, SchemaMemo, jsonLengthUpTo };

export interface SchemaContext {
  direction: SchemaDirection;
  /** Nesting depth beyond which sub-schemas become permissive stubs. */
  maxDepth: number;
  diagnostics: Diagnostic[];
  /** Conversions shared by the tools of one model run (see schema-memo.ts); none: every schema is converted anew. */
  memo?: SchemaMemo;
  /** Set while trying a depth in `toBoundedJsonSchema`: the conversion stops once certainly too long. */
  budget?: SizeBudget;
}

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

/** A fresh top-level object: callers add to it (a parameter's description), while the sub-schemas may be shared. */
export function toJsonSchema(schema: unknown, pointer: string, context: SchemaContext): JsonSchema {
  return { ...convert(schema, pointer, context, 0, new Set()).schema };
}

/**
 * Like `toJsonSchema`, but shallower until the result fits `maxChars`: huge
 * response schemas (GitHub's timeline events are 300 KB inlined) would
 * otherwise dominate `tools/list`. Cut parts become permissive stubs, so
 * what validated before still validates.
 */
export function toBoundedJsonSchema(
  schema: unknown,
  pointer: string,
  context: SchemaContext,
  maxChars: number,
  onReduced?: (depth: number) => void,
): JsonSchema {
  const schemaKept = bounded(schema, pointer, context, maxChars, onReduced);
  // Callers may add to the top level (a body's description): a copy, as the kept one is shared.
  return context.memo && isObject(schema) ? { ...schemaKept } : schemaKept;
}

/**
 * Like `toBoundedJsonSchema`, for response schemas: every bounding of one
 * schema object under the same limits returns the same object, so tools
 * sharing a response schema share its conversion too, and per-object memos
 * downstream (guidance, emit's stripped output schema) work once for it
 * (GitHub: 926 responses, 641 objects; Stripe: 451, 240). Callers must not
 * change it. (Sharing equal content across distinct objects was tried: keying
 * content cost more than it saved.)
 */
export function toSharedBoundedJsonSchema(
  schema: unknown,
  pointer: string,
  context: SchemaContext,
  maxChars: number,
): JsonSchema {
  return bounded(schema, pointer, context, maxChars);
}

/**
 * The bounded conversion, a top-level object of its own; with a memo, the one
 * kept by the first bounding of `schema` under these limits (its diagnostics
 * are pushed again, with this pointer, by the conversion at the kept depth).
 */
function bounded(
  schema: unknown,
  pointer: string,
  context: SchemaContext,
  maxChars: number,
  onReduced?: (depth: number) => void,
): JsonSchema {
  const { memo } = context;
  const limits = `${context.direction} ${context.maxDepth} ${maxChars}`;
  // A schema bounded before (Stripe: 211 of 451 responses are shared) fits at the depth found then.
  const kept = memo && isObject(schema) ? memo.bounded(schema, limits) : undefined;
  const budgeted = kept === undefined && worthBudgeting(schema, context);
  for (let depth = kept?.depth ?? context.maxDepth; ; depth--) {
    const diagnostics: SchemaContext["diagnostics"] = [];
    // The last depth is kept whatever its length, so it needs no budget.
    const budget = budgeted && depth > 1 ? { limit: maxChars, left: maxChars } : undefined;
    const converted = convert(
      schema,
      pointer,
      { ...context, maxDepth: depth, diagnostics, budget },
      0,
      new Set(),
    ).schema;
    if (budget && budget.left < 0) continue;
    if (kept !== undefined || depth <= 1 || jsonLengthUpTo(converted, maxChars, memo?.lengths) <= maxChars) {
      context.diagnostics.push(...diagnostics);
      if (depth < context.maxDepth) onReduced?.(depth);
      if (kept) return kept.schema;
      // A top-level object of its own: `converted` may also sit inside other schemas.
      const top = { ...converted };
      if (memo && isObject(schema)) memo.keepBounded(schema, limits, { depth, schema: top });
      return top;
    }
  }
}

/**
 * Whether a size budget saves more than charging it costs (see
 * schema-budget.ts). Not for request bodies: they nearly always fit at their
 * first depth (GitHub's 344 all do). Nor, with a memo, for a schema on no
 * cycle: its sub-conversions are kept by depth range, so what a rejected try
 * builds is reused by the next depth and by other tools, while in a cycle the
 * open schemas around each conversion make it nearly unique (Stripe: a
 * budget saves ~20 ms of model CPU; charging GitHub's acyclic responses cost as much).
 */
function worthBudgeting(schema: unknown, context: SchemaContext): boolean {
  if (context.direction !== "output") return false;
  return !context.memo || !isObject(schema) || context.memo.onCycle(schema);
}

/** Shared, never changed: what most subtrees report. */
const NO_DIAGNOSTICS: Diagnostic[] = [];

/** A conversion that any remaining depth gives alike. */
function always(schema: JsonSchema): Converted {
  return makeConverted(schema, -ANY_DEPTH, ANY_DEPTH);
}

function convert(
  schema: unknown,
  pointer: Where,
  context: SchemaContext,
  depth: number,
  ancestors: Set<object>,
): Converted {
  if (schema === true || schema === undefined) return always({});
  if (schema === false) return always({ not: {} });
  if (!isObject(schema)) return always({});
  if (ancestors.has(schema)) return always(stubFor(schema, true));
  const remaining = context.maxDepth - depth;
  if (remaining <= 0) return makeConverted(stubFor(schema, false), -ANY_DEPTH, 0);
  const { memo, direction, diagnostics, budget } = context;
  // Certainly too long: the try will be dropped, so nothing further is built (nor kept).
  if (budget && budget.left < 0) return always({});
  const around = memo?.openAround(schema, ancestors) ?? "";
  const reused = memo?.reuse(schema, direction, remaining, around, pointer, diagnostics);
  if (reused) {
    if (budget) chargeReused(budget, reused.schema, memo!.lengths);
    return reused;
  }
  const before = diagnostics.length;
  ancestors.add(schema);
  try {
    const converted = convertObject(schema, pointer, context, depth, ancestors);
    if (budget && budget.left < 0) return converted;
    // Most subtrees find nothing: no empty copy per node.
    const found = diagnostics.length > before ? diagnostics.slice(before) : NO_DIAGNOSTICS;
    memo?.keep(schema, direction, around, converted, pointer, found);
    return converted;
  } finally {
    ancestors.delete(schema);
  }
}

function convertObject(
  schema: Record<string, unknown>,
  pointer: Where,
  context: SchemaContext,
  depth: number,
  ancestors: Set<object>,
): Converted {
  const keys = Object.keys(schema);
  const out = keptKeywords(schema, keys);
  // The remaining depths at which every sub-schema, and so this schema, converts the same.
  let low = 1;
  let high = ANY_DEPTH;
  const sub = (value: unknown, keyword: string, name?: string | number) => {
    const converted = convert(value, new ChildWhere(pointer, keyword, name), context, depth + 1, ancestors);
    low = Math.max(low, converted.low + 1);
    high = Math.min(high, converted.high + 1);
    return converted.schema;
  };

  // Only the keywords present, in the fixed order (diagnostics come in that order).
  const bits = subSchemaKeywordBits(keys);
  for (let index = 0; bits >>> index !== 0; index++) {
    if ((bits & (1 << index)) === 0) continue;
    const keyword = SUB_SCHEMA_KEYWORDS[index]!;
    const value = schema[keyword];
    if (index < MAP_KEYWORD_COUNT) {
      if (isObject(value)) out[keyword] = convertMap(value, keyword, context.direction, sub);
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

  applyNullable(schema, out);
  applyLegacyKeywords(schema, out);
  dropHiddenRequired(schema, out, context.direction);
  checkPattern(out, pointer, context.diagnostics);
  if (schema.example !== undefined && out.examples === undefined) out.examples = [schema.example];
  if (context.budget) chargeOwn(context.budget, out);
  return makeConverted(out, low, high);
}

/** A map of sub-schemas (`properties`…) converted; properties hidden in this direction left out. */
function convertMap(
  map: Record<string, unknown>,
  keyword: string,
  direction: SchemaDirection,
  sub: (value: unknown, keyword: string, name: string) => JsonSchema,
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

function isDropped(key: string): boolean {
  return DROPPED_KEYWORDS.has(key) || key.startsWith("x-") || key === "$ref";
}

/** `target[key] = value`, except that a key named `__proto__` (a legal property name) stays an own property instead of replacing the prototype. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__")
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** A property that the spec says is never sent in this direction (readOnly for requests, writeOnly for responses). */
function isHiddenInDirection(schema: unknown, direction: SchemaDirection): boolean {
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

function hasRepeats(names: unknown[]): boolean {
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

function applyLegacyKeywords(source: Record<string, unknown>, out: JsonSchema): void {
  // Draft-04 boolean exclusive bounds, which 3.0 documents still carry when not upgraded.
  if (source.exclusiveMinimum === true && typeof source.minimum === "number") {
    out.exclusiveMinimum = source.minimum;
    delete out.minimum;
  } else if (typeof source.exclusiveMinimum === "boolean") delete out.exclusiveMinimum;
  if (source.exclusiveMaximum === true && typeof source.maximum === "number") {
    out.exclusiveMaximum = source.maximum;
    delete out.maximum;
  } else if (typeof source.exclusiveMaximum === "boolean") delete out.exclusiveMaximum;
  if (out.type === "file") {
    out.type = "string";
    out.format = "binary";
  }
  if (Array.isArray(out.type)) {
    const types = (out.type as unknown[]).map((t) => (t === "file" ? "string" : t));
    out.type = [...new Set(types)];
  }
  if (out.required !== undefined && !Array.isArray(out.required)) delete out.required;
  if (Array.isArray(out.enum) && out.enum.length === 0) delete out.enum;
}

/** What a cut-off sub-schema becomes: its type and description, accepting any content. */
function stubFor(schema: Record<string, unknown>, recursive: boolean): JsonSchema {
  const stub: JsonSchema = {};
  if (typeof schema.type === "string" || Array.isArray(schema.type)) stub.type = schema.type;
  const title = typeof schema.title === "string" ? ` ${schema.title}` : "";
  const reason = recursive ? `recursive${title} structure` : `nested${title} structure (depth limit)`;
  stub.description =
    `${typeof schema.description === "string" ? schema.description + " " : ""}(${reason}; contents not constrained here)`.trim();
  return stub;
}

/**
 * Merges an `allOf` of object schemas into one object schema, so a body made
 * of composed parts can still be flattened into tool arguments. Returns
 * undefined when the parts are not all plain objects.
 */
export function mergeAllOfObjects(schema: JsonSchema): JsonSchema | undefined {
  const parts = schema.allOf;
  if (!Array.isArray(parts)) return schema;
  const merged: JsonSchema = { ...schema, type: "object", properties: {}, required: [] };
  delete merged.allOf;
  for (const part of parts as JsonSchema[]) {
    const resolved = part.allOf ? mergeAllOfObjects(part) : part;
    if (!resolved || resolved.oneOf || resolved.anyOf) return undefined;
    if (resolved.type !== undefined && resolved.type !== "object") return undefined;
    Object.assign(merged.properties as object, resolved.properties ?? {});
    (merged.required as string[]).push(...((resolved.required as string[] | undefined) ?? []));
    if (resolved.additionalProperties === false) merged.additionalProperties = false;
    if (!merged.description && typeof resolved.description === "string") merged.description = resolved.description;
  }
  // The schema's own properties sit beside its allOf (Azure: `allOf: [Resource]` plus `kind`, `properties`) and apply too.
  Object.assign(merged.properties as object, isObject(schema.properties) ? schema.properties : {});
  if (Array.isArray(schema.required)) (merged.required as string[]).push(...(schema.required as string[]));
  merged.required = [...new Set(merged.required as string[])];
  if ((merged.required as string[]).length === 0) delete merged.required;
  return merged;
}
