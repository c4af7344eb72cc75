/**
 * Fail closed: every tool's input schema must compile with the exact Ajv
 * configuration the generated server uses. A schema that cannot be compiled
 * is a generation error naming its location, never a server that accepts anything.
 */
import type { Ajv2020, ValidateFunction } from "ajv/dist/2020.js";
import { createAjv } from "../../templates/server/src/runtime/shared/ajv.js";
import { GeneratorError } from "../diagnostics.js";
import type { ApiModel, JsonSchema, ToolModel } from "./ir.js";
import { interpretable, interpretSchema } from "./interpret/index.js";
import { createSchemaUnits } from "./schema-units.js";
import { schemaText } from "./schema-text.js";

/** Compiles one schema with the server's Ajv configuration, or throws why it cannot. */
export type SchemaCompiler = (schema: JsonSchema) => ValidateFunction;

/**
 * One validator per tool. Tools with the same input schema (by content) share
 * one validator object, so later stages can treat "same validator" as "same schema".
 * Compiled by `createCheckCompiler` over the model's distinct input schemas; `whole`
 * compiles the ones it does not split (generation passes the example generator's
 * compiler, so example repair reuses those validators).
 */
export function compileInputValidators(model: ApiModel, whole?: SchemaCompiler): Map<string, ValidateFunction> {
  // Large APIs repeat the same input schema across many operations (Graph: 11k tools, 6.8k distinct schemas).
  const keys = model.tools.map((tool) => schemaText(tool.inputSchema));
  const distinct = new Map<string, JsonSchema>();
  model.tools.forEach((tool, position) => {
    if (!distinct.has(keys[position]!)) distinct.set(keys[position]!, tool.inputSchema);
  });
  const compileWith = createCheckCompiler(distinct.values(), whole);
  const validators = new Map<string, ValidateFunction>();
  const bySchema = new Map<string, ValidateFunction>();
  model.tools.forEach((tool, position) => {
    const key = keys[position]!;
    let validate = bySchema.get(key);
    if (!validate) {
      try {
        validate = compileWith(tool.inputSchema);
      } catch (error) {
        throw uncompilableSchema(tool, (error as Error).message);
      }
      bySchema.set(key, validate);
    }
    validators.set(tool.name, validate);
  });
  return validators;
}

/**
 * The fail-closed check, whose validators also give the yes/no verdict on every
 * example. A schema the generation-time interpreter takes on (./interpret/: Ajv's
 * verdicts without generating code) is one the server's Ajv compiles, so `whole`
 * judges it (the example generator's compiler, which then interprets it). The others
 * are compiled with Ajv: sub-schemas repeated across them are compiled once (see
 * ./schema-units.ts). Ajv validates each unit and each
 * rewritten schema against the meta-schema, which judges every sub-schema on its
 * own, and compiles every keyword of the original, with its siblings, so the
 * split copy compiles exactly when the original does and accepts the same values.
 * Should the split copy fail, the original is compiled as it is and its outcome
 * stands: the error a user reads is the one the server's Ajv gives.
 * Errors carry no `parentSchema`, and a unit's errors have paths relative to the
 * unit: example repair compiles the original schema verbosely when it needs them.
 * `interpret: false` leaves every schema to Ajv (tests of the split).
 */
export function createCheckCompiler(
  roots: Iterable<JsonSchema>,
  whole?: SchemaCompiler,
  limits = SPLIT_LIMITS,
  interpret = true,
): SchemaCompiler {
  const distinct = [...new Set(roots)];
  const compileWhole = whole ?? wholeCompiler(interpret);
  let forAjv: SchemaCompiler | undefined;
  return (schema) => {
    if (interpret && interpretable(schema)) return compileWhole(schema);
    // Made at the first schema left to Ajv: an API the interpreter takes on whole counts no units.
    forAjv ??= splitCompiler(
      interpret ? distinct.filter((root) => !interpretable(root)) : distinct,
      compileWhole,
      limits,
    );
    return forAjv(schema);
  };
}

/** Ajv for `distinct` (the schemas it compiles), its repeated sub-schemas split into units when worth it. */
function splitCompiler(distinct: JsonSchema[], whole: SchemaCompiler, limits: typeof SPLIT_LIMITS): SchemaCompiler {
  const units = createSchemaUnits();
  units.count(distinct);
  const sizes = distinct.map((root) => units.sizes(root));
  if (!worthSplitting(sizes, limits.api)) return whole;
  const newShared = () => {
    const ajv = createGenerationAjv({ verbose: false, quiet: true });
    // A `$ref`ed unit must stay its own function, compiled once, not be inlined at every use.
    (ajv.opts as { inlineRefs: boolean | number }).inlineRefs = false;
    return { ajv, known: new Set<number>() };
  };
  let shared = newShared();
  return (schema) => {
    const { local, size } = units.sizes(schema);
    // Mostly its own content: the split copy would save little, and example repair, when needed, compiles
    // the original anyway, which `whole` (the example generator's compiler) then shares.
    if (local > size * limits.schema) return whole(schema);
    try {
      const split = units.rewrite(schema, (uri, unit) => shared.ajv.addSchema(unit, uri), shared.known);
      if (split) return shared.ajv.compile(split);
    } catch {
      // The instance may hold a unit that failed validation: start afresh, and let the original speak.
      shared = newShared();
    }
    return whole(schema);
  };
}

/**
 * Split only APIs whose schemas are mostly repeats: there the check's saving outweighs compiling a schema
 * again (verbosely) when one of its examples needs repair. Single-threaded CPU, paired runs: Microsoft Graph
 * (a quarter of its schema objects outside units) 36 → 28 s; Stripe (half of them) lost 0.3 s, so it is not split.
 */
export const SPLIT_LIMITS = {
  /** The API: split when at most this share of its schema objects stays outside units. */
  api: 0.35,
  /** One schema: the same, for that schema (Graph: 28.5 s against 32 s with 1, split whenever possible). */
  schema: 0.5,
};

function worthSplitting(sizes: Array<{ local: number; size: number }>, maxLocalShare: number): boolean {
  let local = 0;
  let size = 0;
  for (const root of sizes) {
    local += root.local;
    size += root.size;
  }
  return local <= size * maxLocalShare;
}

/**
 * Compiles schemas as they are: the interpreter's, else in one Ajv instance (made at the first
 * such schema); an `$id` already taken there gets a fresh one.
 */
function wholeCompiler(interpret: boolean): SchemaCompiler {
  let ajv: Ajv2020 | undefined;
  return (schema) => {
    const interpreted = interpret ? interpretSchema(schema, { verbose: false }) : undefined;
    if (interpreted) return interpreted;
    try {
      ajv ??= createGenerationAjv({ verbose: false, quiet: true });
      return ajv.compile(schema);
    } catch (first) {
      ajv = createGenerationAjv({ verbose: false, quiet: true });
      try {
        return ajv.compile(schema);
      } catch {
        throw first;
      }
    }
  };
}

/**
 * The server's Ajv configuration (`createAjv()`, so the same schemas compile and
 * the same values validate) tuned for generation, where most validators run a
 * handful of times: no pass of Ajv's code optimiser, which only shortens the
 * generated code and was ~half of each compile (Stripe's validate stage 1.1 → 0.5 s).
 * A schema compiles without it exactly when it compiles with it (same checks,
 * same regexes, same `new Function` of a superset of the code).
 * `verbose` adds `parentSchema`/`data` to errors, for example repair; it does not
 * change what validates. `quiet` drops Ajv's log lines (the model stage already
 * reported what Ajv would warn about, such as unknown formats).
 * The options are set on the instance rather than passed to `createAjv` because
 * that file is copied into every generated project, which must stay as it is.
 */
export function createGenerationAjv(options: { verbose: boolean; quiet: boolean }): Ajv2020 {
  const ajv = createAjv();
  const opts = ajv.opts as { verbose?: boolean; code: { optimize?: number | boolean } };
  opts.verbose = options.verbose;
  opts.code.optimize = 0;
  if (options.quiet) {
    const quiet = { log() {}, warn() {}, error() {} };
    (ajv as unknown as { logger: typeof quiet }).logger = quiet;
  }
  return ajv;
}

/** The located generation error for a tool whose input schema Ajv cannot compile. */
export function uncompilableSchema(tool: Pick<ToolModel, "name" | "pointer">, reason: string): GeneratorError {
  return new GeneratorError(
    tool.pointer,
    `the input schema of tool ${tool.name} cannot be compiled (${reason})`,
    "fix the schema at that location, or hide the operation with `x-mcp: false`",
  );
}
