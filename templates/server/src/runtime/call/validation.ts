/**
 * Argument (and response) validation with the shared Ajv configuration.
 *
 * Compilation is LAZY: each tool's schema is compiled on its first call and
 * cached for the life of the process. Ajv compiles a realistic operation
 * schema in roughly 1-3 ms, so compiling eagerly would put seconds between
 * process start and the first `tools/list` answer for a 1000-operation API,
 * while an agent typically calls a handful of tools per session. `warmUp()`
 * exists for deployments that prefer paying the cost up front.
 */
import type { ErrorObject, ValidateFunction } from "ajv";
import { createAjv } from "../shared/ajv.js";
import type { JsonSchema, ToolData } from "../shared/tool-data.js";

export type ValidationResult =
  | { valid: true }
  | {
      valid: false;
      /** Ajv errors (all of them: `allErrors` is on), empty when `schemaError` is set. */
      errors: ErrorObject[];
      /** Set when the schema itself failed to compile; the tool cannot be validated at all. */
      schemaError?: string;
    };

export interface ToolValidators {
  validateArguments(tool: ToolData, args: unknown): ValidationResult;
  /** Checks a success body against `tool.responseSchema`; tools without one accept anything. */
  validateResponse(tool: ToolData, body: unknown): ValidationResult;
  /** Compile every input schema now (e.g. right after start-up, off the critical path). */
  warmUp(): void;
}

type Compiled = { validate: ValidateFunction } | { schemaError: string };

export function compileValidators(tools: ToolData[]): ToolValidators {
  // Created at the first compile: loading Ajv is part of no tools/list answer.
  let ajv: ReturnType<typeof createAjv> | undefined;
  const inputValidators = new Map<string, Compiled>();
  const responseValidators = new Map<string, Compiled>();

  const compile = (schema: JsonSchema): Compiled => {
    try {
      return { validate: (ajv ??= createAjv()).compile(schema) };
    } catch (error) {
      // The generator compiled this schema with the same Ajv config, so this means the data file was edited by hand.
      return { schemaError: error instanceof Error ? error.message : String(error) };
    }
  };

  const run = (compiled: Compiled, value: unknown): ValidationResult => {
    if ("schemaError" in compiled) return { valid: false, errors: [], schemaError: compiled.schemaError };
    if (compiled.validate(value)) return { valid: true };
    return { valid: false, errors: [...(compiled.validate.errors ?? [])] };
  };

  const inputValidatorFor = (tool: ToolData): Compiled => {
    let compiled = inputValidators.get(tool.name);
    if (!compiled) {
      compiled = compile(tool.inputSchema);
      inputValidators.set(tool.name, compiled);
    }
    return compiled;
  };

  return {
    validateArguments(tool, args) {
      return run(inputValidatorFor(tool), args);
    },
    validateResponse(tool, body) {
      if (!tool.responseSchema) return { valid: true };
      let compiled = responseValidators.get(tool.name);
      if (!compiled) {
        compiled = compile(tool.responseSchema);
        responseValidators.set(tool.name, compiled);
      }
      return run(compiled, body);
    },
    warmUp() {
      for (const tool of tools) inputValidatorFor(tool);
    },
  };
}
