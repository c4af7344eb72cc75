/**
 * The validators argument preparation runs: an Ajv function, or one returning
 * `{ valid, errors, schemaError }` (the runtime's compiled validators).
 */

import type { ErrorObject } from "ajv";

/** An Ajv `ValidateFunction` (or anything shaped like one). */
export interface AjvValidator {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
}

/**
 * Either an Ajv `ValidateFunction`, or a function returning
 * `{ valid, errors }` (e.g. `(a) => validators.validateArguments(tool, a)`).
 */
export type Validator = AjvValidator | ((data: unknown) => ValidatorResult);

/** What a validator function reports; `schemaError` when the schema itself could not be compiled. */
export interface ValidatorResult {
  valid: boolean;
  errors?: readonly ErrorObject[];
  schemaError?: string;
}

/** Runs either kind of validator; errors are copied (Ajv reuses its array). */
export function runValidator(
  validate: Validator,
  data: unknown,
): { valid: boolean; errors: ErrorObject[]; schemaError?: string } {
  const result = validate(data);
  if (typeof result === "boolean") {
    return { valid: result, errors: result ? [] : [...((validate as AjvValidator).errors ?? [])] };
  }
  if (result.valid) return { valid: true, errors: [] };
  return {
    valid: false,
    errors: [...(result.errors ?? [])],
    ...(result.schemaError && { schemaError: result.schemaError }),
  };
}
