/**
 * Small, dependency-free helpers for reading (never mutating) JSON Schema
 * values and JSON pointers. Shared by the guidance modules.
 */
import type { JsonSchema } from "../model/ir.js";
import {
  escapePointerToken as escapeToken,
  isPlainObject,
  parseFragmentPointer,
  unescapePointerToken,
} from "../../templates/server/src/runtime/shared/json.js";
import { perObject } from "./per-object.js";

// One definition of each, shared with the runtime. `parsePointer` here reads `$ref`
// fragments, which are URI-encoded, so it is the percent-decoding variant.
export { unescapePointerToken };

/** A JSON pointer token (the runtime's escaping): the name as it is when it holds no `~` or `/`, as nearly every name. */
export function escapePointerToken(token: string): string {
  return token.includes("~") || token.includes("/") ? escapeToken(token) : token;
}
export const isObject = isPlainObject;
export const parsePointer = parseFragmentPointer;

/** The value as a schema object, or undefined for `true`/`false`/non-objects. */
export function asSchema(value: unknown): JsonSchema | undefined {
  return isObject(value) ? (value as JsonSchema) : undefined;
}

/**
 * A schema's properties, its `allOf` branches' merged in (one level is enough for reading).
 * Kept per schema object: links, producers, pagination, hints and examples all ask for the
 * same (often shared) response and input schemas, tool after tool. Never modify the result.
 */
export function schemaProperties(schema: JsonSchema | undefined): Readonly<Record<string, JsonSchema>> {
  return schema ? propertiesOf(schema) : NO_PROPERTIES;
}
const propertiesOf = perObject(collectProperties);
const NO_PROPERTIES: Readonly<Record<string, JsonSchema>> = Object.freeze({});

function collectProperties(schema: JsonSchema): Readonly<Record<string, JsonSchema>> {
  const props = schema["properties"];
  const allOf = schema["allOf"];
  // Nothing to merge, and every value a schema: the object itself is what a copy would be (names in the same order,
  // the same values and prototype), without making one (Stripe's answers have dozens of properties each).
  if (!Array.isArray(allOf) && isObject(props) && isPlainSchemaMap(props)) return props as Record<string, JsonSchema>;
  const out: Record<string, JsonSchema> = {};
  if (isObject(props)) {
    for (const name of Object.keys(props)) out[name] = asSchema(props[name]) ?? {};
  }
  if (Array.isArray(allOf)) {
    for (const branch of allOf) {
      const b = asSchema(branch);
      if (!b) continue;
      const inherited = schemaProperties(b);
      for (const name of Object.keys(inherited)) if (!(name in out)) out[name] = inherited[name]!;
    }
  }
  return out;
}

/** An object of schemas a copy by assignment would reproduce: `Object.prototype` its prototype, no own `__proto__`. */
function isPlainSchemaMap(props: Record<string, unknown>): boolean {
  if (Object.getPrototypeOf(props) !== Object.prototype || Object.hasOwn(props, "__proto__")) return false;
  for (const name of Object.keys(props)) if (!isObject(props[name])) return false;
  return true;
}

/** The required property names, `allOf` branches' included, each once; kept per schema object. Never modify the result. */
export function schemaRequired(schema: JsonSchema | undefined): readonly string[] {
  return schema ? requiredOf(schema) : NO_NAMES;
}
const requiredOf = perObject(collectRequired);
const NO_NAMES: readonly string[] = Object.freeze([]);

function collectRequired(schema: JsonSchema): string[] {
  const out: string[] = [];
  const req = schema["required"];
  if (Array.isArray(req)) for (const r of req) if (typeof r === "string" && !out.includes(r)) out.push(r);
  const allOf = schema["allOf"];
  if (Array.isArray(allOf)) {
    for (const branch of allOf) for (const r of schemaRequired(asSchema(branch))) if (!out.includes(r)) out.push(r);
  }
  return out;
}

/** Declared JSON types of a schema (`type` keyword only), in order. Never modify the result. */
export function declaredTypes(schema: JsonSchema | undefined): readonly string[] {
  if (!schema) return NO_NAMES;
  const t = schema["type"];
  if (typeof t === "string") return singleType(t);
  if (Array.isArray(t)) return t.filter((x): x is string => typeof x === "string");
  return NO_NAMES;
}

/** `[type]`, one list per type name: asked of nearly every schema node, nearly always with one type. */
function singleType(type: string): readonly string[] {
  let known = singleTypes.get(type);
  if (!known) {
    if (singleTypes.size >= MAX_NORM_NAMES) singleTypes.clear();
    singleTypes.set(type, (known = [type]));
  }
  return known;
}
const singleTypes = new Map<string, readonly string[]>();

export function isArraySchema(schema: JsonSchema | undefined): boolean {
  if (!schema) return false;
  const types = declaredTypes(schema);
  if (types.includes("array")) return true;
  return types.length === 0 && ("items" in schema || "prefixItems" in schema);
}

export function isObjectSchema(schema: JsonSchema | undefined): boolean {
  if (!schema) return false;
  const types = declaredTypes(schema);
  if (types.includes("object")) return true;
  return types.length === 0 && ("properties" in schema || "allOf" in schema);
}

/** Lower-cases and strips `_`, `-`, `.`, `$` and `@` so `page_size`, `pageSize` and `$page-size` compare equal. */
export function normName(name: string): string {
  // The same few thousand field names are compared across every tool: each is normalised once.
  let norm = normNames.get(name);
  if (norm === undefined) {
    if (normNames.size >= MAX_NORM_NAMES) normNames.clear();
    normNames.set(name, (norm = name.toLowerCase().replace(/[_\-.$@\s]/g, "")));
  }
  return norm;
}

const normNames = new Map<string, string>();
/** Cleared when full, so a long-lived process does not grow without bound. */
const MAX_NORM_NAMES = 50_000;

/** Naive English singular: `pets`→`pet`, `categories`→`category`, `addresses`→`address`. */
export function singularize(word: string): string {
  const w = word;
  if (/ies$/i.test(w) && w.length > 3) return w.slice(0, -3) + "y";
  if (/(ss|us|is)$/i.test(w)) return w;
  if (/(sses|shes|ches|xes|zes)$/i.test(w)) return w.slice(0, -2);
  if (/s$/i.test(w) && w.length > 1) return w.slice(0, -1);
  return w;
}

/** Splits camelCase / snake_case / kebab-case into lower-case words. Never modify the result. */
export function words(name: string): readonly string[] {
  // The same names (arguments, fields, path segments) are split again and again across tools: each once.
  let known = wordsOf.get(name);
  if (known === undefined) {
    if (wordsOf.size >= MAX_NORM_NAMES) wordsOf.clear();
    wordsOf.set(name, (known = splitWords(name)));
  }
  return known;
}
const wordsOf = new Map<string, readonly string[]>();

function splitWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}

/** Human-readable noun for a path segment or field stem: `pet_owners` → `pet owner`. */
export function humanNoun(segment: string): string {
  const ws = [...words(segment)];
  if (ws.length === 0) return segment;
  const last = ws[ws.length - 1]!;
  ws[ws.length - 1] = singularize(last);
  return ws.join(" ");
}

/** Stable 32-bit FNV-1a hash, for deriving per-tool seeds independent of tool order. */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export function fitsString(s: JsonSchema, value: string): boolean {
  const len = [...value].length;
  if (typeof s["minLength"] === "number" && len < s["minLength"]) return false;
  if (typeof s["maxLength"] === "number" && len > s["maxLength"]) return false;
  if (typeof s["pattern"] === "string") {
    const pattern = patternRegExp(s["pattern"]);
    if (!pattern || !pattern.test(value)) return false;
  }
  return true;
}

/** A pattern compiled once (candidates are tried one after the other against the same few): null when it does not compile. */
function patternRegExp(source: string): RegExp | null {
  let known = patterns.get(source);
  if (known === undefined) {
    if (patterns.size >= MAX_NORM_NAMES) patterns.clear();
    try {
      known = new RegExp(source, "u");
    } catch {
      known = null;
    }
    patterns.set(source, known);
  }
  return known;
}
const patterns = new Map<string, RegExp | null>();
