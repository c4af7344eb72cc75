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
import { alwaysValid, hasType, RULE_PLACES, type GroupType, type RulePlace } from "./vocabulary.js";

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
  const { untyped, groups } = placeKeywords(schema);
  // dataType.ts `coerceAndCheckDataType`: a single type whose group the schema uses is checked in that group.
  const typeFirst = types.length > 0 && !(types.length === 1 && groups.some((group) => group.type === types[0]));
  for (const group of groups) group.typeError = !typeFirst && types.length === 1 && types[0] === group.type;
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

/**
 * The schema's rule keywords in Ajv's order, by group: a group is used when one of its keywords is
 * present (`shouldUseGroup`), even one that checks nothing here (an unknown format).
 */
function placeKeywords(schema: JsonSchema): { untyped: Check[]; groups: Group[] } {
  const placed: Array<{ keyword: string; place: RulePlace }> = [];
  for (const keyword of Object.keys(schema)) {
    if (schema[keyword] === undefined) continue;
    for (const place of RULE_PLACES.get(keyword) ?? []) placed.push({ keyword, place });
  }
  placed.sort((a, b) => a.place.rank - b.place.rank);
  const untyped: Check[] = [];
  const groups: Group[] = [];
  for (const { keyword, place } of placed) {
    const { group } = place;
    let checks = untyped;
    if (group) {
      let last = groups[groups.length - 1];
      if (last?.type !== group) groups.push((last = { type: group, checks: [], typeError: false }));
      checks = last.checks;
    }
    const check = (group ? BUILDERS[group] : anyChecks)(schema, keyword, lazyCheckOf);
    if (check) checks.push(check);
  }
  return { untyped, groups };
}

/**
 * A subschema's check, built at its first use: an example exercises a fraction of a large schema
 * (its required properties and a few optional ones), so most of it is never built.
 */
function lazyCheckOf(schema: unknown): Check {
  if (typeof schema === "boolean") return checkOf(schema);
  const known = compiled.get(schema as object);
  if (known) return known;
  let built: Check | undefined;
  return (data, path, at, out) => (built ??= checkOf(schema))(data, path, at, out);
}

function typeList(type: unknown): string[] {
  if (Array.isArray(type)) return type as string[];
  return typeof type === "string" ? [type] : [];
}
