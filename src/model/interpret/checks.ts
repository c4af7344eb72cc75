/**
 * Ajv2020's semantics as plain closures, built once per schema object: the verdict and the error
 * objects Ajv's generated code gives (allErrors), in the same order, with the same paths, params,
 * messages and, in verbose mode, the same `schema`/`parentSchema`/`data` references. Only for schemas
 * `interpretable` accepts; each function mirrors the Ajv keyword named in its comment
 * (node_modules/ajv/lib/vocabularies/...), and test/unit/interpret.test.ts holds them to Ajv.
 */
import type { JsonSchema } from "../ir.js";
import { anyChecks, numberChecks, stringChecks } from "./keywords.js";
import { arrayChecks, objectChecks } from "./structure.js";
import { report, type Check, type KeywordBuilder, type Out } from "./report.js";
import { alwaysValid, hasType, RULE_ORDER, type GroupType } from "./vocabulary.js";

const compiled = new WeakMap<object, Check>();

/** The check of a (sub)schema; shared by every schema that holds the same object. */
export function checkOf(schema: unknown): Check {
  if (typeof schema === "boolean") return schema ? pass : falseSchema;
  let check = compiled.get(schema as object);
  if (!check) {
    check = alwaysValid(schema) ? pass : buildCheck(schema as JsonSchema);
    compiled.set(schema as object, check);
  }
  return check;
}

const pass: Check = () => {};

/** boolSchema.ts: `false` rejects everything. */
const falseSchema: Check = (data, path, at, out) =>
  report(out, path, `${at}/false schema`, "false schema", {}, "boolean schema is false", false, false, data);

const BUILDERS: Record<GroupType, KeywordBuilder> = {
  number: numberChecks,
  string: stringChecks,
  array: arrayChecks,
  object: objectChecks,
};

interface Group {
  type: GroupType;
  checks: Check[];
  /** The schema's single type is this group's: a value of another type gets the type error here. */
  typeError: boolean;
}

/** validate/index.ts `typeAndKeywords`: the type check, then each rule group in Ajv's order. */
function buildCheck(schema: JsonSchema): Check {
  const types = typeList(schema["type"]);
  const groups: Group[] = [];
  const used = new Set<GroupType>();
  for (const { type, keywords } of RULE_ORDER.groups) {
    if (!keywords.some((keyword) => schema[keyword] !== undefined)) continue;
    used.add(type);
    groups.push({ type, checks: buildKeywords(schema, keywords, BUILDERS[type]), typeError: false });
  }
  // dataType.ts `coerceAndCheckDataType`: a single type whose group the schema uses is checked in that group.
  const typeFirst = types.length > 0 && !(types.length === 1 && used.has(types[0] as GroupType));
  for (const group of groups) group.typeError = !typeFirst && types.length === 1 && types[0] === group.type;
  const untyped = buildKeywords(schema, RULE_ORDER.any, anyChecks);
  const typeError = (data: unknown, path: string, at: string, out: Out) =>
    report(
      out,
      path,
      `${at}/type`,
      "type",
      { type: schema["type"] },
      `must be ${String(schema["type"])}`,
      schema["type"],
      schema,
      data,
    );
  return (data, path, at, out) => {
    if (typeFirst && !types.some((type) => hasType(type, data))) typeError(data, path, at, out);
    for (const check of untyped) check(data, path, at, out);
    for (const group of groups) {
      if (hasType(group.type, data)) for (const check of group.checks) check(data, path, at, out);
      else if (group.typeError) typeError(data, path, at, out);
    }
  };
}

function buildKeywords(schema: JsonSchema, keywords: string[], build: KeywordBuilder): Check[] {
  const checks: Check[] = [];
  for (const keyword of keywords) {
    if (schema[keyword] === undefined) continue;
    const check = build(schema, keyword, checkOf);
    if (check) checks.push(check);
  }
  return checks;
}

function typeList(type: unknown): string[] {
  if (Array.isArray(type)) return type as string[];
  return typeof type === "string" ? [type] : [];
}
