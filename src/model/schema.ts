/**
 * Copies a dereferenced OpenAPI 3.1 schema (which may contain object cycles
 * and shared sub-objects) into a plain JSON Schema 2020-12 tree that Ajv and
 * MCP clients accept. Cycles and excessive depth are cut to a permissive
 * stub, so a recursive schema can never hang or crash anything downstream.
 */
import type { Diagnostic, JsonSchema } from "./ir.js";
import { isObject } from "../normalise/index.js";
import {
  ChildWhere,
  SCHEMA_KEYWORDS,
  SCHEMA_LIST_KEYWORDS,
  SCHEMA_MAP_KEYWORDS,
  type SchemaDirection,
  type Where,
} from "./schema-keywords.js";
import { ANY_DEPTH, makeConverted, SchemaMemo, type Converted } from "./schema-memo.js";
import { jsonLengthUpTo } from "./schema-length.js";
import { convertNode, stubFor } from "./schema-node.js";
import { convertedLengthUpTo } from "./schema-fit.js";

export { SCHEMA_KEYWORDS, SCHEMA_LIST_KEYWORDS, SCHEMA_MAP_KEYWORDS, type SchemaDirection, SchemaMemo, jsonLengthUpTo };

export interface SchemaContext {
  direction: SchemaDirection;
  /** Nesting depth beyond which sub-schemas become permissive stubs. */
  maxDepth: number;
  diagnostics: Diagnostic[];
  /** Conversions shared by the tools of one model run (see schema-memo.ts); none: every schema is converted anew. */
  memo?: SchemaMemo;
  /**
   * The model reaches the schema to convert along one path only: every document object holding it, from the path
   * item down, is unshared (see `SchemaMemo.unshared`). Then its unshared parts need no memo either.
   */
  once?: boolean;
}

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
 *
 * Only the depth kept is converted whenever lengths can pick it beforehand
 * (schema-fit.ts): at once for a response (most are too long at first:
 * GitHub 678 of 1,604 tries, Stripe 557 of 1,008), and for a request body
 * after its first depth (they nearly always fit there, so walking first
 * would only double the work).
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
  let depth = kept?.depth ?? context.maxDepth;
  let fits = kept !== undefined;
  if (!fits && memo && context.direction === "output") {
    depth = fittingDepth(schema, context.direction, depth, maxChars, memo);
    fits = true;
  }
  for (; ; depth--) {
    const diagnostics: SchemaContext["diagnostics"] = [];
    const converted = convert(schema, pointer, { ...context, maxDepth: depth, diagnostics }, 0, new Set()).schema;
    // Lengths are kept for the memo's conversions, measured again in other schemas; a schema reached once is mostly
    // new objects, never measured again (Stripe's bodies: 9,000 map entries to no use).
    if (
      !fits &&
      depth > 1 &&
      jsonLengthUpTo(converted, maxChars, context.once ? undefined : memo?.lengths) > maxChars
    ) {
      if (memo) {
        depth = fittingDepth(schema, context.direction, depth - 1, maxChars, memo) + 1;
        fits = true;
      }
      continue;
    }
    context.diagnostics.push(...diagnostics);
    if (depth < context.maxDepth) onReduced?.(depth);
    if (kept) return kept.schema;
    // A top-level object of its own: `converted` may also sit inside other schemas.
    const top = { ...converted };
    if (memo && isObject(schema)) memo.keepBounded(schema, limits, { depth, schema: top });
    return top;
  }
}

/** The first depth, from `from` down, at which the conversion is at most `maxChars` long; 1 at the least. */
function fittingDepth(
  schema: unknown,
  direction: SchemaDirection,
  from: number,
  maxChars: number,
  memo: SchemaMemo,
): number {
  let depth = from;
  while (depth > 1 && convertedLengthUpTo(schema, direction, depth, maxChars, memo) > maxChars) depth--;
  return depth;
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
  const { memo, direction, diagnostics } = context;
  // One lookup for a schema placed before (most of the memo's), as before the shared objects were known.
  let place = memo?.placed(schema);
  if (memo && !place) {
    // Converted once per conversion of its one parent, or once in the run: nothing to keep, nor any cycle to look
    // for (see `SchemaMemo.unshared`; below a root the memo keeps, every part was placed by the root's search).
    if (!memo.isShared(schema) && (depth > 0 || context.once === true))
      return convertObject(schema, pointer, context, depth, ancestors);
    place = memo.placeOf(schema);
  }
  // Without a memo every schema is noted as open; with one, only those on a cycle (see `openAround`).
  const open = place ? memo!.openAround(place, ancestors) : "";
  const around = open ?? "";
  const reused = place && memo!.reuse(place, direction, remaining, around, pointer, diagnostics);
  if (reused) return reused;
  const before = diagnostics.length;
  // (An exception leaves `ancestors` as it is: it belongs to the one conversion the exception ends.)
  if (open !== undefined) ancestors.add(schema);
  const converted = convertObject(schema, pointer, context, depth, ancestors);
  if (open !== undefined) ancestors.delete(schema);
  // Most subtrees find nothing: no empty copy per node.
  const found = diagnostics.length > before ? diagnostics.slice(before) : NO_DIAGNOSTICS;
  if (place) memo!.keep(place, direction, around, converted, pointer, found);
  return converted;
}

function convertObject(
  schema: Record<string, unknown>,
  pointer: Where,
  context: SchemaContext,
  depth: number,
  ancestors: Set<object>,
): Converted {
  // The remaining depths at which every sub-schema, and so this schema, converts the same.
  let low = 1;
  let high = ANY_DEPTH;
  const sub = (value: unknown, keyword: string, name?: string | number) => {
    const converted = convert(value, new ChildWhere(pointer, keyword, name), context, depth + 1, ancestors);
    low = Math.max(low, converted.low + 1);
    high = Math.min(high, converted.high + 1);
    return converted.schema;
  };
  const out = convertNode(schema, pointer, context.direction, context.diagnostics, sub);
  return makeConverted(out, low, high);
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
