/**
 * What turndown (as spec-cleanup.ts configures it) makes of simple HTML,
 * without building a DOM: paragraphs of text with inline `<code>`, `<a href>`,
 * `<strong>`/`<b>` and `<em>`/`<i>` (Stripe's descriptions). Whitespace is
 * collapsed as turndown's `collapseWhitespace` does over the paragraph's text
 * nodes in order; paragraphs are a blank line apart. Anything it is not sure
 * of (entities, nesting, blank elements, whitespace at an element's edge,
 * which turndown moves outside it) goes to mini-turndown.ts, which runs
 * turndown's own steps on a small tree (lists, nested tags, line breaks,
 * unknown tags; about three times the cost of these regular expressions, so
 * it comes second), and what that is unsure of, to turndown. A test checks
 * both answers against turndown on real descriptions.
 */
import { plainHtmlToMarkdown } from "./mini-turndown.js";

const INLINE = '<(code|strong|b|em|i)>([^<>&\\0]+)</\\1>|<a href="([^"<>&\\0\\s()]+)">([^<>&\\0]+)</a>';
const SIMPLE = new RegExp(`^(?:[ \\t\\r\\n]*<p>(?:[^<>&\\0]|${INLINE})*</p>)+[ \\t\\r\\n]*$`);
const PIECE = new RegExp(`${INLINE}|([^<]+)`, "g");
const WRAP: Record<string, string> = { code: "`", strong: "**", b: "**", em: "*", i: "*" };

/** Markdown for simple HTML, or undefined when turndown must decide. */
export function simpleHtmlToMarkdown(text: string): string | undefined {
  return paragraphsToMarkdown(text) ?? plainHtmlToMarkdown(text);
}

/** Plain paragraphs with inline tags, matched by regular expressions (Stripe: 411 of 416 texts). */
function paragraphsToMarkdown(text: string): string | undefined {
  if (!SIMPLE.test(text)) return undefined;
  const paragraphs: string[] = [];
  for (const [, inner] of text.matchAll(/<p>(.*?)<\/p>/gs)) {
    const paragraph = convertParagraph(inner!);
    if (paragraph === undefined) return undefined;
    paragraphs.push(paragraph);
  }
  return paragraphs.join("\n\n").trim();
}

/** One paragraph's inline content; undefined when blank or unsure. */
function convertParagraph(inner: string): string | undefined {
  let previous: string | undefined;
  const collapse = (raw: string): string => {
    let text = raw.replace(/[ \r\n\t]+/g, " ");
    if ((previous === undefined || previous.endsWith(" ")) && text.startsWith(" ")) text = text.slice(1);
    if (text !== "") previous = text;
    return text;
  };
  const parts: Array<{ text: string; wrap?: (content: string) => string }> = [];
  for (const [, tag, tagged, href, linked, plain] of inner.matchAll(PIECE)) {
    if (plain !== undefined) {
      parts.push({ text: collapse(plain) });
      continue;
    }
    const content = collapse(tagged ?? linked!);
    // turndown moves an element's edge whitespace outside it, and drops blank or backtick-holding code differently.
    if (content === "" || /^\s|\s$/.test(content) || (tag === "code" && content.includes("`"))) return undefined;
    parts.push({ text: content, wrap: tag ? (c) => WRAP[tag] + c + WRAP[tag] : (c) => `[${c}](${href})` });
  }
  // At the paragraph's end the last text node loses a trailing space; an element's content must not.
  const last = [...parts].reverse().find((part) => part.text !== "");
  if (last?.text.endsWith(" ")) {
    if (last.wrap) return undefined;
    last.text = last.text.slice(0, -1);
  }
  const paragraph = parts.map((part) => (part.wrap ? part.wrap(part.text) : part.text)).join("");
  return /^\s*$/.test(paragraph) ? undefined : paragraph;
}
