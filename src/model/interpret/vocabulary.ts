/**
 * What the interpreter knows of Ajv2020 as the server configures it (allErrors, strict: false,
 * unicodeRegExp, ajv-formats in full mode): which keywords Ajv knows, which of them count as
 * validation rules, the order in which Ajv evaluates them, and Ajv's own runtime helpers
 * (deep equality, string length, the format definitions), so those are Ajv's by construction.
 * test/unit/interpret.test.ts checks these lists against a real Ajv instance's `RULES`.
 */
import * as equalModule from "ajv/dist/runtime/equal.js";
import * as ucs2Module from "ajv/dist/runtime/ucs2length.js";
import { fullFormats } from "ajv-formats/dist/formats.js";

/** A CommonJS module's `exports.default`, whichever way the loader (Node or the bundler) exposes it. */
function cjsDefault<T>(module: unknown): T {
  let value = module as { default?: unknown };
  while (typeof value !== "function" && value && "default" in value) value = value.default as { default?: unknown };
  return value as T;
}

/** Ajv's deep equality (fast-deep-equal), used by `const`, `enum` and `uniqueItems`. */
export const equal = cjsDefault<(a: unknown, b: unknown) => boolean>(equalModule);
/** Ajv's string length: code points, a surrogate pair counting once (`unicode` option left on). */
export const ucs2length = cjsDefault<(text: string) => number>(ucs2Module);

export type FormatDefinition =
  | true
  | RegExp
  | ((data: unknown) => boolean)
  | { type?: string; validate: RegExp | ((data: unknown) => boolean); async?: boolean };

/**
 * The formats the server's Ajv knows, in a plain object as Ajv keeps them (`ajv.formats`). Only own
 * names are interpreted: a format named like an `Object.prototype` member is left to Ajv.
 */
export const FORMATS: Record<string, FormatDefinition> = Object.assign(
  {},
  fullFormats as Record<string, FormatDefinition>,
);

/** Keywords whose presence makes a schema more than "always valid" for Ajv (`RULES.all`). */
export const RULES_ALL = new Set([
  ...["$dynamicAnchor", "$dynamicRef", "$recursiveAnchor", "$recursiveRef", "$comment", "id", "$ref"],
  ...["maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum", "multipleOf", "maxLength", "minLength"],
  ...["pattern", "maxProperties", "minProperties", "required", "maxItems", "minItems", "uniqueItems", "type"],
  ...["nullable", "const", "enum", "not", "anyOf", "oneOf", "allOf", "if", "then", "else", "propertyNames"],
  ...["additionalProperties", "dependencies", "properties", "patternProperties", "prefixItems", "items"],
  ...["contains", "format", "dependentRequired", "dependentSchemas", "maxContains", "minContains"],
  ...["unevaluatedProperties", "unevaluatedItems", "formatMaximum", "formatMinimum", "formatExclusiveMaximum"],
  "formatExclusiveMinimum",
]);

/**
 * Every keyword Ajv or the 2020-12 meta-schema gives a meaning to (`RULES.keywords` and the meta-schema's
 * properties, plus `$async` and `discriminator`, which Ajv reads on its own). Any other name is an
 * annotation Ajv ignores with `strict: false`; one of these the interpreter does not implement sends the
 * schema to Ajv.
 */
export const AJV_KEYWORDS = new Set([
  ...RULES_ALL,
  ...["$async", "$schema", "$id", "$defs", "$vocabulary", "$anchor", "definitions", "discriminator"],
  ...["title", "description", "default", "deprecated", "readOnly", "writeOnly", "examples"],
  ...["contentMediaType", "contentEncoding", "contentSchema"],
]);

/** The data types Ajv groups its typed rules by, in evaluation order after the untyped group. */
export type GroupType = "number" | "string" | "array" | "object";

/**
 * Ajv2020's rules in evaluation order (`RULES.rules`): the untyped group first, then one group per data
 * type, each evaluated only when the data has that type. `format` belongs to both number and string.
 */
export const RULE_ORDER: { any: string[]; groups: Array<{ type: GroupType; keywords: string[] }> } = {
  any: ["$dynamicAnchor", "$dynamicRef", "$recursiveAnchor", "$recursiveRef", "$comment", "id", "$ref", "type"].concat([
    "nullable",
    "const",
    "enum",
    "not",
    "anyOf",
    "oneOf",
    "allOf",
    "if",
    "then",
    "else",
  ]),
  groups: [
    {
      type: "number",
      keywords: ["maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum", "multipleOf", "format"],
    },
    {
      type: "string",
      keywords: ["maxLength", "minLength", "pattern", "format", "formatMaximum", "formatMinimum"].concat([
        "formatExclusiveMaximum",
        "formatExclusiveMinimum",
      ]),
    },
    {
      type: "array",
      keywords: ["maxItems", "minItems", "prefixItems", "items", "contains", "uniqueItems", "maxContains"].concat([
        "minContains",
        "unevaluatedItems",
      ]),
    },
    {
      type: "object",
      keywords: ["maxProperties", "minProperties", "required", "propertyNames", "additionalProperties"].concat([
        "dependencies",
        "properties",
        "patternProperties",
        "dependentRequired",
        "dependentSchemas",
        "unevaluatedProperties",
      ]),
    },
  ],
};

/** Where a rule keyword is evaluated: its group (undefined: the untyped one) and its rank in Ajv's order. */
export interface RulePlace {
  group: GroupType | undefined;
  rank: number;
}

/** RULE_ORDER by keyword (`format` has a place in two groups), to place a schema's own keywords directly. */
export const RULE_PLACES: ReadonlyMap<string, RulePlace[]> = (() => {
  const places = new Map<string, RulePlace[]>();
  const add = (keyword: string, place: RulePlace) => places.set(keyword, [...(places.get(keyword) ?? []), place]);
  let rank = 0;
  for (const keyword of RULE_ORDER.any) add(keyword, { group: undefined, rank: rank++ });
  for (const { type, keywords } of RULE_ORDER.groups)
    for (const keyword of keywords) add(keyword, { group: type, rank: rank++ });
  return places;
})();

/** Ajv's `alwaysValidSchema`: a schema with no rule passes every value and is skipped where Ajv skips it. */
export function alwaysValid(schema: unknown): boolean {
  if (typeof schema === "boolean") return schema;
  for (const key in schema as object) if (RULES_ALL.has(key)) return false;
  return true;
}

/** Ajv's data type checks (`checkDataType`, `strictNumbers` off as with `strict: false`). */
export function hasType(type: string, data: unknown): boolean {
  switch (type) {
    case "null":
      return data === null;
    case "array":
      return Array.isArray(data);
    case "object":
      return !!data && typeof data === "object" && !Array.isArray(data);
    case "integer":
      return typeof data === "number" && !(data % 1) && !isNaN(data);
    default:
      return typeof data === type;
  }
}

/** JSON-pointer escaping of one path segment (`escapeJsonPointer`). */
export function escapePointer(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** A schema-path segment as Ajv writes it (`escapeFragment`). */
export function escapeFragment(segment: string): string {
  return encodeURIComponent(escapePointer(segment));
}
