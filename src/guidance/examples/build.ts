/**
 * Examples for one tool: the `full` example first, `minimal` pruned from it
 * (or built on its own when pruning breaks validity), each one validated by
 * the tool's own validator before it leaves.
 */
import type { ValidateFunction } from "ajv/dist/2020.js";
import type { JsonSchema } from "../../model/ir.js";
import { asSchema, isObject, schemaProperties, schemaRequired } from "../schema-util.js";
import type { Args, Budget, ExampleContext } from "./context.js";
import { createPicker } from "./realistic.js";
import { makeValid, type Job } from "./repair.js";
import { schemaRoles } from "./roles.js";

export interface ToolExamples {
  minimal: Args;
  full: Args;
}

export interface ExampleOutcome {
  /** Absent only when no value passing the tool's validator could be built. */
  examples?: ToolExamples;
  /** Human-readable reasons (for warning diagnostics); empty when all went well. */
  problems: string[];
}

/**
 * Examples for one input schema. `validate` may be the tool's validator
 * compiled elsewhere with createAjv() (saves compiling big schemas twice).
 */
export function buildExamples(
  ctx: ExampleContext,
  schema: JsonSchema,
  seed: number,
  validate?: ValidateFunction,
): ExampleOutcome {
  const problems: string[] = [];
  if (!validate) {
    const compiled = ctx.compilePlain(schema);
    if (!compiled.validate) {
      return {
        problems: [`the input schema does not compile with Ajv (${compiled.error}), so no example can be checked`],
      };
    }
    validate = compiled.validate;
  }
  const budget: Budget = { left: ctx.cfg.budget };
  const pick = createPicker(schemaRoles(schema), seed);

  let full: Args | undefined;
  const fullResult = makeValid({ ctx, mode: "full", budget, pick }, schema, seed, 0, validate);
  if (fullResult.ok && isObject(fullResult.value)) full = fullResult.value;
  const fullFailure = fullResult.ok ? undefined : fullResult.reason;

  // Values that passed `validate` here or in `makeValid` (which returns only such values, or a structured
  // clone of one): the final check below need not run them through the validator again.
  const passed = new Set<unknown>();
  if (full) passed.add(full);
  let minimal: Args | undefined;
  if (full) {
    const pruned = pruneToRequired(structuredClone(full), schema);
    if (isObject(pruned) && validate(pruned)) {
      minimal = pruned;
      passed.add(pruned);
    }
  }
  if (!minimal) {
    budget.left = Math.max(budget.left, Math.ceil(ctx.cfg.budget / 2));
    const job: Job = { ctx, mode: "minimal", budget, pick };
    const minResult = makeValid(job, schema, seed, 0, validate);
    if (minResult.ok && isObject(minResult.value)) {
      minimal = minResult.value;
      passed.add(minimal);
    } else if (!minResult.ok && !full) {
      problems.push(`could not build a valid example: ${fullFailure ?? minResult.reason}`);
    }
  }
  if (!full && minimal) full = structuredClone(minimal);
  if (!minimal && full) minimal = structuredClone(full);
  if (!minimal || !full) return { problems };
  // Belt and braces: nothing leaves here unvalidated (the copies made just above are checked again).
  if ((!passed.has(minimal) && !validate(minimal)) || (!passed.has(full) && !validate(full)))
    return { problems: [...problems, "internal: example failed final validation"] };
  return { examples: { minimal, full }, problems };
}

/** Drops everything that is not required, recursively, following the schema. */
function pruneToRequired(value: unknown, schema: JsonSchema | undefined, depth = 0): unknown {
  if (!schema || depth > 32) return value;
  if (Array.isArray(value)) {
    const items = asSchema(schema["items"]);
    return items ? value.map((v) => pruneToRequired(v, items, depth + 1)) : value;
  }
  if (!isObject(value)) return value;
  const required = schemaRequired(schema);
  const props = schemaProperties(schema);
  const out: Args = {};
  for (const [k, v] of Object.entries(value)) {
    if (!required.includes(k)) continue;
    out[k] = pruneToRequired(v, props[k], depth + 1);
  }
  return out;
}
