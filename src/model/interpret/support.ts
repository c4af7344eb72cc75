/**
 * Which schemas the interpreter takes on: every keyword in them is one it implements or an annotation
 * Ajv ignores, and every keyword value is one the 2020-12 meta-schema accepts and Ajv compiles. So a
 * schema passing this check is one the server's Ajv compiles (fail closed without compiling); any
 * doubt (an unknown value shape, `$ref`, `$id`, an invalid regex, an empty `enum`...) leaves the schema
 * to Ajv, whose outcome, and error message, then stands.
 */
import { AJV_KEYWORDS, FORMATS } from "./vocabulary.js";
import { isPlainObject } from "../../../templates/server/src/runtime/shared/json.js";

const SIMPLE_TYPES = new Set(["array", "boolean", "integer", "null", "number", "object", "string"]);

/** ajv-formats' `regex` format, which the meta-schema applies to `pattern`. */
const isRegexFormat = FORMATS["regex"] as (text: string) => boolean;

type ValueCheck = (value: unknown) => boolean;

const isString: ValueCheck = (value) => typeof value === "string";
const isBoolean: ValueCheck = (value) => typeof value === "boolean";
const isCount: ValueCheck = (value) => Number.isInteger(value) && (value as number) >= 0 && !Object.is(value, -0);
const isSchemaList: ValueCheck = (value) => Array.isArray(value) && value.length > 0 && value.every(interpretable);
const anything: ValueCheck = () => true;

/** The keywords the interpreter implements or ignores as Ajv does, each with the values Ajv compiles. */
const KEYWORDS = new Map<string, ValueCheck>([
  ...["title", "description", "$comment", "contentMediaType", "contentEncoding"].map((k) => [k, isString] as const),
  ...["deprecated", "readOnly", "writeOnly", "uniqueItems"].map((k) => [k, isBoolean] as const),
  ...["maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum"].map((k) => [k, isPlainNumber] as const),
  ...["maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties"].map(
    (k) => [k, isCount] as const,
  ),
  ...["not", "items", "additionalProperties"].map((k) => [k, interpretable] as const),
  ...["anyOf", "oneOf", "allOf"].map((k) => [k, isSchemaList] as const),
  ["type", (value) => (typeof value === "string" ? SIMPLE_TYPES.has(value) : isTypeList(value))],
  ["const", anything],
  ["default", anything],
  // The meta-schema allows an empty list; Ajv's compile throws on it.
  ["enum", (value) => Array.isArray(value) && value.length > 0],
  ["examples", (value) => Array.isArray(value)],
  ["multipleOf", (value) => isPlainNumber(value) && value > 0],
  ["pattern", (value) => typeof value === "string" && isRegexFormat(value) && compilesWithUnicode(value)],
  // An unknown format is ignored by Ajv (a warning); one named like an Object.prototype member is left to Ajv.
  ["format", (value) => typeof value === "string" && (Object.hasOwn(FORMATS, value) || !(value in FORMATS))],
  ["required", isNameList],
  ["properties", isSchemaMap],
  // Inert without a `$ref` (which the interpreter leaves to Ajv); the meta-schema still judges their schemas.
  ["$defs", isSchemaMap],
  ["definitions", isSchemaMap],
]);

const verdicts = new WeakMap<object, boolean>();

/** Whether the interpreter implements `schema` and the server's Ajv compiles it (cached per schema object). */
export function interpretable(schema: unknown): boolean {
  if (typeof schema === "boolean") return true;
  if (!isPlainObject(schema)) return false;
  const known = verdicts.get(schema);
  if (known !== undefined) return known;
  // A cycle (impossible in JSON, possible in a hand-built object) is not followed twice.
  verdicts.set(schema, false);
  let ok = true;
  const keywords = Object.keys(schema);
  for (let i = 0; i < keywords.length; i++) {
    const keyword = keywords[i]!;
    if (!keywordSupported(keyword, schema[keyword])) {
      ok = false;
      break;
    }
  }
  verdicts.set(schema, ok);
  return ok;
}

function keywordSupported(keyword: string, value: unknown): boolean {
  // Ajv reads every keyword as `schema[keyword] !== undefined`, and the meta-schema skips undefined values.
  if (value === undefined) return true;
  const check = KEYWORDS.get(keyword);
  return check ? check(value) : !AJV_KEYWORDS.has(keyword);
}

function isSchemaMap(value: unknown): boolean {
  return isPlainObject(value) && Object.values(value).every(interpretable);
}

function isNameList(value: unknown): boolean {
  return (
    Array.isArray(value) && value.every((name) => typeof name === "string") && new Set(value).size === value.length
  );
}

function isTypeList(value: unknown): boolean {
  if (!Array.isArray(value) || value.length === 0) return false;
  return (
    value.every((type) => typeof type === "string" && SIMPLE_TYPES.has(type)) && new Set(value).size === value.length
  );
}

/** A finite number other than -0 (Ajv writes keyword values into code, where -0 would read back as 0). */
function isPlainNumber(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && !Object.is(value, -0);
}

function compilesWithUnicode(pattern: string): boolean {
  try {
    new RegExp(pattern, "u");
    return true;
  } catch {
    return false;
  }
}
