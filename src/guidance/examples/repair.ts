/**
 * Valid values for a schema: the spec's own values when valid, else a leaf
 * value from the constraints, else a faker value REPAIRED from Ajv's errors —
 * each failing value fixed from its own subschema (enum/const, numeric bounds,
 * string length/pattern, canned formats, item counts, missing or forbidden
 * properties, one oneOf/anyOf branch at a time) — then validated again.
 */
import type { ErrorObject, ValidateFunction } from "ajv/dist/2020.js";
import type { JsonSchema } from "../../model/ir.js";
import { asSchema, escapePointerToken, isObject, schemaRequired } from "../schema-util.js";
import type { Budget, ExampleContext, ExampleMode, Made } from "./context.js";
import { leafValue } from "./leaf.js";
import type { Picker } from "./realistic.js";
import { findPropertySchema, getAt, schemaAtPath, setAt } from "./pointer.js";
import { fake } from "./shape.js";

/** What stays the same while one example (`full` or `minimal`) is built. */
export interface Job {
  ctx: ExampleContext;
  mode: ExampleMode;
  budget: Budget;
  /** Realistic values by argument name, for this tool. */
  pick?: Picker;
}

export function makeValid(job: Job, schema: JsonSchema, seed: number, depth: number, quick?: ValidateFunction): Made {
  const { ctx, mode, budget } = job;
  if (depth > 6 || budget.left <= 0) return { ok: false, reason: "gave up (repair budget exhausted)" };
  let validate = quick;
  if (!validate) {
    const compiled = ctx.compile(schema);
    if (!compiled.validate) return { ok: false, reason: `schema does not compile: ${compiled.error}` };
    validate = compiled.validate;
  }
  // The spec's own values first, when they are valid.
  const own: unknown[] = [];
  if (Array.isArray(schema["examples"])) own.push(...(schema["examples"] as unknown[]).slice(0, 3));
  if ("default" in schema) own.push(schema["default"]);
  for (const v of own) if (validate(v)) return { ok: true, value: structuredClone(v) };
  const leaf = leafValue(schema, seed, budget, job.pick);
  if (leaf.ok && validate(leaf.value)) return { ok: true, value: leaf.value };
  let lastReason = "no candidate value";
  for (let attempt = 0; attempt < 4 && budget.left > 0; attempt++) {
    const candidate = fake(
      ctx,
      schema,
      { mode, useExamples: attempt === 0, branch: attempt, pick: job.pick },
      seed + attempt * 7919,
      budget,
    );
    if (candidate === undefined && attempt > 0) continue;
    const repaired = repair(job, candidate ?? {}, schema, validate, seed + attempt, depth);
    if (repaired.ok) return repaired;
    lastReason = repaired.reason;
  }
  return { ok: false, reason: lastReason };
}

function repair(
  job: Job,
  initial: unknown,
  schema: JsonSchema,
  validate: ValidateFunction,
  seed: number,
  depth: number,
): Made {
  let value = initial;
  // Errors come from the verbose twin of `validate`, compiled only when needed. Mostly `validate` is that twin
  // (the example generator's own compiler judged the schema): its errors for the value it just rejected are
  // then already there, and validating the value again would only make them anew.
  const explain = (v: unknown): ErrorObject[] => {
    const verbose = job.ctx.compile(schema).validate;
    if (verbose === validate) return [...(validate.errors ?? [])];
    if (!verbose || verbose(v)) return [];
    return [...(verbose.errors ?? [])];
  };
  for (let round = 0; round < 6; round++) {
    if (validate(value)) return { ok: true, value };
    const errors = explain(value);
    if (job.budget.left <= 0 || errors.length === 0) break;
    const holder = { root: value };
    applyFixes(job, holder, errors, schema, seed + round, depth);
    value = holder.root;
  }
  if (validate(value)) return { ok: true, value };
  const first = explain(value)[0];
  return {
    ok: false,
    reason: first ? `${first.instancePath || "(root)"} ${first.message ?? first.keyword}` : "invalid",
  };
}

const COMPOSITE = new Set(["oneOf", "anyOf", "not", "if", "false schema", "dependentSchemas", "contains"]);

/** Where one round of fixes stands: the value being fixed and the paths already dealt with. */
interface FixRound {
  job: Job;
  holder: { root: unknown };
  rootSchema: JsonSchema;
  seed: number;
  depth: number;
  /** Instance paths of `required` properties and leaf values already fixed this round. */
  done: Set<string>;
}

function applyFixes(
  job: Job,
  holder: { root: unknown },
  errors: ErrorObject[],
  rootSchema: JsonSchema,
  seed: number,
  depth: number,
): void {
  // Composite failures first: regenerate the whole value they cover and
  // ignore the per-branch noise Ajv reports beneath them.
  const composite = errors.filter((e) => COMPOSITE.has(e.keyword));
  const handled: string[] = [];
  const covered = (e: ErrorObject): boolean =>
    handled.some((p) => e.instancePath === p || e.instancePath.startsWith(p + "/") || p === "");
  // Outermost first.
  composite.sort((a, b) => a.instancePath.length - b.instancePath.length);
  for (const e of composite) {
    if (covered(e)) continue;
    handled.push(e.instancePath);
    const parent = asSchema(e.parentSchema);
    if (!parent) continue;
    const fixed = regenerateComposite(job, parent, e, rootSchema, seed, depth);
    if (fixed.ok) setAt(holder, e.instancePath, fixed.value);
  }
  // Then leaf failures, each fixed from its own subschema.
  const round: FixRound = { job, holder, rootSchema, seed, depth, done: new Set() };
  for (const e of errors) {
    if (COMPOSITE.has(e.keyword) || covered(e)) continue;
    // Errors inside oneOf/anyOf branches are covered by the composite error.
    if (/\/(oneOf|anyOf|not|if|then|else)\//.test(e.schemaPath) && composite.length > 0) continue;
    fixError(round, e);
  }
}

/** Fixes the value one (non-composite) Ajv error points at. */
function fixError(round: FixRound, e: ErrorObject): void {
  const { job, holder, rootSchema, seed, depth, done } = round;
  const parent = asSchema(e.parentSchema) ?? {};
  const params = e.params as Record<string, unknown>;
  const target = (): unknown => getAt(holder.root, e.instancePath);
  switch (e.keyword) {
    case "required":
    case "dependentRequired":
    case "dependencies": {
      const missing = String(params["missingProperty"]);
      // The path Ajv would report for the property (its leaf errors are marked done under theirs).
      const key = `${e.instancePath}/${escapePointerToken(missing)}`;
      if (done.has(key)) break;
      done.add(key);
      const propSchema =
        findPropertySchema(parent, missing) ?? findPropertySchema(schemaAtPath(rootSchema, e.instancePath), missing);
      const v = propSchema ? makeValid(job, propSchema, seed, depth + 1) : { ok: true as const, value: "example" };
      const object = target();
      if (v.ok && isObject(object)) object[missing] = v.value;
      break;
    }
    case "additionalProperties":
    case "unevaluatedProperties": {
      const object = target();
      const extra = String(params["additionalProperty"] ?? params["unevaluatedProperty"]);
      if (isObject(object)) delete object[extra];
      break;
    }
    case "propertyNames": {
      const object = target();
      if (isObject(object)) delete object[String(params["propertyName"])];
      break;
    }
    case "maxItems": {
      const array = target();
      if (Array.isArray(array)) array.length = Number(params["limit"]);
      break;
    }
    case "uniqueItems": {
      const array = target();
      if (Array.isArray(array)) setAt(holder, e.instancePath, uniqueItemsFor(job, array, parent, seed));
      break;
    }
    case "maxProperties": {
      const object = target();
      if (isObject(object)) dropOptionals(object, parent, Number(params["limit"]));
      break;
    }
    default:
      replaceValue(round, e, parent);
  }
}

/** Drops optional properties until at most `limit` are left. */
function dropOptionals(object: Record<string, unknown>, schema: JsonSchema, limit: number): void {
  const req = schemaRequired(schema);
  for (const k of Object.keys(object)) {
    if (Object.keys(object).length <= limit) break;
    if (!req.includes(k)) delete object[k];
  }
}

/** Replaces the failing value with a leaf value, or a freshly made one, for its own subschema. */
function replaceValue(round: FixRound, e: ErrorObject, parent: JsonSchema): void {
  const { job, holder, rootSchema, seed, depth, done } = round;
  if (done.has(e.instancePath)) return;
  done.add(e.instancePath);
  if (e.instancePath === "" && parent === rootSchema) return; // the caller retries from scratch
  const leaf = leafValue(parent, seed, job.budget, job.pick);
  const v =
    leaf.ok && !["minItems", "uniqueItems", "minProperties"].includes(e.keyword)
      ? leaf
      : makeValid(job, parent, seed + 1, depth + 1);
  if (v.ok) setAt(holder, e.instancePath, v.value);
}

function regenerateComposite(
  job: Job,
  parent: JsonSchema,
  e: ErrorObject,
  rootSchema: JsonSchema,
  seed: number,
  depth: number,
): { ok: true; value: unknown } | { ok: false } {
  if (parent !== rootSchema) {
    const v = makeValid(job, parent, seed + 31, depth + 1);
    if (v.ok) return v;
  }
  // Same schema as the one being repaired (or regenerating failed): try each
  // oneOf/anyOf branch merged with its siblings, in order.
  const branches = mergedBranches(parent, e.keyword);
  for (let i = 0; i < branches.length && job.budget.left > 0; i++) {
    const candidate = makeValid(job, branches[i]!, seed + i, depth + 1);
    if (candidate.ok) {
      // The merged schema may accept values the original rejects (oneOf: several branches match).
      const compiled = job.ctx.compile(parent);
      if (compiled.validate?.(candidate.value)) return candidate;
    }
  }
  return { ok: false };
}

/**
 * The first six oneOf/anyOf branches of `parent`, each merged with the
 * branch's siblings. Kept per schema object: the same composite fails again
 * and again (every attempt, every round, every tool sharing the schema), and
 * the validators are cached by object identity, so a fresh merge would be
 * compiled anew each time.
 */
function mergedBranches(parent: JsonSchema, keyword: string): JsonSchema[] {
  let byKeyword = mergedCache.get(parent);
  if (!byKeyword) mergedCache.set(parent, (byKeyword = new Map()));
  let merged = byKeyword.get(keyword);
  if (merged) return merged;
  const branches = Array.isArray(parent[keyword]) ? (parent[keyword] as unknown[]) : [];
  const rest: JsonSchema = { ...parent };
  delete rest[keyword];
  merged = branches.slice(0, 6).map((branch) => {
    const allOf = Array.isArray(rest["allOf"]) ? [...(rest["allOf"] as unknown[]), branch] : [branch];
    return { ...rest, allOf };
  });
  byKeyword.set(keyword, merged);
  return merged;
}
const mergedCache = new WeakMap<JsonSchema, Map<string, JsonSchema[]>>();

/** Dedupes an array, then tops it up to `minItems` with distinct values. */
function uniqueItemsFor(job: Job, arr: unknown[], s: JsonSchema, seed: number): unknown[] {
  const seen = new Set<string>();
  const out: unknown[] = [];
  const push = (v: unknown): void => {
    const key = JSON.stringify(v);
    if (seen.has(key)) return;
    seen.add(key);
    out.push(v);
  };
  arr.forEach(push);
  const min = typeof s["minItems"] === "number" ? s["minItems"] : 0;
  const items = asSchema(s["items"]);
  if (out.length >= min || !items) return out;
  if (Array.isArray(items["enum"])) (items["enum"] as unknown[]).forEach((v) => out.length < min && push(v));
  const check = job.ctx.compile(items).validate;
  for (let i = 1; out.length < min && i <= min * 3 && job.budget.left > 0; i++) {
    const v = fake(
      job.ctx,
      items,
      { mode: job.mode, useExamples: false, branch: i, keepEnums: true },
      seed + i * 104729,
      job.budget,
    );
    if (v !== undefined && check?.(v)) push(v);
  }
  return out;
}
