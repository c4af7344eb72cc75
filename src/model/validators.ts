/**
 * Fail closed: every tool's input schema must compile with the exact Ajv
 * configuration the generated server uses. A schema that cannot be compiled
 * is a generation error naming its location, never a server that accepts anything.
 */
import type { Ajv2020, ValidateFunction } from "ajv/dist/2020.js";
import { createAjv } from "../../templates/server/src/runtime/shared/ajv.js";
import { GeneratorError } from "../diagnostics.js";
import type { ApiModel, JsonSchema, ToolModel } from "./ir.js";

/** Compiles one schema with the server's Ajv configuration, or throws why it cannot. */
export type SchemaCompiler = (schema: JsonSchema) => ValidateFunction;

/**
 * One validator per tool. Tools with the same input schema (by content) share
 * one validator object, so later stages can treat "same validator" as "same schema".
 * `compile` defaults to a plain generation instance (see createGenerationAjv); generation passes the
 * example generator's compiler so each schema is compiled once, not once here
 * and again for example repair.
 */
export function compileInputValidators(model: ApiModel, compile?: SchemaCompiler): Map<string, ValidateFunction> {
  const compileWith = compile ?? plainCompiler();
  const validators = new Map<string, ValidateFunction>();
  // Large APIs repeat the same input schema across many operations (Graph: 11k tools, 6.8k distinct schemas).
  const bySchema = new Map<string, ValidateFunction>();
  for (const tool of model.tools) {
    try {
      const key = JSON.stringify(tool.inputSchema);
      let validate = bySchema.get(key);
      if (!validate) {
        validate = compileWith(tool.inputSchema);
        bySchema.set(key, validate);
      }
      validators.set(tool.name, validate);
    } catch (error) {
      throw uncompilableSchema(tool, (error as Error).message);
    }
  }
  return validators;
}

function plainCompiler(): SchemaCompiler {
  const ajv = createGenerationAjv({ verbose: false, quiet: false });
  return (schema) => ajv.compile(schema);
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
