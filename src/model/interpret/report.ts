/**
 * The shape shared by the interpreter's checks: where errors go, and Ajv's error objects.
 */
import type { ErrorObject } from "ajv/dist/2020.js";
import type { JsonSchema } from "../ir.js";
import { escapeFragment, escapePointer } from "./vocabulary.js";

/** Where the errors of one validation go. */
export interface Out {
  errors: ErrorObject[];
  verbose: boolean;
}

/**
 * Validates `data` at `path` (its instance path) against the schema whose error-schema path is `at`;
 * reports into `out`; valid when it reported nothing (Ajv: `errsCount === errors`).
 */
export type Check = (data: unknown, path: string, at: string, out: Out) => void;

/** Runs `check` and tells whether it reported nothing. */
export function passes(check: Check, data: unknown, path: string, at: string, out: Out): boolean {
  const before = out.errors.length;
  check(data, path, at, out);
  return out.errors.length === before;
}

/** errors.ts `reportError` in allErrors mode: one error object, verbose fields when asked. */
export function report(
  out: Out,
  instancePath: string,
  schemaPath: string,
  keyword: string,
  params: Record<string, unknown>,
  message: string,
  schema: unknown,
  parentSchema: unknown,
  data: unknown,
): void {
  const error: ErrorObject = out.verbose
    ? { instancePath, schemaPath, keyword, params, message, schema, parentSchema: parentSchema as JsonSchema, data }
    : { instancePath, schemaPath, keyword, params, message };
  out.errors.push(error);
}

/** The instance path of a property (`/name`, JSON-pointer escaped) and the schema path of its subschema. */
export function propertyPaths(name: string): { instance: string; schema: string } {
  return { instance: `/${escapePointer(name)}`, schema: `/${escapeFragment(name)}` };
}

/**
 * Builds the check of one keyword of `schema`, or none (the keyword has no effect there); `sub` gives
 * the check of a subschema.
 */
export type KeywordBuilder = (
  schema: JsonSchema,
  keyword: string,
  sub: (schema: unknown) => Check,
) => Check | undefined;
