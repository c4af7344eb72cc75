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
  // Indexed loops: this runs for every node of every value validated, mostly in code V8 has not optimised
  // (the example worker's), where `for…of` makes an iterator and a result object per step.
  return (data, path, at, out) => {
    if (typeFirst && !hasSomeType(types, data)) typeError(data, path, at, out);
    for (let i = 0; i < untyped.length; i++) untyped[i]!(data, path, at, out);
    for (let g = 0; g < groups.length; g++) {
      const group = groups[g]!;
      if (hasType(group.type, data)) {
        const checks = group.checks;
        for (let i = 0; i < checks.length; i++) checks[i]!(data, path, at, out);
      } else if (group.typeError) typeError(data, path, at, out);
    }
  };
}

function hasSomeType(types: string[], data: unknown): boolean {
  for (let i = 0; i < types.length; i++) if (hasType(types[i]!, data)) return true;
  return false;
}

/**
 * The schema's rule keywords in Ajv's order, by group: a group is used when one of its keywords is
 * present (`shouldUseGroup`), even one that checks nothing here (an unknown format).
 */
function placeKeywords(schema: JsonSchema): { untyped: Check[]; groups: Group[] } {
  const placed = placedKeywords(schema);
  const untyped: Check[] = [];
  const groups: Group[] = [];
  for (let i = 0; i < placed.length; i++) {
    const { keyword, place } = placed[i]!;
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
 * The schema's rule keywords with their places, in rank order. A schema has a few: each is inserted in
 * place (ranks are unique, so the order is the one any sort gives), without a comparator call per pair
 * or an object per keyword — this runs once per schema node, mostly in code V8 has not optimised yet.
 */
function placedKeywords(schema: JsonSchema): PlacedKeyword[] {
  const placed: PlacedKeyword[] = [];
  const keywords = Object.keys(schema);
  for (let k = 0; k < keywords.length; k++) {
    const keyword = keywords[k]!;
    if (schema[keyword] === undefined) continue;
    const places = PLACED.get(keyword);
    if (!places) continue;
    for (let p = 0; p < places.length; p++) {
      const entry = places[p]!;
      let at = placed.length;
      for (; at > 0 && placed[at - 1]!.place.rank > entry.place.rank; at--) placed[at] = placed[at - 1]!;
      placed[at] = entry;
    }
  }
  return placed;
}

interface PlacedKeyword {
  keyword: string;
  place: RulePlace;
}

/** RULE_PLACES with each place paired with its keyword once, for `placedKeywords`. */
const PLACED: ReadonlyMap<string, PlacedKeyword[]> = new Map(
  [...RULE_PLACES].map(([keyword, places]) => [keyword, places.map((place) => ({ keyword, place }))]),
);

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
