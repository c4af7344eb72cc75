/**
 * The generation-time interpreter (src/model/interpret/) against the server's Ajv on tricky cases:
 * same verdicts, same error lists (verbose and plain), fallback to Ajv for what it does not implement,
 * and fail-closed generation errors carrying Ajv's own message. The interpreter's view of Ajv (its
 * keyword lists and rule order) is checked against a real Ajv instance.
 */
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ApiModel, JsonSchema } from "../../src/model/ir.js";
import { interpretable, interpretSchema } from "../../src/model/interpret/index.js";
import { AJV_KEYWORDS, RULE_ORDER, RULES_ALL } from "../../src/model/interpret/vocabulary.js";
import { compileInputValidators } from "../../src/model/validators.js";
import { createAjv } from "../../templates/server/src/runtime/shared/ajv.js";
import { ajvs, compareErrors } from "../helpers/interpret-check.js";

const require = createRequire(import.meta.url);

/** Ajv's and the interpreter's outcomes on `values`, verbose and plain; returns the verdicts seen. */
function expectSameAsAjv(schema: JsonSchema, values: unknown[]): boolean[] {
  const verdicts: boolean[] = [];
  for (const verbose of [true, false]) {
    const interpreted = interpretSchema(schema, { verbose });
    expect(interpreted, JSON.stringify(schema)).toBeDefined();
    const ajv = (verbose ? ajvs.verbose : ajvs.plain).compile(schema);
    for (const value of values) {
      const expected = ajv(value);
      const label = `${JSON.stringify(schema)} on ${JSON.stringify(value)}`;
      expect(interpreted!(value), label).toBe(expected);
      if (verbose) verdicts.push(expected);
      if (expected) expect(interpreted!.errors, label).toBeNull();
      else expect(compareErrors(ajv.errors ?? [], interpreted!.errors ?? [], verbose), label).toBeUndefined();
    }
  }
  return verdicts;
}

const ANY_VALUES: unknown[] = [null, true, 0, -1, 1.5, 2 ** 40, "", "text", [], [1, "1"], {}, { a: 1 }];

const CASES: Array<[string, JsonSchema, unknown[]]> = [
  ["float multipleOf", { type: "number", multipleOf: 0.01 }, [0.07, 1.1, 19.99, 0.3, 1e-7, 4.35, 1e21]],
  ["multipleOf 0.1", { multipleOf: 0.1, maximum: 1, exclusiveMinimum: 0 }, [0.3, 0.7, 1.2, 0, -0.1]],
  ["unicode property pattern", { type: "string", pattern: "^\\p{L}+$" }, ["héllo", "abc1", "日本", ""]],
  ["astral pattern", { pattern: "^.$" }, ["😀", "ab", "a"]],
  ["astral lengths", { type: "string", maxLength: 1, minLength: 1 }, ["😀", "😀😀", "", "\ud83d", "a\ud83d"]],
  [
    "formats",
    {
      type: "object",
      properties: Object.fromEntries(
        ["date", "date-time", "time", "email", "uri", "uuid", "int32", "int64", "byte", "password", "repo.nwo"].map(
          (format) => [format, { format }],
        ),
      ),
    },
    [
      { date: "2024-02-30", "date-time": "2024-01-01T00:00:00Z", time: "25:00:00Z", email: "a@b" },
      { date: "2024-02-29", "date-time": "yesterday", uri: "relative/path", uuid: "123" },
      { int32: 2 ** 31, int64: 1.5, byte: "abc", password: 5, "repo.nwo": "x", uuid: 12 },
      { int32: "12", date: 20240101 },
    ],
  ],
  [
    "nested anyOf in oneOf",
    {
      oneOf: [
        { type: "object", required: ["a"], properties: { a: { anyOf: [{ type: "string" }, { type: "integer" }] } } },
        { type: "object", required: ["b"], additionalProperties: false, properties: { b: { enum: [1, 2] } } },
        { type: "string", minLength: 3 },
      ],
    },
    [{ a: "x" }, { a: 1.5 }, { b: 1 }, { a: 1, b: 2 }, { b: 3, c: 1 }, "ab", "abcd", 5, {}],
  ],
  [
    "oneOf with three passing branches (Ajv stops at the second)",
    { oneOf: [{ type: "number", maximum: 10 }, { type: "number", minimum: 0 }, { type: "integer" }] },
    [5, 50, -5.5, 20.5, "x"],
  ],
  ["oneOf with an always-valid branch", { oneOf: [{ description: "only" }, { type: "string" }] }, ["x", 1]],
  ["type error positions", { type: "string", enum: ["a", "b"], maxLength: 1 }, ["a", "c", "cc", 1, null]],
  ["integer with a number rule", { type: "integer", minimum: 0, multipleOf: 2 }, [2, 3, -2, 1.5, "x"]],
  ["type lists", { type: ["string", "null"], maxLength: 2 }, ["ab", "abc", null, 1, [], {}]],
  [
    "objects or arrays",
    { type: ["object", "array", "null"], minItems: 1, minProperties: 1 },
    [[], {}, null, 1, [1], { a: 1 }],
  ],
  [
    "inherited and odd property names",
    {
      type: "object",
      required: ["constructor", "a/b", "c~d"],
      properties: {
        constructor: { type: "string" },
        "a/b": { type: "integer" },
        "c~d": { const: 1 },
        "é ü": { type: "null" },
      },
      additionalProperties: false,
    },
    [
      {},
      { "a/b": "x", "c~d": 2, "é ü": 1 },
      { constructor: "x", "a/b": 1, "c~d": 1 },
      JSON.parse('{"__proto__": 1, "constructor": "x", "a/b": 1, "c~d": 1}'),
    ],
  ],
  [
    "more than eight properties and an additional-properties schema",
    {
      type: "object",
      properties: Object.fromEntries("abcdefghij".split("").map((k) => [k, { type: "string" }])),
      additionalProperties: { type: "integer", maximum: 3 },
    },
    [{ a: "x", z: 2 }, { a: 1, z: 9, y: "q" }, JSON.parse('{"__proto__": 5}')],
  ],
  [
    "uniqueItems, typed and deep",
    {
      type: "object",
      properties: {
        mixed: { type: "array", uniqueItems: true, items: { type: ["string", "number", "boolean", "null"] } },
        strings: { type: "array", uniqueItems: true, items: { type: "string" } },
        deep: { type: "array", uniqueItems: true, items: { type: "object" } },
        any: { type: "array", uniqueItems: true, maxItems: 3 },
      },
    },
    [
      { mixed: [1, "1", true, "true", null, "null"], strings: ["a", "b", "a"], deep: [{ a: [1] }, { a: [1] }] },
      { mixed: [1, 2, 1], strings: ["__proto__", "__proto__"], any: [[1], [1], {}, 2] },
      { mixed: ["x", "x"], deep: [{ a: 1 }, { a: 2 }], any: [1, "1"] },
    ],
  ],
  ["not", { not: { type: "string", minLength: 2 } }, ["a", "ab", 1]],
  ["not of an always-valid schema", { not: { title: "anything" } }, ["a", 1]],
  ["const and enum of objects", { const: { a: [1, { b: null }] } }, [{ a: [1, { b: null }] }, { a: [1] }, null]],
  [
    "enum of 200+ values",
    { enum: [...Array.from({ length: 210 }, (_, i) => i), { x: 1 }] },
    [5, 209, 210, { x: 1 }, "5"],
  ],
  ["false schemas", { type: "object", properties: { never: false }, items: false }, [{ never: 1 }, {}]],
  [
    "array items",
    { type: "array", minItems: 2, maxItems: 3, items: { type: "integer", minimum: 1 } },
    [[1, 2], [0], [1, 2, 3, 4.5], "x"],
  ],
  [
    "allOf",
    { allOf: [{ required: ["a"] }, { properties: { a: { type: "string" } } }, {}] },
    [{}, { a: 1 }, { a: "x" }, 1],
  ],
  [
    "keywords whose value is undefined (as Ajv, absent)",
    {
      type: "object",
      description: undefined,
      required: undefined,
      properties: { a: { type: undefined, minimum: 1, items: undefined, format: undefined } },
      additionalProperties: undefined,
    },
    [{ a: 0 }, { a: 2 }, { b: 1 }],
  ],
  [
    "definitions nothing refers to",
    {
      type: "object",
      properties: { a: { type: "string" } },
      definitions: { line: { type: "object", required: ["x"] } },
      $defs: { other: { enum: [1] } },
    },
    [{ a: "x" }, { a: 1 }],
  ],
  ["annotations only", { title: "t", description: "d", examples: [1], "x-any": { type: "string" } }, ANY_VALUES],
];

/** Cases whose schema gives every value the same verdict. */
const ONE_VERDICT = new Set(["annotations only", "not of an always-valid schema"]);

describe("the interpreter gives Ajv's verdicts and errors", () => {
  for (const [label, schema, values] of CASES) {
    it(label, () => {
      const verdicts = expectSameAsAjv(schema, [...values, ...ANY_VALUES]);
      if (!ONE_VERDICT.has(label)) expect(new Set(verdicts).size, "both verdicts seen").toBe(2);
    });
  }
});

describe("what the interpreter leaves to Ajv", () => {
  const unsupported: Array<[string, JsonSchema]> = [
    [
      "$ref recursion",
      { $defs: { node: { type: "object", properties: { next: { $ref: "#/$defs/node" } } } }, $ref: "#/$defs/node" },
    ],
    ["$id", { $id: "https://example.com/x", type: "string" }],
    ["if/then/else", { if: { type: "string" }, then: { minLength: 1 } }],
    ["patternProperties", { patternProperties: { "^x": { type: "string" } } }],
    ["prefixItems", { prefixItems: [{ type: "string" }] }],
    ["contains", { contains: { type: "string" } }],
    ["nullable", { type: "string", nullable: true }],
    ["unevaluatedProperties", { unevaluatedProperties: false }],
    ["a format named like an Object member", { format: "constructor" }],
    ["-0 as a limit", { maximum: -0 }],
    // Ajv compiles it (it never compiles a definition nothing refers to); the interpreter leaves any doubt to Ajv.
    ["an invalid regex in definitions nothing refers to", { definitions: { a: { pattern: "([0-9" } } }],
  ];
  for (const [label, schema] of unsupported) {
    it(`${label}: no interpreted validator, and generation compiles it with Ajv`, () => {
      expect(interpretable(schema)).toBe(false);
      expect(interpretSchema(schema, { verbose: true })).toBeUndefined();
      const model = { tools: [{ name: "t", pointer: "#/paths/~1t/post", inputSchema: schema }] } as unknown as ApiModel;
      const validate = compileInputValidators(model).get("t")!;
      const server = createAjv().compile(schema);
      for (const value of ANY_VALUES) expect(validate(value)).toBe(server(value));
    });
  }
});

describe("fail closed without compiling", () => {
  /** Schemas the server's Ajv refuses to compile, one per way it can refuse. */
  const broken: Array<[string, JsonSchema]> = [
    ["an unknown type", { type: "strnig" }],
    ["a repeated type", { type: ["string", "string"] }],
    ["an empty type list", { type: [] }],
    ["a negative length", { minLength: -1 }],
    ["a fractional count", { maxItems: 1.5 }],
    ["a length written as text", { maxLength: "5" }],
    ["required that is not a list", { required: "a" }],
    ["repeated required names", { required: ["a", "a"] }],
    ["a title that is not text", { title: 5 }],
    ["examples that are not a list", { examples: "x" }],
    ["deprecated that is not a boolean", { deprecated: "yes" }],
    ["properties that are a list", { properties: [] }],
    ["a property schema that is null", { properties: { a: null } }],
    ["items as a list (draft-07 tuples)", { items: [{ type: "string" }] }],
    ["an empty anyOf", { anyOf: [] }],
    ["a zero multipleOf", { multipleOf: 0 }],
    ["an empty enum", { enum: [] }],
    ["an invalid regex", { pattern: "([0-9" }],
    ["a regex valid only without the unicode flag", { pattern: "\\-" }],
    ["a regex with \\Z", { pattern: "^a\\Z" }],
    ["a $ref that resolves nowhere", { properties: { a: { $ref: "#/nowhere" } } }],
    ["keyword id", { id: "x", type: "string" }],
    ["nullable without type", { nullable: true }],
    ["nullable false with type null", { type: "null", nullable: false }],
    ["$async in a subschema", { properties: { a: { $async: true, type: "string" } } }],
    ["a format that is not text", { format: 5 }],
    ["a uniqueItems that is not a boolean", { uniqueItems: "yes" }],
  ];
  for (const [label, schema] of broken) {
    it(`${label}: a located generation error with Ajv's message`, () => {
      let expected: string | undefined;
      try {
        createAjv().compile(schema);
      } catch (error) {
        expected = (error as Error).message;
      }
      expect(expected, `Ajv refuses ${JSON.stringify(schema)}`).toBeDefined();
      expect(interpretable(schema)).toBe(false);
      const tools = [
        { name: "fine", pointer: "#/paths/~1fine/post", inputSchema: { type: "object" } },
        { name: "broken", pointer: "#/paths/~1broken/post", inputSchema: schema },
      ];
      expect(() => compileInputValidators({ tools } as unknown as ApiModel)).toThrow(
        `#/paths/~1broken/post: the input schema of tool broken cannot be compiled (${expected})`,
      );
    });
  }
});

describe("the interpreter's view of Ajv", () => {
  const ajv = createAjv() as unknown as {
    RULES: {
      rules: Array<{ type?: string; rules: Array<{ keyword: string }> }>;
      post: { rules: unknown[] };
      all: Record<string, unknown>;
      keywords: Record<string, unknown>;
    };
  };

  it("evaluates rule groups and keywords in Ajv's order", () => {
    const [untyped, ...typed] = ajv.RULES.rules;
    expect(untyped!.rules.map((rule) => rule.keyword)).toEqual(RULE_ORDER.any);
    expect(typed.map((group) => ({ type: group.type, keywords: group.rules.map((rule) => rule.keyword) }))).toEqual(
      RULE_ORDER.groups,
    );
    expect(ajv.RULES.post.rules).toEqual([]);
  });

  it("knows every keyword Ajv and the 2020-12 meta-schema know", () => {
    expect([...RULES_ALL].sort()).toEqual(Object.keys(ajv.RULES.all).sort());
    for (const keyword of Object.keys(ajv.RULES.keywords)) expect(AJV_KEYWORDS.has(keyword), keyword).toBe(true);
    const metaDir = join(dirname(require.resolve("ajv/dist/refs/json-schema-2020-12/schema.json")), "meta");
    const metas = [join(metaDir, "..", "schema.json"), ...readdirSync(metaDir).map((file) => join(metaDir, file))];
    for (const file of metas) {
      const meta = JSON.parse(readFileSync(file, "utf8")) as { properties?: Record<string, unknown> };
      for (const keyword of Object.keys(meta.properties ?? {})) expect(AJV_KEYWORDS.has(keyword), keyword).toBe(true);
    }
  });
});
