/**
 * The request body of an operation, by media type: JSON, `application/x-www-form-urlencoded`
 * (Stripe's bracket convention, see request.ts), multipart parts, or text.
 */
import { isPlainObject } from "../shared/json.js";
import type { BodyBinding } from "../shared/tool-data.js";
import { definedEntries, flattenNested, formatBracketPath, isScalar, scalarText } from "./encoding.js";

type Args = Record<string, unknown>;
type PlainObject = Record<string, unknown>;

export interface BuiltBody {
  payload: string | URLSearchParams | FormData;
  /** Absent for multipart: fetch generates the boundary. */
  contentType?: string;
}

export function buildBody(binding: BodyBinding, args: Args): BuiltBody | undefined {
  const value = bodyValue(binding, args);
  if (value === undefined) return undefined;
  const essence = binding.mediaType.split(";")[0]!.trim().toLowerCase();

  if (essence === "application/json" || essence.endsWith("+json")) {
    return { payload: JSON.stringify(value), contentType: binding.mediaType };
  }
  if (essence === "application/x-www-form-urlencoded") {
    if (!isPlainObject(value)) return { payload: scalarText(value), contentType: binding.mediaType };
    const form = new URLSearchParams();
    for (const [path, text] of flattenNested(value, [], "empty-string"))
      form.append(
        formatBracketPath(path, (part) => part),
        text,
      );
    return { payload: form, contentType: binding.mediaType };
  }
  if (essence === "multipart/form-data") {
    return { payload: toFormData(value) };
  }
  if (essence.includes("*")) {
    // A wildcard is not a valid Content-Type; say what we actually send.
    return typeof value === "string"
      ? { payload: value, contentType: "text/plain; charset=utf-8" }
      : { payload: JSON.stringify(value), contentType: "application/json" };
  }
  return { payload: typeof value === "string" ? value : JSON.stringify(value), contentType: binding.mediaType };
}

function bodyValue(binding: BodyBinding, args: Args): unknown {
  if (binding.mode === "property") {
    // Never invent a body the caller did not give; input validation enforces `required`.
    return args[binding.arg];
  }
  const body: PlainObject = {};
  for (const [arg, property] of Object.entries(binding.properties)) {
    if (args[arg] !== undefined) body[property] = args[arg];
  }
  if (Object.keys(body).length === 0 && !binding.required) return undefined;
  return body;
}

/**
 * Top-level properties become parts; arrays of scalars repeat the part name;
 * objects are sent as JSON text, OpenAPI's default encoding for them.
 */
function toFormData(value: unknown): FormData {
  const form = new FormData();
  if (!isPlainObject(value)) {
    form.append("value", typeof value === "string" ? value : JSON.stringify(value));
    return form;
  }
  for (const [key, item] of definedEntries(value)) {
    if (Array.isArray(item) && item.every(isScalar)) for (const element of item) form.append(key, scalarText(element));
    else if (isScalar(item) || item === null) form.append(key, scalarText(item));
    else form.append(key, JSON.stringify(item));
  }
  return form;
}
