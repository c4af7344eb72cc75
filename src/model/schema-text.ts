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
