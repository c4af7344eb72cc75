/**
 * The only ways a string from a spec may enter a generated file.
 *
 * `codeLiteral` is the single escaping helper for code: it turns any value
 * into a JavaScript/TypeScript literal that cannot break out of its position,
 * whatever the string holds (quotes, backticks, `${`, `*\/`, `</script>`,
 * U+2028/2029). Spec content normally travels in JSON data files instead;
 * this is for the few places a template needs a value inline.
 */
export function codeLiteral(value: unknown): string {
  const json = JSON.stringify(value ?? null);
  // In an object literal (unlike JSON) `"__proto__": x` sets the prototype instead of a property;
  // JSON.parse keeps it a property. (Such a value is code, not JSON; templates' JSON files get strings.)
  if (/"__proto__":/.test(json)) return `JSON.parse(${inert(JSON.stringify(json))})`;
  return inert(json);
}

function inert(json: string): string {
  return (
    json
      .replace(/\u2028/g, "\\u2028")
      .replace(/\u2029/g, "\\u2029")
      .replace(/</g, "\\u003c")
      .replace(/>/g, "\\u003e")
      .replace(/\*\//g, "*\\u002f")
      // Inert in a string literal, but a backtick or `${` would end or open code inside a template literal.
      .replace(/`/g, "\\u0060")
      .replace(/\$/g, "\\u0024")
  );
}

/** Words that cannot name a binding in strict-mode TypeScript modules. */
const RESERVED_WORDS = new Set(
  (
    "break case catch class const continue debugger default delete do else enum export extends false finally for function if import in instanceof " +
    "new null return super switch this throw true try typeof var void while with implements interface let package private protected public " +
    "static yield await arguments eval undefined NaN Infinity"
  ).split(" "),
);

/** A TypeScript identifier derived from a name; anything else is replaced, and reserved words are prefixed. */
export function identifier(name: string, prefix = "tool_"): string {
  const candidate = prefix + name.replace(/[^a-zA-Z0-9_]/g, "_");
  return /^[0-9]/.test(candidate) || candidate === "" || RESERVED_WORDS.has(candidate) ? `_${candidate}` : candidate;
}

/** Text for Markdown prose: one line, no HTML, no code fences or table breaks. */
export function markdownText(value: unknown, maxLength = 300): string {
  const text = String(value ?? "")
    .replace(/[\r\n\u2028\u2029]+/g, " ")
    .replace(/[<>]/g, (char) => (char === "<" ? "&lt;" : "&gt;"))
    .replace(/([`|*_[\]\\])/g, "\\$1")
    .trim();
  return text.length > maxLength ? text.slice(0, maxLength - 1) + "…" : text;
}

/** A value inside Markdown inline code (env var names, tool names): backticks cannot appear in them. */
export function markdownCode(value: unknown): string {
  return (
    "`" +
    String(value ?? "")
      .replace(/`/g, "'")
      .replace(/[\r\n]+/g, " ") +
    "`"
  );
}

/**
 * A value for a dotenv line (`NAME=value`) that stays inert when the file is
 * sourced by a shell: plain when it holds only URL-safe characters, otherwise
 * single-quoted (literal for both dotenv and sh), with any quote or line
 * break inside percent-encoded (the values are URLs, so their meaning stays).
 */
export function envValue(value: unknown): string {
  const text = String(value ?? "");
  if (/^[A-Za-z0-9:/?#@%._~+,=[\]-]*$/.test(text)) return text;
  return `'${text.replace(/['\r\n\u2028\u2029]/g, (char) => encodeURIComponent(char).replace("'", "%27"))}'`;
}
