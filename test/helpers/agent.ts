/** What a naive agent does with a guided error's next steps: take a value out of an answer and put it into the next call. */
import { parsePointer } from "../../templates/server/src/runtime/shared/json.js";

/** The value at a JSON pointer (`take`) inside an answer, or undefined. */
export function at(value: unknown, pointer: string): unknown {
  return parsePointer(pointer).reduce<unknown>(
    (v, key) => (v !== null && typeof v === "object" ? (v as Record<string, unknown>)[key] : undefined),
    value,
  );
}

/** The step's params with every `"$via"` replaced by the value taken from the previous call. */
export function replaceVia(value: unknown, taken: unknown): unknown {
  if (value === "$via") return taken;
  if (Array.isArray(value)) return value.map((v) => replaceVia(v, taken));
  if (value !== null && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replaceVia(v, taken)]));
  return value;
}
