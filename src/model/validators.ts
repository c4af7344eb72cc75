/**
 * Fail closed: every tool's input schema must compile with the exact Ajv
 * configuration the generated server uses. A schema that cannot be compiled
 * is a generation error naming its location, never a server that accepts anything.
 */
import type { ValidateFunction } from "ajv/dist/2020.js";
import { createAjv } from "../../templates/server/src/runtime/shared/ajv.js";
import { GeneratorError } from "../diagnostics.js";
import type { ApiModel } from "./ir.js";

export function compileInputValidators(model: ApiModel): Map<string, ValidateFunction> {
  const ajv = createAjv();
  const validators = new Map<string, ValidateFunction>();
  // Large APIs repeat the same input schema across many operations (Graph: 11k tools, 6.8k distinct schemas).
  const bySchema = new Map<string, ValidateFunction>();
  for (const tool of model.tools) {
    try {
      const key = JSON.stringify(tool.inputSchema);
      let validate = bySchema.get(key);
      if (!validate) {
        validate = ajv.compile(tool.inputSchema);
        bySchema.set(key, validate);
      }
      validators.set(tool.name, validate);
    } catch (error) {
      throw new GeneratorError(tool.pointer, `the input schema of tool ${tool.name} cannot be compiled (${(error as Error).message})`, "fix the schema at that location, or hide the operation with `x-mcp: false`");
    }
  }
  return validators;
}
