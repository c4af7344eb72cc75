import { describe, expect, it } from "vitest";
import type { Diagnostic } from "../../src/model/ir.js";
import { exponentialBacktracking, repeatsAroundChoice } from "../../src/model/regex-safety.js";
import { toJsonSchema } from "../../src/model/schema.js";

const BEEZUP_URL = String.raw`^(https?:\/\/)?([\da-z\.-]+)\.([a-z\.]{2,6})([\/\w \.-]*)*\/?$`;
/** What the property's description says once the pattern is left out. */
const URL_RULE = `(must match ${JSON.stringify(BEEZUP_URL)}; checked by the API, not here)`;

describe("patterns that backtrack exponentially", () => {
  it.each([
    // [why, pattern, kind, culprits]
    ["nested star (beezup.com)", BEEZUP_URL, "nested quantifier", [String.raw`([\/\w \.-]*)*`]],
    ["the textbook case", "^(a+)+$", "nested quantifier", ["(a+)+"]],
    [
      "optional separator between repeated runs (azure.com)",
      "^[a-zA-Z0-9]+([._]?[a-zA-Z0-9]+)*$",
      "nested quantifier",
      ["([._]?[a-zA-Z0-9]+)*"],
    ],
    [
      "separator the inner class also matches (webflow.com)",
      String.raw`^[A-Za-z0-9][-+._A-Za-z0-9]*@([-_.A-Za-z0-9]+\.)+[A-Za-z]{2,}$`,
      "nested quantifier",
      [String.raw`([-_.A-Za-z0-9]+\.)+`],
    ],
    [
      "two quantifiers trading digits in a repetition (tomtom.com)",
      String.raw`^((\d+\.?\d*,\d+\.?\d*):?)+$`,
      "overlapping quantifiers",
      [String.raw`\d+`, String.raw`\d*`],
    ],
    [
      "a large bound is as bad as a star (sagemaker)",
      String.raw`^https://([.\-_a-zA-Z0-9]+/?){3,1016}$`,
      "nested quantifier",
      [String.raw`([.\-_a-zA-Z0-9]+/?){3,1016}`],
    ],
    ["identical branches under a star", "^(a|a)*$", "repeated alternatives that overlap", ["(a|a)*"]],
    [
      "overlapping classes under a star",
      String.raw`^(\w|\d)*$`,
      "repeated alternatives that overlap",
      [String.raw`(\w|\d)*`],
    ],
    ["overlapping branches inside a repeated group", "^(x(a|a))*$", "repeated alternatives that overlap", ["(a|a)"]],
    [
      "a bounded inner quantifier that scslre does not model (a realistic 'words' pattern)",
      String.raw`^(?:[\p{L}\p{N}]{1,50}[ -]?){1,200}$`,
      "repetition that splits one text in two ways",
      [String.raw`(?:[\p{L}\p{N}]{1,50}[ -]?){1,200}`],
    ],
    [
      "an optional separator inside the repeated group (azure.com frontdoor)",
      "^[a-zA-Z0-9]+([-a-zA-Z0-9]?[a-zA-Z0-9])*$",
      "repetition that splits one text in two ways",
      ["([-a-zA-Z0-9]?[a-zA-Z0-9])*"],
    ],
    ["multi-character nesting", "^((ab)*)*$", "repetition that splits one text in two ways", ["((ab)*)*"]],
    [
      "branches that concatenate to another",
      "^(a|ab|b)*$",
      "repetition that splits one text in two ways",
      ["(a|ab|b)*"],
    ],
  ])("flags %s", (_why, pattern, kind, culprits) => {
    expect(repeatsAroundChoice(pattern)).toBe(true);
    expect(exponentialBacktracking(pattern)).toMatchObject({ kind, culprits });
  });

  it.each([
    ["a separator the repeated part cannot match", String.raw`^[a-z]{2,6}(\.[a-z]+)*$`],
    ["hyphenated words", "^[a-zA-Z0-9]+(-[a-zA-Z0-9]+)*$"],
    ["comma-separated list", "^([a-z]+,)*[a-z]+$"],
    [
      "base64 (GitHub): a fixed-length repeated group",
      "^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$",
    ],
    ["a small bound", "^(a+){2,5}$"],
    ["a UUID with an exact repetition", "^[a-z0-9]{8}(-[a-z0-9]{4}){3}-[a-z0-9]{12}$"],
    ["disjoint branches under a star", "^(a|b)*$"],
    ["alternation not repeated", "^(application|audio)/.+$"],
    ["nothing after the repetition can fail a search", String.raw`arn:(aws|aws-cn):x:([\w:-]+)*`],
    ["polynomial only (left alone: not exponential)", String.raw`^\s*\w*\s*$`],
    ["escaped parentheses and quantifier characters in a class", String.raw`^(\([a-z]\))+$|^[\(\)a-z+*]*$`],
    ["a date", String.raw`^\d{4}-\d{2}-\d{2}$`],
  ])("leaves %s", (_why, pattern) => {
    expect(exponentialBacktracking(pattern)).toBeUndefined();
  });

  it("the text scan passes over patterns without a repeated group around a choice", () => {
    expect(repeatsAroundChoice(String.raw`^\d{4}-\d{2}-\d{2}$`)).toBe(false);
    expect(repeatsAroundChoice("^(?:[A-Za-z0-9+/]{4})*$")).toBe(false);
    expect(repeatsAroundChoice(String.raw`^(\(a\)[+*|?])+$`)).toBe(false);
    expect(repeatsAroundChoice("^(a+){3}$")).toBe(false);
    expect(repeatsAroundChoice("^((a)b+)+$")).toBe(true);
  });

  it("offers a rewrite when the repeated group holds only the inner quantifier", () => {
    expect(exponentialBacktracking(BEEZUP_URL)?.rewrite).toBe(String.raw`[\/\w \.-]*`);
    expect(exponentialBacktracking("^(a+)+$")?.rewrite).toBe("a+");
  });
});

describe("schema conversion drops such a pattern with a located warning", () => {
  const convert = (schema: unknown, direction: "input" | "output") => {
    const diagnostics: Diagnostic[] = [];
    const out = toJsonSchema(schema, "#/components/schemas/Store", { direction, maxDepth: 8, diagnostics });
    return { out, diagnostics };
  };
  const store = {
    type: "object",
    properties: {
      url: { type: "string", pattern: BEEZUP_URL, maxLength: 200 },
      code: { type: "string", pattern: "^[A-Z]{2}$" },
    },
  };

  it("keeps the rule in the description, after the spec's own text; a very long pattern is only mentioned", () => {
    const long = `^(a|a)*${"b".repeat(300)}$`;
    const { out } = convert(
      {
        type: "object",
        properties: {
          url: { type: "string", description: "The store's address.", pattern: BEEZUP_URL },
          code: { type: "string", pattern: long },
        },
      },
      "input",
    );
    const properties = out.properties as Record<string, Record<string, unknown>>;
    expect(properties.url?.description).toBe(`The store's address. ${URL_RULE}`);
    expect(properties.code).toEqual({
      type: "string",
      description: "(must match a pattern; checked by the API, not here)",
    });
  });

  it.each(["input", "output"] as const)("in %s schemas", (direction) => {
    const { out, diagnostics } = convert(store, direction);
    const properties = out.properties as Record<string, Record<string, unknown>>;
    expect(properties.url).toEqual({ type: "string", maxLength: 200, description: URL_RULE });
    expect(properties.code?.pattern).toBe("^[A-Z]{2}$");
    expect(diagnostics).toEqual([
      {
        pointer: "#/components/schemas/Store/properties/url/pattern",
        severity: "warning",
        message: String.raw`this pattern can take exponential time on a non-matching value (nested quantifier "([\/\w \.-]*)*")`,
        fix:
          "left out of validation so one bad argument cannot freeze the server; the API still enforces it. " +
          String.raw`Rewrite it without nested repetition (e.g. "[\/\w \.-]*") to have it checked`,
      },
    ]);
  });

  it("keeps benign patterns untouched and silent", () => {
    const { out, diagnostics } = convert({ type: "string", pattern: String.raw`^[a-z]{2,6}(\.[a-z]+)*$` }, "input");
    expect(out).toEqual({ type: "string", pattern: String.raw`^[a-z]{2,6}(\.[a-z]+)*$` });
    expect(diagnostics).toEqual([]);
  });
});

describe("a pattern Ajv cannot compile is dropped with a located warning instead of failing the tool", () => {
  const convert = (schema: unknown) => {
    const diagnostics: Diagnostic[] = [];
    const out = toJsonSchema(schema, "#/components/schemas/S", { direction: "input", maxDepth: 8, diagnostics });
    return { out, diagnostics: diagnostics.map(({ pointer, message }) => `${pointer}: ${message}`) };
  };

  it("an invalid patternProperties key, with or without a pattern beside it", () => {
    const key = "^(unclosed";
    expect(convert({ type: "object", patternProperties: { [key]: { type: "string" } } })).toEqual({
      out: { type: "object", patternProperties: {} },
      diagnostics: [
        `#/components/schemas/S/patternProperties/${key}: patternProperties key is not a valid ECMA-262 regular expression, so it is not enforced`,
      ],
    });
  });

  it("a pattern that is not a string (api.video's `pattern: 0`)", () => {
    expect(convert({ type: "string", pattern: 0 })).toEqual({
      out: { type: "string" },
      diagnostics: ["#/components/schemas/S/pattern: pattern is 0, not a string, so it is not enforced"],
    });
  });
});
