/**
 * A size budget for one depth tried by `toBoundedJsonSchema` (schema.ts).
 * Each try used to convert the whole tree and only then measure it; on
 * Stripe nearly every response is over the budget at the first depths, so
 * most of the output conversions were built just to be thrown away. The
 * conversion now adds a lower bound of each node's JSON length as it goes
 * and stops building (and keeping) once that exceeds the budget: the full
 * result would have been longer still, so that depth would have been
 * rejected anyway, and the depths tried, and the one kept, do not change.
 */
import type { JsonSchema } from "./ir.js";
import type { KnownLengths } from "./schema-keywords.js";
import { jsonLengthUpTo } from "./schema-length.js";

export interface SizeBudget {
  /** The most characters the result may have. */
  readonly limit: number;
  /** Characters left before the result is certainly too long. */
  left: number;
}

/** Keywords whose values are maps of sub-schemas: the map's own braces and names are counted by the schema holding it. */
const MAP_KEYWORDS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);

/**
 * Charges `out` (just converted) at least its own JSON length, its
 * sub-schemas aside (each is charged as it is converted or reused).
 */
export function chargeOwn(budget: SizeBudget, out: JsonSchema): void {
  let length = 2;
  for (const key of Object.keys(out)) {
    const value = out[key];
    if (value === undefined || typeof value === "function" || typeof value === "symbol") continue;
    // `"key":` at least, without the commas between members.
    length += key.length + 3 + valueAtLeast(value, MAP_KEYWORDS.has(key));
  }
  spend(budget, length);
}

/**
 * Charges a kept conversion that is reused: its JSON length as far as it
 * matters here. Measured up to the whole limit, not just what is left, so
 * the length is learnt exactly whenever it could fit (`known` keeps it for
 * every later measure, the accepted depth's included).
 */
export function chargeReused(budget: SizeBudget, schema: object, known: KnownLengths): void {
  // Mostly known exactly already: skip the measuring walk's set-up.
  spend(budget, known.exact.get(schema) ?? jsonLengthUpTo(schema, budget.limit, known));
}

function spend(budget: SizeBudget, length: number): void {
  budget.left -= length;
}

/** A lower bound of a keyword value's JSON length; sub-schema objects count nothing here. */
function valueAtLeast(value: unknown, isMap: boolean): number {
  if (typeof value === "string") return value.length + 2;
  if (typeof value === "boolean") return 4;
  if (typeof value !== "object" || value === null) return 1;
  if (Array.isArray(value)) {
    let length = 2;
    for (const item of value) if (typeof item === "string") length += item.length + 2;
    return length;
  }
  if (!isMap) return 0;
  let length = 2;
  for (const name of Object.keys(value)) length += name.length + 3;
  return length;
}
