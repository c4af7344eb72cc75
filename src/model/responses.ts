/** An operation's first 2xx response: its JSON schema, declared links and header names. */
import { childPointer } from "../diagnostics.js";
import { isObject, type SpecObject } from "../normalise/index.js";
import type { JsonSchema, OpenApiLink } from "./ir.js";
import { toSharedBoundedJsonSchema, type SchemaContext } from "./schema.js";

export interface SuccessResponse {
  mediaType?: string;
  schema?: unknown;
  schemaPointer?: string;
  links: OpenApiLink[];
  headers: string[];
  /** The document objects between the operation and the schema (see `SchemaContext.once`). */
  holders: unknown[];
}

export function successResponse(operation: SpecObject, pointer: string): SuccessResponse | undefined {
  const responses = isObject(operation.responses) ? operation.responses : {};
  const codes = Object.keys(responses)
    .filter((code) => /^2(\d\d|XX)$/i.test(code))
    .sort();
  const code = codes[0];
  if (!code) return undefined;
  const response = responses[code];
  if (!isObject(response)) return undefined;
  const responsePointer = childPointer(pointer, "responses", code);
  const result: SuccessResponse = {
    links: readLinks(response.links, childPointer(responsePointer, "links")),
    headers: isObject(response.headers) ? Object.keys(response.headers).map((name) => name.toLowerCase()) : [],
    holders: [responses, response],
  };
  if (isObject(response.content)) {
    const mediaType =
      Object.keys(response.content).find((type) => /json/i.test(type)) ?? Object.keys(response.content)[0];
    const media = mediaType ? response.content[mediaType] : undefined;
    if (mediaType) result.mediaType = mediaType;
    if (mediaType && /json/i.test(mediaType) && isObject(media) && media.schema !== undefined) {
      result.schema = media.schema;
      result.holders.push(response.content, media);
      result.schemaPointer = childPointer(responsePointer, "content", mediaType, "schema");
    }
  }
  return result;
}

/**
 * The success response's schema, bounded for tools/list; it shares the operation's diagnostics and schema memo, and
 * tools with equal responses share one object (never changed after: guidance and emit only read it).
 */
export function responseSchemaOf(
  success: SuccessResponse,
  inputContext: SchemaContext,
  limits: { maxDepth: number; maxChars: number; operationOnce: boolean },
): JsonSchema | undefined {
  if (!success.schema) return undefined;
  const outputContext: SchemaContext = { ...inputContext, direction: "output", maxDepth: limits.maxDepth };
  if (limits.operationOnce && inputContext.memo?.unsharedHolders(...success.holders)) outputContext.once = true;
  return toSharedBoundedJsonSchema(success.schema, success.schemaPointer!, outputContext, limits.maxChars);
}

function readLinks(links: unknown, pointer: string): OpenApiLink[] {
  if (!isObject(links)) return [];
  const result: OpenApiLink[] = [];
  for (const [name, link] of Object.entries(links)) {
    if (!isObject(link)) continue;
    result.push({
      name,
      ...(typeof link.operationId === "string" ? { operationId: link.operationId } : {}),
      ...(typeof link.operationRef === "string" ? { operationRef: link.operationRef } : {}),
      parameters: isObject(link.parameters) ? { ...link.parameters } : {},
      ...(typeof link.description === "string" ? { description: link.description } : {}),
      pointer: childPointer(pointer, name),
    });
  }
  return result;
}
