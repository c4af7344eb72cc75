/**
 * Turns Ajv errors (compiled with `allErrors`) plus unknown keys into issues an
 * agent can act on: `{ field, code, problem, received, expected, fix, did_you_mean? }`.
 * Which errors are reported (anyOf/oneOf noise collapsed) is decided in ajv-errors.ts.
 */
import type { ErrorObject } from "ajv";
import type { JsonSchema, ToolData } from "../shared/tool-data.js";
import { LIST, SUGGEST, confidentMatch, rankMatches } from "./fuzzy.js";
import { fieldName, getAt } from "./pointer.js";
import { collapseErrors, schemaForError } from "./ajv-errors.js";
import { isPlainObject, parsePointer, jsonType } from "../shared/json.js";
import {
  FORMAT_SAMPLES,
  arrayLengthText,
  describeExpected,
  exampleValue,
  formatEnum,
  propertyNames,
  rangeText,
  schemaAtInstance,
  schemaTypes,
  stringLengthText,
  withArticle,
} from "./schema.js";
import type { Issue, IssueCode } from "../call/types.js";

/** An issue plus what the corrector needs; `issue` is the public part. */
export interface AnalyzedIssue {
  issue: Issue;
  /** JSON pointer segments of the offending value inside the arguments. */
  segments: string[];
  keyword: string;
  params: Record<string, unknown>;
  /** The subschema the value must satisfy, when it could be located. */
  schema?: JsonSchema;
}

const MAX_PREVIEW = 300;

/** The received value, or a short description when it is large. */
export function preview(value: unknown): unknown {
  if (typeof value === "string")
    return value.length > MAX_PREVIEW ? `${value.slice(0, MAX_PREVIEW)}… (${value.length} chars)` : value;
  if (value === null || typeof value !== "object") return value;
  const text = JSON.stringify(value);
  if (text.length <= MAX_PREVIEW) return value;
  return Array.isArray(value)
    ? `(array of ${value.length} items)`
    : `(object with keys: ${Object.keys(value).slice(0, 15).join(", ")})`;
}

function show(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}

function coercionHint(value: unknown, types: string[]): string | undefined {
  if (typeof value === "string") {
    const t = value.trim();
    if ((types.includes("integer") || types.includes("number")) && t !== "" && Number.isFinite(Number(t))) {
      const n = Number(t);
      if (types.includes("number") || Number.isInteger(n))
        return `Send ${n} as a number, not the string ${show(value)}`;
    }
    if (types.includes("boolean") && (t === "true" || t === "false")) return `Send ${t} as a boolean, without quotes`;
    if (types.includes("null") && t === "null") return "Send null without quotes";
    if ((types.includes("array") || types.includes("object")) && /^[[{]/.test(t)) {
      try {
        const parsed: unknown = JSON.parse(t);
        if (types.includes(jsonType(parsed))) return `Send the ${jsonType(parsed)} itself, not a JSON-encoded string`;
      } catch {
        /* not JSON */
      }
    }
  }
  if ((typeof value === "number" || typeof value === "boolean") && types.includes("string"))
    return `Send ${show(String(value))} as a string (in quotes)`;
  if (types.includes("array") && !Array.isArray(value) && value !== undefined)
    return `Wrap the value in an array: [${show(value)}]`;
  return undefined;
}

interface Context {
  tool: ToolData;
  root: JsonSchema;
  args: unknown;
}

function describeFormat(format: string, example: unknown): string {
  const sample = typeof example === "string" ? example : FORMAT_SAMPLES[format];
  return sample !== undefined
    ? `Provide a string in ${format} format, e.g. ${show(sample)}`
    : `Provide a string in ${format} format`;
}

function analyzeOne(ctx: Context, e: ErrorObject): AnalyzedIssue {
  const params = e.params as Record<string, unknown>;
  const at = [...parsePointer(e.instancePath)];
  if (e.keyword === "additionalProperties" || e.keyword === "unevaluatedProperties") {
    const key = String(params["additionalProperty"] ?? params["unevaluatedProperty"]);
    const known = propertyNames(ctx.root, schemaAtInstance(ctx.root, at));
    const segments = [...at, key];
    return unknownKeyIssue(segments, getAt(ctx.args, segments), known);
  }
  const explained = (BY_KEYWORD[e.keyword] ?? otherProblem)({ ctx, e, params, segments: at });
  const segments = explained.segments ?? at;
  const { code, problem, expected, fix, didYouMean, schema } = explained;
  const received = getAt(ctx.args, segments);
  const issue: Issue = { field: fieldName(segments), code, problem, expected, fix };
  if (received !== undefined) issue.received = preview(received);
  if (didYouMean !== undefined) issue.did_you_mean = didYouMean;
  const analyzed: AnalyzedIssue = { issue, segments, keyword: e.keyword, params };
  if (schema) analyzed.schema = schema;
  return analyzed;
}

/** One Ajv error, where it points, and the schema around it. */
interface KeywordError {
  ctx: Context;
  e: ErrorObject;
  params: Record<string, unknown>;
  segments: string[];
}

/** What is wrong and how to fix it; `segments` when the issue is about another field (a missing one). */
interface Explained {
  code: IssueCode;
  problem: string;
  expected: string;
  fix: string;
  schema?: JsonSchema | undefined;
  didYouMean?: unknown;
  segments?: string[];
}

/** The explanation for each Ajv keyword; anything else (oneOf, anyOf, not...) is `otherProblem`. */
const BY_KEYWORD: Record<string, (error: KeywordError) => Explained> = {
  required: missingProblem,
  dependentRequired: missingProblem,
  type: typeProblem,
  minimum: rangeProblem,
  maximum: rangeProblem,
  exclusiveMinimum: rangeProblem,
  exclusiveMaximum: rangeProblem,
  multipleOf: rangeProblem,
  enum: enumProblem,
  const: enumProblem,
  format: formatProblem,
  pattern: patternProblem,
  minLength: lengthProblem,
  maxLength: lengthProblem,
  minItems: lengthProblem,
  maxItems: lengthProblem,
  minProperties: lengthProblem,
  maxProperties: lengthProblem,
  uniqueItems: uniqueProblem,
};

function missingProblem({ ctx, e, params, segments: at }: KeywordError): Explained {
  const missing = String(params["missingProperty"]);
  const segments = [...at, missing];
  const schema = schemaAtInstance(ctx.root, segments);
  const where = segments.length > 1 ? ` in ${fieldName(segments.slice(0, -1))}` : "";
  const problem =
    e.keyword === "dependentRequired"
      ? `"${missing}" is required when "${String(params["property"])}" is present${where}`
      : `Required ${segments.length > 1 ? "field" : "parameter"} "${missing}" is missing${where}`;
  const expected = describeExpected(schema);
  const example = exampleValue(ctx.tool, segments);
  const fix =
    example !== undefined
      ? `Add "${missing}" (${expected}), e.g. "${missing}": ${show(example)}`
      : `Add "${missing}" (${expected})`;
  return { code: "MISSING_REQUIRED", problem, expected, fix, schema, segments };
}

function typeProblem({ ctx, e, params, segments }: KeywordError): Explained {
  const schema = schemaForError(ctx.root, e, segments);
  const types = String(params["type"]).split(",");
  const v = getAt(ctx.args, segments);
  const expected = schema
    ? describeExpected({ ...schema, type: types.length === 1 ? types[0] : types })
    : types.join(" or ");
  const fix = coercionHint(v, types) ?? `Provide ${withArticle(expected)}`;
  return {
    code: "INVALID_TYPE",
    problem: `Expected ${types.join(" or ")}, received ${jsonType(v)}`,
    expected,
    fix,
    schema,
  };
}

function rangeProblem({ ctx, e, params, segments }: KeywordError): Explained {
  const schema = schemaForError(ctx.root, e, segments);
  const kind = schemaTypes(schema).includes("integer") ? "integer" : "number";
  const range = schema ? rangeText(schema) : "";
  const problem =
    e.keyword === "multipleOf"
      ? `Must be a multiple of ${String(params["multipleOf"])}`
      : `Must be ${String(params["comparison"])} ${String(params["limit"])}`;
  const expected = range
    ? `${kind} ${range}`
    : `${kind} ${String(params["comparison"] ?? "")} ${String(params["limit"] ?? "")}`.trim();
  return { code: "OUT_OF_RANGE", problem, expected, fix: `Provide ${withArticle(expected)}`, schema };
}

function enumProblem({ ctx, e, params, segments }: KeywordError): Explained {
  const schema = schemaForError(ctx.root, e, segments);
  const isConst = e.keyword === "const";
  const allowed = isConst ? [params["allowedValue"]] : ((params["allowedValues"] as unknown[]) ?? []);
  const v = getAt(ctx.args, segments);
  const problem = isConst ? `Must be exactly ${show(allowed[0])}` : `${show(preview(v))} is not an allowed value`;
  const expected = isConst ? `exactly ${show(allowed[0])}` : `one of: ${formatEnum(allowed)}`;
  const didYouMean = closestEnumValue(v, allowed);
  let fix = isConst ? `Use ${show(allowed[0])}` : `Use one of: ${formatEnum(allowed)}`;
  if (didYouMean !== undefined && !isConst) fix += ` (did you mean ${show(didYouMean)}?)`;
  return { code: "INVALID_ENUM", problem, expected, fix, schema, didYouMean };
}

function formatProblem({ ctx, e, params, segments }: KeywordError): Explained {
  const format = String(params["format"]);
  return {
    code: "INVALID_FORMAT",
    problem: `Not a valid ${format}`,
    expected: `string in ${format} format`,
    fix: describeFormat(format, exampleValue(ctx.tool, segments)),
    schema: schemaForError(ctx.root, e, segments),
  };
}

function patternProblem({ ctx, e, params, segments }: KeywordError): Explained {
  const pattern = String(params["pattern"]);
  const example = exampleValue(ctx.tool, segments);
  return {
    code: "INVALID_PATTERN",
    problem: `Does not match the pattern ${pattern}`,
    expected: `string matching ${pattern}`,
    fix: `Provide a string matching ${pattern}` + (typeof example === "string" ? `, e.g. ${show(example)}` : ""),
    schema: schemaForError(ctx.root, e, segments),
  };
}

function lengthProblem({ ctx, e, params, segments }: KeywordError): Explained {
  const schema = schemaForError(ctx.root, e, segments);
  const v = getAt(ctx.args, segments);
  const limit = String(params["limit"]);
  const bound = e.keyword.startsWith("min") ? "at least" : "at most";
  if (e.keyword.endsWith("Length")) {
    const len = typeof v === "string" ? Array.from(v).length : 0;
    const l = (schema && stringLengthText(schema)) || `${bound} ${limit} characters`;
    const problem = `String has ${len} characters; must have ${bound} ${limit}`;
    return {
      code: "INVALID_LENGTH",
      problem,
      expected: `string of ${l}`,
      fix: `Provide a string of ${l} (you sent ${len})`,
      schema,
    };
  }
  if (e.keyword.endsWith("Items")) {
    const len = Array.isArray(v) ? v.length : 0;
    const l = (schema && arrayLengthText(schema)) || `${bound} ${limit} items`;
    const problem = `Array has ${len} items; must have ${bound} ${limit}`;
    return {
      code: "INVALID_LENGTH",
      problem,
      expected: `array with ${l}`,
      fix: `Provide ${l} (you sent ${len})`,
      schema,
    };
  }
  const len = isPlainObject(v) ? Object.keys(v).length : 0;
  return {
    code: "INVALID_LENGTH",
    problem: `Object has ${len} properties; must have ${bound} ${limit}`,
    expected: `object with ${bound} ${limit} properties`,
    fix: `Provide ${bound} ${limit} properties (you sent ${len})`,
    schema,
  };
}

function uniqueProblem({ ctx, e, params, segments }: KeywordError): Explained {
  return {
    code: "INVALID_VALUE",
    problem: `Items ${String(params["j"])} and ${String(params["i"])} are equal`,
    expected: "array with unique items",
    fix: "Remove the duplicate items",
    schema: schemaForError(ctx.root, e, segments),
  };
}

function otherProblem({ ctx, e, segments }: KeywordError): Explained {
  const schema = schemaAtInstance(ctx.root, segments);
  const problem =
    e.keyword === "oneOf"
      ? "Matches more than one of the allowed alternatives; make it match exactly one"
      : e.keyword === "anyOf"
        ? "Does not match any of the allowed alternatives"
        : `Value ${e.message ?? "is invalid"}`;
  const expected = describeExpected(schema);
  const example = exampleValue(ctx.tool, segments);
  const fix = example !== undefined ? `Provide a value like ${show(example)}` : `Provide ${withArticle(expected)}`;
  return { code: "INVALID_VALUE", problem, expected, fix, schema };
}

/** Closest allowed value: case-insensitive equality, fuzzy string match, or nearest number. */
export function closestEnumValue(value: unknown, allowed: readonly unknown[]): unknown {
  if (allowed.length === 0) return undefined;
  if (typeof value === "string") {
    const lower = value.trim().toLowerCase();
    const exact = allowed.find((a) => typeof a === "string" && a.toLowerCase() === lower);
    if (exact !== undefined) return exact;
    const strings = allowed.filter((a): a is string => typeof a === "string");
    const match = confidentMatch(value, strings, LIST + 0.1);
    if (match) return match.name;
    const asNumber = Number(value);
    if (value.trim() !== "" && allowed.includes(asNumber)) return asNumber;
    return undefined;
  }
  if (typeof value === "number") {
    if (allowed.includes(String(value))) return String(value);
    const numbers = allowed.filter((a): a is number => typeof a === "number");
    if (numbers.length === 0) return undefined;
    return numbers.reduce((best, n) => (Math.abs(n - value) < Math.abs(best - value) ? n : best));
  }
  if (typeof value === "boolean" && allowed.includes(String(value))) return String(value);
  return undefined;
}

/** UNKNOWN_PARAMETER issue for a key the schema does not declare, with fuzzy suggestions. */
export function unknownKeyIssue(segments: string[], received: unknown, known: readonly string[]): AnalyzedIssue {
  const key = segments[segments.length - 1] ?? "";
  const ranked = rankMatches(key, known, { min: LIST, limit: 3 });
  const best = ranked[0];
  const where = segments.length > 1 ? ` in ${fieldName(segments.slice(0, -1))}` : "";
  const issue: Issue = {
    field: fieldName(segments),
    code: "UNKNOWN_PARAMETER",
    problem: `Unknown ${segments.length > 1 ? "field" : "parameter"} "${key}"${where}`,
    expected: known.length ? `one of: ${formatEnum(known, 30)}` : "no additional parameters",
    fix:
      best && best.score >= SUGGEST
        ? `Rename "${key}" to "${best.name}"`
        : ranked.length > 0
          ? `Remove "${key}" or replace it with one of: ${ranked.map((m) => m.name).join(", ")}`
          : `Remove "${key}"; accepted: ${formatEnum(known, 30) || "(none)"}`,
  };
  if (received !== undefined) issue.received = preview(received);
  if (best && best.score >= SUGGEST) issue.did_you_mean = best.name;
  return { issue, segments, keyword: "additionalProperties", params: { additionalProperty: key, matches: ranked } };
}

/**
 * Analyses Ajv errors for `args` against `tool.inputSchema`. Issues are
 * de-duplicated by (field, code); order follows Ajv's, which follows the schema.
 */
export function analyzeErrors(
  tool: ToolData,
  args: unknown,
  errors: readonly ErrorObject[] | null | undefined,
): AnalyzedIssue[] {
  if (!errors || errors.length === 0) return [];
  const ctx: Context = { tool, root: tool.inputSchema, args };
  const seen = new Set<string>();
  const out: AnalyzedIssue[] = [];
  for (const e of collapseErrors(errors)) {
    const analyzed = analyzeOne(ctx, e);
    const key = `${analyzed.issue.field}\u0000${analyzed.issue.code}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(analyzed);
  }
  return out;
}
