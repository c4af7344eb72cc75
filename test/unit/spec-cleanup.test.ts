/**
 * Issue 13 "Spec text cleaned for agents": HTML in titles and descriptions
 * becomes Markdown (Markdown stays as written), and a request body that can
 * only be `{}` is no argument.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { plainHtmlToMarkdown } from "../../src/model/mini-turndown.js";
import { simpleHtmlToMarkdown } from "../../src/model/simple-html.js";
import { htmlToMarkdown, isEmptyBody } from "../../src/model/spec-cleanup.js";
import { DIRECTORY_ROOT, sampleDirectorySpecs } from "../helpers/corpus.js";
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

  it("turns plain HTML into Markdown exactly as turndown does, without a DOM", () => {
    const service = turndownService();
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
      "<p>edge <code> spaced</code> and <code>tick`</code> and <code>``</code></p>",
      '<p>nested <a href="/x"><code>y</code></a> and <strong>a <a href="/y">link</a></strong>.</p>',
      '<p>blank <em> </em> element <a href="/z"> </a> and <b><br></b></p>',
      "<p>Intro:</p>\n<ul>\n<li>one <code>x</code>.</li>\n<li>two</li>\n</ul>\n<p>After.</p>",
      "<ol><li>first</li> <li><p>para</p></li><li>nested<ul><li>inner</li></ul></li></ol>",
      "<ul><li><ul><li>deep</li></ul>tail</li><li></li></ul>",
      "<p>a total of <currency>100</currency> and <amount> 200 </amount> left</p>",
      "line<br>break<br/>twice <br />x",
      '<a href="/a b(c)">spaced</a> <a href="">empty</a>',
      "text <strong> edge</strong>x <em>y </em> z",
      "<p>p in <p>p</p></p>",
      "<p>list in <ul><li>p</li></ul></p>",
      "<p><!-- comment --></p>",
      '<p class="x">attribute</p>',
      "<table><tr><td>cell</td></tr></table>",
      '<a href="/x"><a href="/y">link in link</a></a>',
      "<p>unclosed <b>bold</p>",
      "<P>upper</P>",
    ];
    for (const text of cases) {
      const expected = service.turndown(text).trim();
      expect(htmlToMarkdown(text), text).toBe(expected);
      const tree = plainHtmlToMarkdown(text);
      if (tree !== undefined) expect(tree, text).toBe(expected);
    }
    expect(simpleHtmlToMarkdown(cases[9]!)).toBe("a `b` c, [the docs](/docs/api).\n\n**s** *e***b***i*");
    expect(simpleHtmlToMarkdown(cases[14]!)).toBe("Intro:\n\n-   one `x`.\n-   two\n\nAfter.");
    // Whatever the HTML parser might build otherwise is left to turndown.
    for (const text of cases.slice(-8)) expect(simpleHtmlToMarkdown(text), text).toBeUndefined();
    expect(simpleHtmlToMarkdown(cases[8]!)).toBeUndefined();
  });

  it("gives turndown's Markdown for the HTML texts of real specs, and every one of Stripe's without turndown", () => {
    const service = turndownService();
    const specs = [
      join(DIRECTORY_ROOT, "stripe.com.json"),
      createRequire(import.meta.url).resolve("@octokit/openapi/generated/api.github.com.json"),
      ...sampleDirectorySpecs(60),
    ];
    let compared = 0;
    for (const spec of specs) {
      const texts = htmlTexts(JSON.parse(readFileSync(spec, "utf8")));
      for (const text of texts) {
        const simple = simpleHtmlToMarkdown(text);
        if (spec.endsWith("stripe.com.json")) expect(simple, text).toBeDefined();
        if (simple === undefined) continue;
        const expected = service.turndown(text).trim();
        expect(simple, `${spec}: ${text}`).toBe(expected);
        // The tree alone too, for the plain paragraphs simple-html.ts's regular expressions take first.
        const tree = plainHtmlToMarkdown(text);
        if (tree !== undefined) expect(tree, `${spec}: ${text}`).toBe(expected);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(1000);
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

function turndownService(): { turndown: (html: string) => string } {
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
  return service;
}

/** Every description, summary and title of a spec that has formatting tags (as spec-cleanup.ts tells them), trimmed as the model does. */
function htmlTexts(document: unknown): Set<string> {
  const texts = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(walk);
    else if (typeof node === "object" && node !== null) {
      for (const [key, value] of Object.entries(node)) {
        if (typeof value !== "string") walk(value);
        else if (["description", "summary", "title"].includes(key) && SPEC_CLEANUP_TAG.test(value)) {
          texts.add(value);
          texts.add(value.trim());
        }
      }
    }
  };
  walk(document);
  return texts;
}

const SPEC_CLEANUP_TAG =
  /<\/?(p|a|br|hr|code|pre|em|strong|b|i|u|s|ul|ol|li|h[1-6]|table|thead|tbody|tr|td|th|blockquote|span|div|dl|dt|dd|sup|sub|img|kbd|var|small)(\s[^<>]*)?\/?>/i;
