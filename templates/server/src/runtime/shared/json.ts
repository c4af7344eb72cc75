/**
 * Leaf helpers for JSON values and JSON Pointers (RFC 6901), shared by the
 * generator and the generated runtime. Imports nothing.
 */

/** A JSON object: not null, not an array. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The JSON Schema type of a value: `null`, `array`, `integer`, `number`, `string`, `boolean`, `object`. */
export function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** Escapes one reference token: `~` becomes `~0`, `/` becomes `~1`. */
export function escapePointerToken(token: string | number): string {
  return String(token).replace(/~/g, "~0").replace(/\//g, "~1");
}

export function unescapePointerToken(token: string): string {
  return token.replace(/~1/g, "/").replace(/~0/g, "~");
}

/** `["a", "b/c"]` -> `/a/b~1c`. */
export function formatPointer(tokens: readonly (string | number)[]): string {
  return tokens.map((token) => "/" + escapePointerToken(token)).join("");
}

const parsed = new Map<string, readonly string[]>();

/**
 * Splits `/a/b~1c` (or `#/a/b`) into unescaped tokens; memoised, since
 * pointers repeat. The text is taken literally: `%25` stays `%25`. For a
 * `$ref` fragment, which is URI-encoded, use `parseFragmentPointer`.
 */
export function parsePointer(pointer: string): readonly string[] {
  let tokens = parsed.get(pointer);
  if (tokens) return tokens;
  let text = pointer.startsWith("#") ? pointer.slice(1) : pointer;
  if (text.startsWith("#")) text = text.slice(1);
  tokens =
    text === ""
      ? []
      : text
          .slice(text.startsWith("/") ? 1 : 0)
          .split("/")
          .map(unescapePointerToken);
  if (parsed.size > 5000) parsed.clear();
  parsed.set(pointer, tokens);
  return tokens;
}

/**
 * A URI fragment pointer (`#/components/schemas/Caf%C3%A9`): percent-decoded
 * first (RFC 6901 §6), then split like `parsePointer`. Text that is not valid
 * percent-encoding is kept as is.
 */
export function parseFragmentPointer(pointer: string): string[] {
  let text = pointer.startsWith("#") ? pointer.slice(1) : pointer;
  try {
    text = decodeURIComponent(text);
  } catch {
    // Not percent-encoded after all: keep it literal.
  }
  if (text === "") return [];
  return text.split("/").slice(1).map(unescapePointerToken);
}
