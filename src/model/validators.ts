/**
 * Fail closed: every tool's input schema must compile with the exact Ajv
 * configuration the generated server uses. A schema that cannot be compiled
 * is a generation error naming its location, never a server that accepts anything.
 */
import type { ValidateFunction } from "ajv/dist/2020.js";
import { createAjv } from "../../templates/server/src/runtime/shared/ajv.js";
import { GeneratorError } from "../diagnostics.js";
import type { ApiModel, JsonSchema, ToolModel } from "./ir.js";

/** Compiles one schema with the server's Ajv configuration, or throws why it cannot. */
export type SchemaCompiler = (schema: JsonSchema) => ValidateFunction;

/**
 * One validator per tool. Tools with the same input schema (by content) share
 * one validator object, so later stages can treat "same validator" as "same schema".
 * `compile` defaults to a plain createAjv() instance; generation passes the
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
  const ajv = createAjv();
  return (schema) => ajv.compile(schema);
}

/** The located generation error for a tool whose input schema Ajv cannot compile. */
export function uncompilableSchema(tool: Pick<ToolModel, "name" | "pointer">, reason: string): GeneratorError {
  return new GeneratorError(
    tool.pointer,
    `the input schema of tool ${tool.name} cannot be compiled (${reason})`,
    "fix the schema at that location, or hide the operation with `x-mcp: false`",
  );
}
