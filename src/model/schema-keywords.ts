/** The JSON Schema keywords whose values are sub-schemas, shared by the conversion, its memo and the output copy. */
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
