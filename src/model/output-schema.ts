/**
 * The response schema as shipped in data/tools.json. It becomes `data` in
 * every tool's `outputSchema`, and clients compile each one when they list
 * tools (the v1 SDK client compiles all 1,226 of GitHub's before returning the
 * list), so only what validates stays: documentation keywords go, and so do
 * formats that neither the server's nor the clients' Ajv (ajv-formats) knows,
 * which they would ignore anyway, with a log line each ("unknown format
 * unix-time ignored" on Stripe). What validated before still validates, and
 * nothing that failed starts passing: the server checks answers with this
 * same schema. Guidance stages read the full schema before it is emitted.
 *
 * Depth is limited too (`OUTPUT_DEPTH`): deeper parts become `{}`, which
 * costs Ajv no code (a stub keeping `type` costs as much as the type checks
 * it keeps). On GitHub this took the v1 client's compile of all output
 * schemas from ~0.86 s to ~0.72 s; the answer, a list's items and their
 * fields keep their full shape.
 */
import { formatNames } from "ajv-formats/dist/formats.js";
import type { JsonSchema } from "./ir.js";
import { SCHEMA_KEYWORDS, SCHEMA_LIST_KEYWORDS, SCHEMA_MAP_KEYWORDS } from "./schema.js";

/** Annotations: no effect on validation, and the envelope is for machines, the tool's description for people. */
const ANNOTATIONS = new Set([
  "description",
  "title",
  "examples",
  "default",
  "deprecated",
  "readOnly",
  "writeOnly",
  "$comment",
]);
const KNOWN_FORMATS = new Set<string>(formatNames);
const MAP_KEYWORDS = new Set<string>(SCHEMA_MAP_KEYWORDS);
const LIST_KEYWORDS = new Set<string>(SCHEMA_LIST_KEYWORDS);
const SINGLE_KEYWORDS = new Set<string>(SCHEMA_KEYWORDS);
/** Sub-schema levels kept in full: the answer (0), its fields or items (1), their fields (2). */
export const OUTPUT_DEPTH = 3;
/** Keywords that apply another schema to the same value: not a level deeper. */
const SAME_VALUE = new Set(["allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas"]);

/**
 * Stripped once per response schema object: tools with equal responses share
 * one (see `toSharedBoundedJsonSchema`), so they share the stripped one too
 * (GitHub: 926 responses, 641 objects). Neither is changed after.
 */
const stripped = new WeakMap<JsonSchema, JsonSchema>();
/**
 * Sub-schemas stripped, by the level they sit at (a result depends on nothing
 * else): a component shared by many responses (GitHub's `simple-user`) is
 * stripped once per level, not once per response.
 */
const strippedAt = Array.from({ length: OUTPUT_DEPTH }, () => new WeakMap<object, Record<string, unknown>>());

export function validationOnlySchema(schema: JsonSchema): JsonSchema {
  let result = stripped.get(schema);
  if (!result) stripped.set(schema, (result = strip(schema, 0) as JsonSchema));
  return result;
}

function strip(schema: unknown, depth: number): unknown {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return schema;
  if (depth >= OUTPUT_DEPTH) return {};
  const known = strippedAt[depth]!;
  let out = known.get(schema);
  if (out) return out;
  out = {};
  const record = schema as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const value = record[key];
    if (ANNOTATIONS.has(key)) continue;
    if (key === "format" && typeof value === "string" && !KNOWN_FORMATS.has(value)) continue;
    setOwn(out, key, keywordValue(key, value, SAME_VALUE.has(key) ? depth : depth + 1));
  }
  known.set(schema, out);
  return out;
}

/** Recurses into sub-schemas only: `properties` names, `enum` and `const` values are data and stay as written. */
function keywordValue(key: string, value: unknown, depth: number): unknown {
  if (MAP_KEYWORDS.has(key) && typeof value === "object" && value !== null) {
    const map: Record<string, unknown> = {};
    const record = value as Record<string, unknown>;
    for (const name of Object.keys(record)) setOwn(map, name, strip(record[name], depth));
    return map;
  }
  if (LIST_KEYWORDS.has(key) && Array.isArray(value)) return value.map((sub) => strip(sub, depth));
  if (SINGLE_KEYWORDS.has(key)) return strip(value, depth);
  return value;
}

/** Like the model's copy: a property named `__proto__` stays an own property. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__")
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
