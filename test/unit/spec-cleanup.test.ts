/**
 * Issue 13 "Spec text cleaned for agents": HTML in titles and descriptions
 * becomes Markdown (Markdown stays as written), and a request body that can
 * only be `{}` is no argument.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { simpleHtmlToMarkdown } from "../../src/model/simple-html.js";
import { htmlToMarkdown, isEmptyBody } from "../../src/model/spec-cleanup.js";
import { DIRECTORY_ROOT } from "../helpers/corpus.js";
import { modelFrom } from "../helpers/pipeline.js";

const HTML_TAG = /<\/?[a-z][a-z0-9]*(\s[^<>]*)?\/?>/i;

describe("spec text", () => {
  it("turns HTML into Markdown", () => {
    expect(htmlToMarkdown("<p>Retrieves a Customer object.</p>")).toBe("Retrieves a Customer object.");
    expect(htmlToMarkdown('<p>See <a href="https://stripe.com/docs">the docs</a> and <code>expand</code>.</p>')).toBe(
      "See [the docs](https://stripe.com/docs) and `expand`.",
    );
    expect(htmlToMarkdown("<ul><li>one</li><li>two</li></ul>")).toMatch(/^-\s+one\n-\s+two$/);
  });

  it("turns simple paragraphs into Markdown exactly as turndown does, without a DOM", async () => {
    const { createRequire } = await import("node:module");
    const Turndown = createRequire(import.meta.url)("turndown") as new (options: object) => {
      escape: (text: string) => string;
      turndown: (html: string) => string;
    };
    const service = new Turndown({
      headingStyle: "atx",
      codeBlockStyle: "fenced",
      bulletListMarker: "-",
      emDelimiter: "*",
    });
    service.escape = (text) => text;
    const cases = [
      "<p>Retrieves the details of an existing customer.</p>",
      "<p> a  b </p>",
      "<p>a</p>\n\n<p>b\n c</p>\n",
      "  <p>\u00a0x\u00a0</p>",
      "<p>x\r\ny</p><p>*a* _b_ `c` \\d</p>",
      "<p>a\tb</p>   <p>1. first</p><p>- item</p><p>#hash</p>",
      "<p>x\u2028y\u000c z</p>",
      "<p>blank next</p><p> </p>",
      "<p>entity &amp; stays turndown's</p>",
      '<p>a <code>b</code> c, <a href="/docs/api">the docs</a>.</p><p><strong>s</strong> <em>e</em><b>b</b><i>i</i></p>',
      "<p>a<code>b</code>c  <code>x</code> </p>",
      "<p>edge <code> spaced</code> and <code>tick`</code></p>",
      '<p>nested <a href="/x"><code>y</code></a></p>',
      "<p>blank <em> </em> element</p>",
    ];
    for (const text of cases) expect(htmlToMarkdown(text), text).toBe(service.turndown(text).trim());
    // The simple cases are converted without turndown; the rest are left to it.
    expect(simpleHtmlToMarkdown(cases[9]!)).toBe("a `b` c, [the docs](/docs/api).\n\n**s** *e***b***i*");
    expect(simpleHtmlToMarkdown('<p>nested <a href="/x"><code>y</code></a></p>')).toBeUndefined();
    expect(simpleHtmlToMarkdown("<p>entity &amp;</p>")).toBeUndefined();
  });

  it("leaves Markdown and plain text exactly as written", () => {
    for (const text of [
      "Plain text.",
      "**Bold** and `code` and snake_case_name",
      "Fewer than <5 items, a -> b",
      "# Heading\n\n- item",
      "Returns List<T>; never emits </script> or <!-- -->",
    ]) {
      expect(htmlToMarkdown(text)).toBe(text);
    }
  });

  it("knows an empty body", () => {
    expect(isEmptyBody({ type: "object", properties: {}, additionalProperties: false })).toBe(true);
    expect(isEmptyBody({ type: "object", additionalProperties: false })).toBe(true);
    expect(isEmptyBody({ type: "object" })).toBe(false); // free-form
    expect(isEmptyBody({ type: "object", properties: { a: { type: "string" } }, additionalProperties: false })).toBe(
      false,
    );
  });

  it("Stripe: no HTML tags in tool titles and descriptions, and no empty body argument", async () => {
    const model = await modelFrom(join(DIRECTORY_ROOT, "stripe.com.json"));
    expect(model.tools.length).toBeGreaterThan(400);
    for (const tool of model.tools) {
      expect(tool.description, tool.name).not.toMatch(HTML_TAG);
      expect(tool.title ?? "", tool.name).not.toMatch(HTML_TAG);
      for (const [arg, schema] of Object.entries(
        (tool.inputSchema["properties"] ?? {}) as Record<string, Record<string, unknown>>,
      )) {
        expect(isEmptyBody(schema), `${tool.name}.${arg}`).toBe(false);
      }
    }
    const getCustomer = model.tools.find((t) => t.name === "get_customers_customer")!;
    expect(getCustomer.description).toBe("Retrieves a Customer object.");
    expect(Object.keys(getCustomer.inputSchema["properties"] as object)).toEqual(["customer", "expand"]);
    expect(getCustomer.operation?.body).toBeUndefined();
  });
});
