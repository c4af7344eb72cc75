/**
 * The interpreter held to Ajv: a validator that runs both the interpreter's validator and Ajv's (the
 * server's configuration, compiled from the same schema object) on every value, and records the first
 * difference in verdict or in error list (same order, instancePath, schemaPath, keyword, params,
 * message; in verbose mode the very `schema`, `parentSchema` and `data` references).
 */
import type { ErrorObject, ValidateFunction } from "ajv/dist/2020.js";
import type { JsonSchema } from "../../src/model/ir.js";
import { createAjv } from "../../templates/server/src/runtime/shared/ajv.js";

export interface CheckStats {
  schemas: number;
  verdicts: number;
  errorLists: number;
  errors: number;
  differences: string[];
}

/**
 * The server's Ajv (verbose for repair's errors). Not src/model/validators.ts's `createGenerationAjv`:
 * that module imports the interpreter, which the differential test mocks with this file.
 */
function serverAjv(verbose: boolean) {
  const ajv = createAjv();
  (ajv.opts as { verbose?: boolean }).verbose = verbose;
  (ajv as unknown as { logger: object }).logger = { log() {}, warn() {}, error() {} };
  return ajv;
}
export const ajvs = { verbose: serverAjv(true), plain: serverAjv(false) };

/** Fresh Ajv instances (each keeps every schema it compiled: one pair per spec keeps memory bounded). */
export function resetAjvs(): void {
  ajvs.verbose = serverAjv(true);
  ajvs.plain = serverAjv(false);
}

/** `interpreted` wrapped so that every call is also judged by Ajv; differences go to `stats`. */
export function checkedValidator(
  interpreted: ValidateFunction,
  schema: JsonSchema,
  verbose: boolean,
  stats: CheckStats,
): ValidateFunction {
  const ajv = (verbose ? ajvs.verbose : ajvs.plain).compile(schema);
  stats.schemas++;
  const both = (data: unknown): boolean => {
    const expected = ajv(data);
    const expectedErrors = ajv.errors;
    const got = interpreted(data);
    both.errors = interpreted.errors;
    stats.verdicts++;
    if (got !== expected) {
      stats.differences.push(`verdict ${got} instead of ${expected} for ${JSON.stringify(data)?.slice(0, 300)}`);
      return expected;
    }
    if (!expected) {
      stats.errorLists++;
      stats.errors += expectedErrors?.length ?? 0;
      const difference = compareErrors(expectedErrors ?? [], interpreted.errors ?? [], verbose);
      if (difference) stats.differences.push(`${difference} for ${JSON.stringify(data)?.slice(0, 300)}`);
    } else if (interpreted.errors !== null) stats.differences.push("errors not null on a valid value");
    return got;
  };
  both.errors = null as ErrorObject[] | null;
  both.schema = schema;
  return both as unknown as ValidateFunction;
}

const IDENTITIES = ["schema", "parentSchema", "data"] as const;

/** The first difference between Ajv's error list and the interpreter's, or undefined. */
export function compareErrors(expected: ErrorObject[], got: ErrorObject[], verbose: boolean): string | undefined {
  if (expected.length !== got.length)
    return `${got.length} errors instead of ${expected.length}: ${JSON.stringify(strip(got))} vs ${JSON.stringify(strip(expected))}`;
  for (let i = 0; i < expected.length; i++) {
    const a = expected[i]!;
    const b = got[i]!;
    if (Object.keys(a).join() !== Object.keys(b).join())
      return `error ${i}: keys ${Object.keys(b)} vs ${Object.keys(a)}`;
    const plain = (e: ErrorObject) => JSON.stringify(strip([e]));
    if (plain(a) !== plain(b)) return `error ${i}: ${plain(b)} instead of ${plain(a)}`;
    if (verbose)
      for (const field of IDENTITIES)
        if (!Object.is(a[field], b[field])) return `error ${i}: another ${field} object (${plain(a)})`;
  }
  return undefined;
}

/** The error fields compared by value (the verbose ones are compared by identity). */
function strip(errors: ErrorObject[]): unknown[] {
  return errors.map(({ instancePath, schemaPath, keyword, params, message }) => ({
    instancePath,
    schemaPath,
    keyword,
    params,
    message,
  }));
}

/** Copies of `value` with one leaf (up to `max` of them) removed or replaced by a value of another type. */
export function leafMutations(value: unknown, max = 24): unknown[] {
  const paths: Array<Array<string | number>> = [];
  const walk = (node: unknown, path: Array<string | number>): void => {
    if (paths.length >= max) return;
    if (node !== null && typeof node === "object")
      for (const [key, child] of Object.entries(node)) walk(child, [...path, Array.isArray(node) ? Number(key) : key]);
    else paths.push(path);
  };
  walk(value, []);
  const out: unknown[] = [];
  for (const path of paths)
    for (const replacement of [undefined, null, 12345, 1.5, "text", "", [], {}, true]) {
      const copy = structuredClone(value) as Record<string | number, unknown>;
      let holder = copy;
      for (const key of path.slice(0, -1)) holder = holder[key] as Record<string | number, unknown>;
      const last = path[path.length - 1]!;
      if (replacement === undefined) delete holder[last];
      else holder[last] = replacement;
      out.push(copy);
    }
  return out;
}
