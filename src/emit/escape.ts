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
  return json
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029")
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/\*\//g, "*\\u002f");
}

/** A TypeScript identifier derived from a name; anything else is replaced, and reserved words are prefixed. */
export function identifier(name: string, prefix = "tool_"): string {
  const cleaned = name.replace(/[^a-zA-Z0-9_]/g, "_");
  return prefix + cleaned;
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
  return "`" + String(value ?? "").replace(/`/g, "'").replace(/[\r\n]+/g, " ") + "`";
}
