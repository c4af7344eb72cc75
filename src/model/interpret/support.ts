/**
 * Which schemas the interpreter takes on: every keyword in them is one it implements or an annotation
 * Ajv ignores, and every keyword value is one the 2020-12 meta-schema accepts and Ajv compiles. So a
 * schema passing this check is one the server's Ajv compiles (fail closed without compiling); any
 * doubt (an unknown value shape, `$ref`, `$id`, an invalid regex, an empty `enum`...) leaves the schema
 * to Ajv, whose outcome, and error message, then stands.
 */
import { AJV_KEYWORDS, FORMATS } from "./vocabulary.js";

const SIMPLE_TYPES = new Set(["array", "boolean", "integer", "null", "number", "object", "string"]);
const STRING_VALUED = new Set(["title", "description", "$comment", "contentMediaType", "contentEncoding"]);
const BOOLEAN_VALUED = new Set(["deprecated", "readOnly", "writeOnly", "uniqueItems"]);
const NUMBER_VALUED = new Set(["maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum"]);
const COUNT_VALUED = new Set(["maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties"]);
const SCHEMA_LISTS = new Set(["anyOf", "oneOf", "allOf"]);
const ONE_SCHEMA = new Set(["not", "items", "additionalProperties"]);

/** ajv-formats' `regex` format, which the meta-schema applies to `pattern`. */
const isRegexFormat = FORMATS["regex"] as (text: string) => boolean;

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
  for (const [keyword, value] of Object.entries(schema)) {
    if (!keywordSupported(keyword, value)) {
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
  if (STRING_VALUED.has(keyword)) return typeof value === "string";
  if (BOOLEAN_VALUED.has(keyword)) return typeof value === "boolean";
  if (NUMBER_VALUED.has(keyword)) return isPlainNumber(value);
  if (COUNT_VALUED.has(keyword)) return Number.isInteger(value) && (value as number) >= 0 && !Object.is(value, -0);
  if (ONE_SCHEMA.has(keyword)) return interpretable(value);
  if (SCHEMA_LISTS.has(keyword)) return Array.isArray(value) && value.length > 0 && value.every(interpretable);
  switch (keyword) {
    case "type":
      return typeof value === "string" ? SIMPLE_TYPES.has(value) : isTypeList(value);
    case "const":
    case "default":
      return true;
    case "enum":
      // The meta-schema allows an empty list; Ajv's compile throws on it.
      return Array.isArray(value) && value.length > 0;
    case "examples":
      return Array.isArray(value);
    case "multipleOf":
      return isPlainNumber(value) && value > 0;
    case "pattern":
      return typeof value === "string" && isRegexFormat(value) && compilesWithUnicode(value);
    case "format":
      // An unknown format is ignored by Ajv (a warning); one named like an Object.prototype member is left to Ajv.
      return typeof value === "string" && (Object.hasOwn(FORMATS, value) || !(value in FORMATS));
    case "required":
      return (
        Array.isArray(value) && value.every((name) => typeof name === "string") && new Set(value).size === value.length
      );
    case "properties":
      return isPlainObject(value) && Object.values(value).every(interpretable);
    default:
      return !AJV_KEYWORDS.has(keyword);
  }
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

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function compilesWithUnicode(pattern: string): boolean {
  try {
    new RegExp(pattern, "u");
    return true;
  } catch {
    return false;
  }
}
