/** The JSON Schema keywords whose values are sub-schemas, and the conversion's notion of where a sub-schema sits. */
import { childPointer } from "../diagnostics.js";
export type SchemaDirection = "input" | "output";

export const SCHEMA_MAP_KEYWORDS = [
  "properties",
  "patternProperties",
  "$defs",
  "definitions",
  "dependentSchemas",
] as const;
export const SCHEMA_LIST_KEYWORDS = ["allOf", "anyOf", "oneOf", "prefixItems"] as const;
export const SCHEMA_KEYWORDS = [
  "items",
  "additionalProperties",
  "not",
  "contains",
  "propertyNames",
  "if",
  "then",
  "else",
  "unevaluatedProperties",
  "unevaluatedItems",
  "additionalItems",
] as const;

/**
 * Where a sub-schema sits, as a JSON pointer or a place under a parent's
 * making one: only diagnostics need it, and they are rare, while escaping and
 * joining tokens at every node of every conversion was a tenth of the model
 * stage. A `ChildWhere` is one small object per child (a closure was two).
 */
export type Where = string | ChildWhere;

export class ChildWhere {
  constructor(
    readonly parent: Where,
    readonly keyword: string,
    readonly name: string | number | undefined,
  ) {}
}

export function pointerAt(where: Where): string {
  if (typeof where === "string") return where;
  const parent = pointerAt(where.parent);
  return where.name === undefined
    ? childPointer(parent, where.keyword)
    : childPointer(parent, where.keyword, where.name);
}

/**
 * JSON lengths of objects that never change (a memo's conversions): exact, or
 * at least this much when measuring stopped early. Plain maps: they live as
 * long as the memo, which holds the measured conversions anyway, and tens of
 * thousands of WeakMap entries (GitHub) are ephemerons every GC must trace.
 */
export interface KnownLengths {
  exact: Map<object, number>;
  atLeast: Map<object, number>;
}

/** Every sub-schema keyword, in the order a conversion visits them: maps, then lists, then single schemas. */
export const SUB_SCHEMA_KEYWORDS: readonly string[] = [
  ...SCHEMA_MAP_KEYWORDS,
  ...SCHEMA_LIST_KEYWORDS,
  ...SCHEMA_KEYWORDS,
];
/** Where maps end and lists end in `SUB_SCHEMA_KEYWORDS`. */
export const MAP_KEYWORD_COUNT = SCHEMA_MAP_KEYWORDS.length;
export const MAP_OR_LIST_KEYWORD_COUNT = SCHEMA_MAP_KEYWORDS.length + SCHEMA_LIST_KEYWORDS.length;
const KEYWORD_BITS = new Map(SUB_SCHEMA_KEYWORDS.map((keyword, index) => [keyword, 1 << index]));

/**
 * Which sub-schema keywords are among `keys` (a schema's own keys): bit `i`
 * for `SUB_SCHEMA_KEYWORDS[i]`. A node has a handful of keys, while probing
 * it for all twenty keywords misses the property caches on objects of
 * thousands of shapes.
 */
export function subSchemaKeywordBits(keys: string[]): number {
  let bits = 0;
  for (const key of keys) bits |= KEYWORD_BITS.get(key) ?? 0;
  return bits;
}
