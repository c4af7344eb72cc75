/** The JSON Schema keywords whose values are sub-schemas, and the conversion's notion of where a sub-schema sits. */
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
 * Where a sub-schema sits, as a JSON pointer or a function making one: only
 * diagnostics need it, and they are rare, while escaping and joining tokens at
 * every node of every conversion was a tenth of the model stage.
 */
export type Where = string | (() => string);

export function pointerAt(where: Where): string {
  return typeof where === "string" ? where : where();
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
