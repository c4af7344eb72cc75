/**
 * The JSON text of a tool's input schema, made once per schema object. The fail-closed check and the example
 * units group tools by it, and the example cache hashes it: three full `JSON.stringify` passes over every input
 * schema otherwise (GitHub: ≈ 65 ms each). Schemas are not changed after the model stage, which the
 * interpreter's and the example generator's per-object caches rely on as well.
 */
import type { JsonSchema } from "./ir.js";

const texts = new WeakMap<object, string>();

export function schemaText(schema: JsonSchema): string {
  if (typeof schema !== "object" || schema === null) return JSON.stringify(schema);
  let text = texts.get(schema);
  if (text === undefined) {
    text = JSON.stringify(schema);
    texts.set(schema, text);
  }
  return text;
}

/**
 * `JSON.stringify(schema[key])`, cut out of the schema's text (`schemaText`) instead of serialised again: a tool's
 * input schema is serialised once, and its properties (Stripe: ≈ 0.9 MB of JSON) reappear in data/tools.json as the
 * tool's full hints (src/guidance/hints.ts). Undefined when the text is not laid out as `jsonAround` says it is.
 */
export function schemaMemberText(schema: JsonSchema, key: string): string | undefined {
  const around = jsonAround(schema, key);
  if (!around) return undefined;
  const { prefix, suffix } = around;
  const text = schemaText(schema);
  if (text.length <= prefix.length + suffix.length || !text.startsWith(prefix) || !text.endsWith(suffix))
    return undefined;
  return text.slice(prefix.length, text.length - suffix.length);
}

/**
 * The text around `object[key]`'s in `JSON.stringify(object)`: JSON.stringify writes an object's members in key
 * order, each as its key's JSON, `:` and its value's JSON (none for a value without JSON), so the member's text lies
 * between the members before it and those after it, each serialised on their own. Undefined when `key` is not an own
 * key, its value has no JSON (then there is no member), or the object has a `__proto__` key (a copy of the other
 * members could not hold it as a member).
 */
export function jsonAround(object: object, key: string): { prefix: string; suffix: string } | undefined {
  const keys = Object.keys(object);
  const at = keys.indexOf(key);
  const value = (object as Record<string, unknown>)[key];
  if (at < 0 || value === undefined || typeof value === "function" || typeof value === "symbol") return undefined;
  if (keys.includes("__proto__")) return undefined;
  const before: Record<string, unknown> = {};
  const after: Record<string, unknown> = {};
  const values = object as Record<string, unknown>;
  for (let i = 0; i < keys.length; i++) if (i !== at) (i < at ? before : after)[keys[i]!] = values[keys[i]!];
  const head = JSON.stringify(before);
  const tail = JSON.stringify(after);
  return {
    prefix: `${head === "{}" ? "{" : `${head.slice(0, -1)},`}${JSON.stringify(key)}:`,
    suffix: tail === "{}" ? "}" : `,${tail.slice(1)}`,
  };
}
