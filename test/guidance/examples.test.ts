import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { createExampleGenerator } from "../../src/guidance/examples/index.js";
import { createAjv } from "../../templates/server/src/runtime/shared/ajv.js";
import type { JsonSchema } from "../../src/model/ir.js";

const obj = (properties: Record<string, JsonSchema>, required: string[] = [], extra: JsonSchema = {}): JsonSchema => ({
  type: "object",
  properties,
  required,
  ...extra,
});

/** Table: schema → optional extra check on the produced examples. */
const cases: Array<
  [string, JsonSchema, ((ex: { minimal: Record<string, unknown>; full: Record<string, unknown> }) => void)?]
> = [
  ["empty object", { type: "object" }, (ex) => expect(ex.minimal).toEqual({})],
  [
    "required only in minimal",
    obj({ a: { type: "string" }, b: { type: "integer" } }, ["a"]),
    (ex) => {
      expect(Object.keys(ex.minimal)).toEqual(["a"]);
      expect(Object.keys(ex.full).sort()).toEqual(["a", "b"]);
    },
  ],
  [
    "spec examples preferred",
    obj({ a: { type: "string", examples: ["hello"] } }, ["a"]),
    (ex) => expect(ex.minimal["a"]).toBe("hello"),
  ],
  ["spec default preferred", obj({ n: { type: "integer", default: 7 } }), (ex) => expect(ex.full["n"]).toBe(7)],
  ["first enum value", obj({ s: { enum: ["first", "second"] } }, ["s"]), (ex) => expect(ex.minimal["s"]).toBe("first")],
  ["const", obj({ k: { const: "fixed" } }, ["k"]), (ex) => expect(ex.minimal["k"]).toBe("fixed")],
  [
    "invalid spec example replaced",
    obj({ a: { type: "integer", examples: ["nope"], minimum: 10, multipleOf: 5 } }, ["a"]),
  ],
  [
    "invalid object example replaced",
    obj({ a: obj({ x: { type: "integer" } }, ["x"], { examples: [{ x: "bad" }] }) }, ["a"]),
  ],
  [
    "formats",
    obj(
      Object.fromEntries(
        [
          "date",
          "time",
          "date-time",
          "email",
          "uri",
          "uri-reference",
          "uuid",
          "ipv4",
          "ipv6",
          "hostname",
          "byte",
          "duration",
          "json-pointer",
          "regex",
          "idn-email",
          "iri",
        ].map((f) => [f.replace(/-/g, "_"), { type: "string", format: f }]),
      ),
      ["date", "date_time", "email", "uuid", "byte"],
    ),
  ],
  ["format with maxLength", obj({ id: { type: "string", format: "uuid", maxLength: 36 } }, ["id"])],
  [
    // AWS's binary members: json-schema-faker would build a string up to 2 GiB long, one character at a time.
    "format faker does not know, with a huge maxLength",
    obj({ blob: { type: "string", format: "password", maxLength: 2147483647 } }, ["blob"]),
    (ex) => expect((ex.full["blob"] as string).length).toBeLessThan(100),
  ],
  [
    "known format with a huge maxLength",
    obj({ at: { type: "string", format: "date-time", maxLength: 1048576 } }, ["at"]),
    (ex) => expect(ex.full["at"]).toMatch(/^\d{4}-\d{2}-\d{2}T/),
  ],
  [
    "pattern",
    obj({ code: { type: "string", pattern: "^[A-Z]{3}-\\d{4}$" } }, ["code"]),
    (ex) => expect(ex.minimal["code"]).toMatch(/^[A-Z]{3}-\d{4}$/),
  ],
  ["unicode pattern faker cannot do", obj({ u: { type: "string", pattern: "^\\p{L}+$" } }, ["u"])],
  [
    "nullable union",
    obj({ n: { type: ["string", "null"], minLength: 2 } }, ["n"]),
    (ex) => expect(typeof ex.minimal["n"]).toBe("string"),
  ],
  [
    "oneOf objects",
    obj(
      {
        pet: {
          oneOf: [
            obj({ kind: { const: "cat" } }, ["kind"]),
            obj({ kind: { const: "dog" }, bark: { type: "boolean" } }, ["kind", "bark"]),
          ],
        },
      },
      ["pet"],
    ),
  ],
  ["ambiguous oneOf number/integer", obj({ v: { oneOf: [{ type: "number" }, { type: "integer" }] } }, ["v"])],
  [
    "root anyOf of required sets",
    { ...obj({ a: { type: "string" }, b: { type: "string" } }), anyOf: [{ required: ["a"] }, { required: ["b"] }] },
  ],
  [
    "allOf merge",
    obj(
      {
        v: {
          allOf: [
            { type: "integer", minimum: 5 },
            { maximum: 7, multipleOf: 3 },
          ],
        },
      },
      ["v"],
    ),
    (ex) => expect(ex.minimal["v"]).toBe(6),
  ],
  ["additionalProperties false", obj({ a: { type: "string" } }, ["a"], { additionalProperties: false })],
  [
    "readOnly excluded",
    obj({ id: { type: "string", readOnly: true }, name: { type: "string" } }),
    (ex) => expect(ex.full).not.toHaveProperty("id"),
  ],
  [
    "numeric bounds",
    obj(
      {
        a: { type: "number", exclusiveMinimum: 0, exclusiveMaximum: 1 },
        b: { type: "integer", minimum: 3, maximum: 3 },
        c: { type: "number", multipleOf: 0.25, minimum: 0.3, maximum: 0.6 },
      },
      ["a", "b", "c"],
    ),
  ],
  [
    "uniqueItems with small enum",
    obj({ a: { type: "array", items: { enum: ["x", "y", "z"] }, minItems: 3, uniqueItems: true } }, ["a"]),
  ],
  [
    "minProperties on a map",
    obj({ meta: { type: "object", additionalProperties: { type: "string" }, minProperties: 2 } }, ["meta"]),
  ],
  ["dependentRequired", obj({ a: { type: "string" }, b: { type: "string" } }, [], { dependentRequired: { a: ["b"] } })],
  [
    "if/then",
    obj({ k: { enum: ["a", "b"] }, z: { type: "string" } }, ["k"], {
      if: { properties: { k: { const: "a" } } },
      then: { required: ["z"] },
    }),
  ],
  [
    "deep required chain",
    obj(
      {
        a: obj({ b: obj({ c: obj({ d: obj({ e: obj({ f: { type: "string" } }, ["f"]) }, ["e"]) }, ["d"]) }, ["c"]) }, [
          "b",
        ]),
      },
      ["a"],
    ),
  ],
  ["long minLength", obj({ s: { type: "string", minLength: 40 } }, ["s"])],
  [
    "arrays capped",
    obj({ tags: { type: "array", items: { type: "string" } } }, ["tags"]),
    (ex) => expect((ex.full["tags"] as unknown[]).length).toBeLessThanOrEqual(2),
  ],
  ["arrays honour minItems", obj({ tags: { type: "array", items: { type: "integer" }, minItems: 4 } }, ["tags"])],
  [
    "prefixItems",
    obj({ t: { type: "array", prefixItems: [{ type: "string" }, { type: "integer" }], items: false } }, ["t"]),
  ],
];

describe("createExampleGenerator().build", () => {
  const gen = createExampleGenerator();
  const ajv = createAjv();

  it.each(cases)("%s: both examples pass the tool's validator", (_name, schema, check) => {
    const out = gen.build(schema, 42);
    expect(out.problems).toEqual([]);
    expect(out.examples).toBeDefined();
    const validate = ajv.compile(schema);
    expect(validate(out.examples!.minimal), JSON.stringify(validate.errors)).toBe(true);
    expect(validate(out.examples!.full), JSON.stringify(validate.errors)).toBe(true);
    check?.(out.examples!);
  });

  it("is reproducible for a fixed seed", () => {
    const schema = obj(
      { a: { type: "string" }, b: { type: "integer" }, c: { type: "array", items: { type: "string" } } },
      ["a"],
    );
    expect(createExampleGenerator().build(schema, 7)).toEqual(createExampleGenerator().build(schema, 7));
  });

  it("never returns an invalid example: unsatisfiable schemas get a problem instead", () => {
    for (const schema of [
      obj({ a: { type: "string", minLength: 5, maxLength: 2 } }, ["a"]),
      obj({ a: { not: {} } }, ["a"]),
      obj({ a: { type: "integer", minimum: 5, maximum: 1 } }, ["a"]),
    ]) {
      const out = gen.build(schema, 1);
      expect(out.examples).toBeUndefined();
      expect(out.problems.length).toBeGreaterThan(0);
    }
  });

  it("reports a schema Ajv cannot compile", () => {
    const out = gen.build(obj({ a: { type: "string", pattern: "([" } }, ["a"]), 1);
    expect(out.examples).toBeUndefined();
    expect(out.problems[0]).toMatch(/does not compile/);
  });

  it("does not mutate the schema, even when it uses the schema's own example objects", () => {
    const schema = obj({ a: obj({ x: { type: "integer" } }, ["x"], { examples: [{ x: 1 }] }) }, ["a"]);
    const before = JSON.stringify(schema);
    const out = gen.build(schema, 3);
    (out.examples!.full["a"] as Record<string, unknown>)["x"] = 99;
    expect(JSON.stringify(schema)).toBe(before);
  });

  it("keeps recursive-looking nested structures small", () => {
    // A DAG like a dereferenced spec: each level's schema object is shared by 20 properties.
    const node = (depth: number): JsonSchema => {
      if (depth === 0) return { type: "string" };
      const child = node(depth - 1);
      return obj(Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`p${i}`, child])), ["p0"]);
    };
    const out = gen.build(node(3), 1);
    expect(out.examples).toBeDefined();
    expect(JSON.stringify(out.examples!.full).length).toBeLessThan(20_000);
  });

  it("property: random simple schemas always yield valid examples", () => {
    const leaf = fc.oneof(
      fc.record({
        type: fc.constant("string"),
        minLength: fc.integer({ min: 0, max: 5 }),
        maxLength: fc.integer({ min: 5, max: 30 }),
      }),
      fc.record({
        type: fc.constant("integer"),
        minimum: fc.integer({ min: -50, max: 0 }),
        maximum: fc.integer({ min: 1, max: 50 }),
      }),
      fc.record({
        type: fc.constant("string"),
        format: fc.constantFrom("email", "uuid", "date-time", "uri", "date", "ipv4"),
      }),
      fc.record({ enum: fc.uniqueArray(fc.string({ minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 4 }) }),
      fc.record({
        type: fc.constant(["number", "null"]),
        exclusiveMinimum: fc.constant(0),
        multipleOf: fc.constantFrom(0.5, 2, 10),
      }),
      fc.record({
        type: fc.constant("array"),
        items: fc.constant({ type: "boolean" }),
        maxItems: fc.integer({ min: 0, max: 3 }),
      }),
    );
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.string({ minLength: 1, maxLength: 6 }).filter((s) => s !== "__proto__"),
          leaf,
          { maxKeys: 6 },
        ),
        fc.integer(),
        (props, seed) => {
          const names = Object.keys(props);
          const schema = obj(props as Record<string, JsonSchema>, names.slice(0, 2), { additionalProperties: false });
          const out = gen.build(schema, seed);
          // No examples is allowed only when the generator reports why.
          if (!out.examples)
            return out.problems.length > 0 && out.problems.every((problem) => problem.trim().length > 0);
          const validate = ajv.compile(schema);
          return validate(out.examples.minimal) && validate(out.examples.full);
        },
      ),
      { numRuns: 150 },
    );
  });
});
