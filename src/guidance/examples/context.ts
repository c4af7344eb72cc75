/**
 * The state shared by every step of example generation for one API: size
 * limits and two cached validators. Built once by `createExampleGenerator`
 * and passed explicitly to the shaping, leaf, repair and build steps.
 */
import type { Ajv2020, ValidateFunction } from "ajv/dist/2020.js";
import type { JsonSchema } from "../../model/ir.js";
import { interpretSchema } from "../../model/interpret/index.js";
import { createGenerationAjv } from "../../model/validators.js";

export type ExampleMode = "minimal" | "full";
export type Args = Record<string, unknown>;

export interface ExampleGeneratorOptions {
  /** Items per array in the `full` example at the top level (deeper arrays get 1). Default 2. */
  maxItems?: number;
  /** Cap for free-text strings without format/pattern. Default 16. */
  maxStringLength?: number;
  /** Optional properties kept in nested objects of the `full` example. Default 6. */
  nestedOptionals?: number;
  /** From this depth on, objects only get their required properties. Default 2. */
  optionalDepth?: number;
  /** Upper bound on generate/compile steps spent on one tool. Default 80. */
  budget?: number;
}

/** Generate/compile steps left for the tool being worked on. */
export interface Budget {
  left: number;
}

export interface Compiled {
  validate?: ValidateFunction;
  error?: string;
}

export type Compiler = (schema: JsonSchema) => Compiled;

export interface ExampleContext {
  cfg: Required<ExampleGeneratorOptions>;
  /** Verbose validator (errors carry `parentSchema`), for repair. */
  compile: Compiler;
  /** Plain validator, exactly as the generated server compiles it. */
  compilePlain: Compiler;
}

/** Outcome of building one value: the value, or why none could be built. */
export type Made = { ok: true; value: unknown } | { ok: false; reason: string };

export function createContext(options: ExampleGeneratorOptions = {}): ExampleContext {
  const cfg = {
    maxItems: options.maxItems ?? 2,
    maxStringLength: options.maxStringLength ?? 16,
    nestedOptionals: options.nestedOptionals ?? 6,
    optionalDepth: options.optionalDepth ?? 2,
    budget: options.budget ?? 80,
  };
  // Two validators per schema: a plain one for the (usually single) validity
  // check per tool, and a verbose one made only when a value needs repair.
  // `verbose` only adds `parentSchema`/`data` to errors; it does not change
  // what validates. Both are the interpreter's (Ajv's verdicts and errors
  // without generating code) when it takes the schema on, else Ajv's.
  return { cfg, compile: cachedCompiler(true), compilePlain: cachedCompiler(false) };
}

function newAjv(verbose: boolean): Ajv2020 {
  return createGenerationAjv({ verbose, quiet: true });
}

/** The interpreter, else one Ajv instance; a cache keyed by schema identity. */
function cachedCompiler(verbose: boolean): Compiler {
  // Made at the first compile: a regeneration whose examples all come from the cache compiles nothing.
  let ajv: Ajv2020 | undefined;
  const cache = new WeakMap<object, Compiled>();
  return (schema) => {
    const hit = cache.get(schema);
    if (hit) return hit;
    const interpreted = interpretSchema(schema, { verbose });
    if (interpreted) {
      const result = { validate: interpreted };
      cache.set(schema, result);
      return result;
    }
    let result: Compiled;
    try {
      ajv ??= newAjv(verbose);
      result = { validate: ajv.compile(schema) };
    } catch (first) {
      // e.g. an `$id` already used by another tool's schema: retry in a fresh instance.
      try {
        ajv = newAjv(verbose);
        result = { validate: ajv.compile(schema) };
      } catch {
        result = { error: first instanceof Error ? first.message : String(first) };
      }
    }
    cache.set(schema, result);
    return result;
  };
}
