/**
 * The spec's own example values, wherever OpenAPI puts them, carried into the
 * input schema as JSON Schema `examples` so the example generator uses them
 * first: a parameter's `example` / `examples` map, and a request body media
 * type's `example` / `examples` map (spread onto the properties when the body
 * is flattened into top-level arguments). Values are copied only where the
 * schema has no `examples` of its own; the generator still validates them.
 */
import { isObject } from "../normalise/index.js";
import type { JsonSchema } from "./ir.js";

/** `example`, else the `value` of the first entry of an `examples` map (Example Objects; `externalValue` is not fetched). */
export function declaredExample(holder: unknown): { value: unknown } | undefined {
  if (!isObject(holder)) return undefined;
  if (holder.example !== undefined) return { value: holder.example };
  if (!isObject(holder.examples)) return undefined;
  for (const entry of Object.values(holder.examples)) {
    if (isObject(entry) && entry.value !== undefined) return { value: entry.value };
  }
  return undefined;
}

/** Sets `schema.examples` from the holder's example when the schema has none. */
export function adoptExample(schema: JsonSchema, holder: unknown): void {
  const found = declaredExample(holder);
  if (found && schema.examples === undefined) schema.examples = [found.value];
}

/** A flattened body: each property without examples takes its value from the body's example object. */
export function spreadBodyExample(properties: Record<string, JsonSchema>, names: string[], media: unknown): void {
  const found = declaredExample(media);
  if (!found || !isObject(found.value)) return;
  for (const name of names) {
    const value = found.value[name];
    const schema = properties[name];
    if (value !== undefined && schema && schema.examples === undefined)
      properties[name] = { ...schema, examples: [value] };
  }
}
