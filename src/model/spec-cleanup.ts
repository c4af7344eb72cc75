/**
 * Spec content cleaned for agents:
 *  - HTML in titles and descriptions (Stripe: `<p>Retrieves a Customer object.</p>`)
 *    becomes Markdown, with turndown; text without formatting tags, Markdown
 *    included, is left exactly as written;
 *  - a request body that can only ever be `{}` (Stripe declares one on GET
 *    operations) is no argument at all.
 */
import { createRequire } from "node:module";
import type TurndownService from "turndown";
import type { JsonSchema } from "./ir.js";

/**
 * Text formatting markup only: a description that merely mentions `</script>`
 * or `<T>` is prose about tags, and passes through byte for byte.
 */
const HTML_TAG =
  /<\/?(p|a|br|hr|code|pre|em|strong|b|i|u|s|ul|ol|li|h[1-6]|table|thead|tbody|tr|td|th|blockquote|span|div|dl|dt|dd|sup|sub|img|kbd|var|small)(\s[^<>]*)?\/?>/i;

let service: TurndownService | undefined;

function turndown(): TurndownService {
  if (!service) {
    // Loaded on first use (with its DOM, ~60 ms): most specs have no HTML, and a warm regeneration models few operations.
    const Turndown = createRequire(import.meta.url)("turndown") as typeof TurndownService;
    service = new Turndown({
      headingStyle: "atx",
      codeBlockStyle: "fenced",
      bulletListMarker: "-",
      emDelimiter: "*",
    });
    // Text around the tags may already be Markdown: keep it as written rather than escaping it.
    service.escape = (text: string) => text;
  }
  return service;
}

/** Markdown for text that contains HTML tags; any other text unchanged. */
export function htmlToMarkdown(text: string): string {
  if (!HTML_TAG.test(text)) return text;
  try {
    return turndown().turndown(text).trim();
  } catch {
    // Unparseable markup: drop the tags rather than show them.
    return text.replace(new RegExp(HTML_TAG.source, "gi"), "").trim();
  }
}

/** An object schema that accepts only `{}`: no properties, nothing additional, no alternatives. */
export function isEmptyBody(schema: JsonSchema): boolean {
  const properties = schema["properties"];
  const noProperties =
    properties === undefined ||
    (typeof properties === "object" && properties !== null && Object.keys(properties).length === 0);
  return (
    schema["type"] === "object" &&
    noProperties &&
    schema["additionalProperties"] === false &&
    !["patternProperties", "allOf", "anyOf", "oneOf", "if", "unevaluatedProperties"].some((k) => k in schema)
  );
}
