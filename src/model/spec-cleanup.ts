/**
 * Spec content cleaned for agents:
 *  - HTML in titles and descriptions (Stripe: `<p>Retrieves a Customer object.</p>`)
 *    becomes Markdown, with turndown; text without formatting tags, Markdown
 *    included, is left exactly as written;
 *  - a tool's description joins the operation's summary and description, cut at 4,000 characters;
 *  - a request body that can only ever be `{}` (Stripe declares one on GET
 *    operations) is no argument at all.
 */
import { createRequire } from "node:module";
import type TurndownService from "turndown";
import type { JsonSchema } from "./ir.js";
import { simpleHtmlToMarkdown } from "./simple-html.js";
import type { SpecObject } from "../normalise/index.js";

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

/**
 * Converted texts by their HTML: Stripe repeats the same parameter
 * descriptions on hundreds of operations, and each conversion parses a DOM.
 * Cleared when full, so a long-lived process does not grow without bound.
 */
const converted = new Map<string, string>();
const MAX_CONVERTED = 20_000;

/** Markdown for text that contains HTML tags; any other text unchanged. */
export function htmlToMarkdown(text: string): string {
  if (text.indexOf("<") === -1 || !HTML_TAG.test(text)) return text;
  let markdown = converted.get(text);
  if (markdown === undefined) {
    if (converted.size >= MAX_CONVERTED) converted.clear();
    converted.set(text, (markdown = convertHtml(text)));
  }
  return markdown;
}

function convertHtml(text: string): string {
  const simple = simpleHtmlToMarkdown(text);
  if (simple !== undefined) return simple;
  try {
    return turndown().turndown(text).trim();
  } catch {
    // Unparseable markup: drop the tags rather than show them.
    return text.replace(new RegExp(HTML_TAG.source, "gi"), "").trim();
  }
}

const MAX_DESCRIPTION = 4000;

/** A tool's description: the operation's summary and description (as Markdown), or its method and path. */
export function describeOperation(method: string, path: string, summary: string, operation: SpecObject): string {
  const description = typeof operation.description === "string" ? htmlToMarkdown(operation.description.trim()) : "";
  const parts = [summary, description && description !== summary ? description : ""].filter(Boolean);
  if (operation.deprecated === true) parts.unshift("Deprecated.");
  let text = parts.join("\n\n") || `${method.toUpperCase()} ${path}`;
  if (text.length > MAX_DESCRIPTION) text = text.slice(0, MAX_DESCRIPTION - 1) + "…";
  return text;
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
