/**
 * The JSON text of the tools' schemas, made once for two uses of a cold run: a tool's shape hash (./guidance-keys.ts,
 * before the example worker joins) serialises its input and response schemas, and the model cache's operation
 * entries (./model-cache.ts, at the save) serialise the same objects again (Stripe: 2.9 of its 3.5 MB). Nothing
 * changes a schema once the model made it (later stages copy), so the text stays the object's.
 */
const texts = new WeakMap<object, string>();

/** Above this many tools the texts are not kept: Microsoft Graph's would hold ≈ 100 MB until the save. */
export const MAX_TOOLS_WITH_TEXTS = 5_000;

export function noteSchemaJson(schema: object, json: string): void {
  texts.set(schema, json);
}

/** The text noted for a schema, if any. */
export function knownSchemaJson(schema: object): string | undefined {
  return texts.get(schema);
}

/** `JSON.stringify(value)`, from the text noted for it if there is one. */
export function schemaJson(value: unknown): string {
  return (typeof value === "object" && value !== null && texts.get(value)) || JSON.stringify(value);
}
