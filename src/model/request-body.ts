/**
 * The request body of one operation: whether the method may carry one, which media type is sent, and whether its
 * properties become top-level arguments or one `body` argument.
 */
import { childPointer } from "../diagnostics.js";
import { isObject, type SpecObject } from "../normalise/index.js";
import type { BodyBinding, Diagnostic, JsonSchema } from "./ir.js";
import { ARG_NAME_PATTERN, isPrototypeMember, uniqueKey } from "./names.js";
import { mergeAllOfObjects, toBoundedJsonSchema, type SchemaContext } from "./schema.js";
import { adoptExample, spreadBodyExample } from "./spec-examples.js";
import { isEmptyBody } from "./spec-cleanup.js";

/**
 * Some APIs inline whole entity graphs into request bodies (Microsoft Graph:
 * 1.2 MB per tool). Past this size an agent cannot use the schema anyway.
 */
export const MAX_BODY_SCHEMA_CHARS = 24_000;

export const BODY_MEDIA_PREFERENCE = [
  /^application\/json\b/i,
  /\+json\b/i,
  /^application\/x-www-form-urlencoded\b/i,
  /^multipart\/form-data\b/i,
  /^text\/plain\b/i,
];

/**
 * HTTP clients (fetch among them) refuse a body on GET and HEAD, so such a
 * body is not offered to the agent: a call would otherwise fail every time.
 * Stripe declares an optional form body on each GET, repeating the query.
 */
export function bodyAllowed(
  method: string,
  operation: SpecObject,
  pointer: string,
  diagnostics: Diagnostic[],
): boolean {
  if (method !== "get" && method !== "head") return true;
  if (!isObject(operation.requestBody)) return true;
  const required = operation.requestBody.required === true;
  diagnostics.push({
    pointer: childPointer(pointer, "requestBody"),
    severity: "warning",
    message: required
      ? `a ${method.toUpperCase()} request cannot carry a body, so this operation cannot be called faithfully: its required body is left out`
      : `a ${method.toUpperCase()} request cannot carry a body, so the optional body's fields are not offered`,
    fix: "move those fields to query parameters, or use POST for an operation that needs a body",
  });
  return false;
}

/**
 * The body's properties become top-level arguments when the body is a plain
 * object whose property names are valid argument names and do not clash with
 * parameters; anything else (arrays, oneOf, maps, clashes) is one `body` argument.
 */
export function buildBody(
  operation: SpecObject,
  pointer: string,
  properties: Record<string, JsonSchema>,
  required: string[],
  context: SchemaContext,
  operationOnce = false,
): BodyBinding | undefined {
  const requestBody = operation.requestBody;
  if (!isObject(requestBody) || !isObject(requestBody.content)) return undefined;
  const mediaType = pickMediaType(Object.keys(requestBody.content));
  if (!mediaType) return undefined;
  const media = requestBody.content[mediaType];
  const bodyPointer = childPointer(pointer, "requestBody", "content", mediaType, "schema");
  const isRequired = requestBody.required === true;
  const rawSchema =
    isObject(media) && media.schema !== undefined
      ? media.schema
      : isTextual(mediaType)
        ? { type: "string" }
        : { type: "string", format: "binary" };
  // Reached once in the run (see `SchemaContext.once`): a body's parts need no memo (Stripe's are all inline).
  const once = operationOnce && context.memo?.unsharedHolders(requestBody, requestBody.content, media) === true;
  const bodyContext = once ? { ...context, once } : context;
  const converted = toBoundedJsonSchema(rawSchema, bodyPointer, bodyContext, MAX_BODY_SCHEMA_CHARS, (depth) =>
    context.diagnostics.push({
      pointer: bodyPointer,
      severity: "warning",
      message: `request body schema is larger than ${MAX_BODY_SCHEMA_CHARS / 1000} KB inlined, so it is constrained only to depth ${depth} (deeper values are accepted as given)`,
      fix: "split the body schema, or accept that the upstream validates the deeper levels",
    }),
  );
  if (isEmptyBody(converted)) return undefined;
  warnIfUnsatisfiable(converted, bodyPointer, context.diagnostics);
  const flat = flattenable(converted, properties);
  if (flat) {
    const mapping: Record<string, string> = {};
    const bodyRequired = new Set((flat.required as string[] | undefined) ?? []);
    for (const [name, schema] of Object.entries(flat.properties as Record<string, JsonSchema>)) {
      properties[name] = schema;
      mapping[name] = name;
      // Many specs leave requestBody.required out even when the body is needed; only an explicit `false` makes its fields optional.
      if (requestBody.required !== false && bodyRequired.has(name)) required.push(name);
    }
    spreadBodyExample(properties, Object.keys(mapping), media);
    return { mode: "flattened", properties: mapping, mediaType, required: isRequired };
  }
  const arg = uniqueKey("body", properties);
  adoptExample(converted, media);
  if (typeof requestBody.description === "string" && converted.description === undefined)
    converted.description = requestBody.description;
  properties[arg] = converted;
  if (isRequired) required.push(arg);
  return { mode: "property", arg, mediaType, required: isRequired };
}

/**
 * A body that requires names it does not declare while allowing no other
 * properties (e-conomic's Employee requires `canApprove`, absent from its
 * properties, under `additionalProperties: false`) has no valid instance.
 */
function warnIfUnsatisfiable(schema: JsonSchema, pointer: string, diagnostics: Diagnostic[]): void {
  const merged = schema.allOf ? mergeAllOfObjects(schema) : schema;
  if (!merged || merged.additionalProperties !== false || !Array.isArray(merged.required)) return;
  const declared = isObject(merged.properties) ? merged.properties : {};
  const missing = (merged.required as unknown[]).filter(
    (name): name is string => typeof name === "string" && !Object.hasOwn(declared, name),
  );
  if (missing.length === 0) return;
  const names = missing.map((name) => `\`${name}\``).join(", ");
  diagnostics.push({
    pointer,
    severity: "warning",
    message: `the body requires ${names}, which it does not declare while it allows no other properties, so this operation cannot be called faithfully: no body satisfies the schema, and the tool sends it without them`,
    fix: `declare ${names} under the body's properties, or take ${missing.length === 1 ? "it" : "them"} out of required`,
  });
}

export function flattenable(schema: JsonSchema, taken: Record<string, unknown>): JsonSchema | undefined {
  const merged = schema.allOf ? mergeAllOfObjects(schema) : schema;
  if (!merged || merged.oneOf || merged.anyOf || merged.not || merged.if) return undefined;
  if (merged.type !== "object" && !(merged.type === undefined && isObject(merged.properties))) return undefined;
  if (!isObject(merged.properties) || Object.keys(merged.properties).length === 0) return undefined;
  if (isObject(merged.additionalProperties) || merged.patternProperties) return undefined;
  for (const name of Object.keys(merged.properties)) {
    if (!ARG_NAME_PATTERN.test(name) || Object.hasOwn(taken, name) || isPrototypeMember(name)) return undefined;
  }
  return merged;
}

export function pickMediaType(mediaTypes: string[]): string | undefined {
  for (const preference of BODY_MEDIA_PREFERENCE) {
    const match = mediaTypes.find((type) => preference.test(type));
    if (match) return match;
  }
  return mediaTypes[0];
}

export function isTextual(mediaType: string): boolean {
  return /^text\/|json|xml|x-www-form-urlencoded/i.test(mediaType);
}
