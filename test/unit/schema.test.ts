import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Diagnostic } from "../../src/model/ir.js";
import { jsonLengthUpTo, mergeAllOfObjects, toJsonSchema } from "../../src/model/schema.js";
import { createAjv } from "../../templates/server/src/runtime/shared/ajv.js";

const input = () => ({ direction: "input" as const, maxDepth: 8, diagnostics: [] as Diagnostic[] });

describe("schema conversion", () => {
  it.each([
    ["nullable with type", { type: "string", nullable: true }, { type: ["string", "null"] }],
    ["nullable without type constrains nothing", { nullable: true, description: "d" }, { description: "d" }],
    ["x-nullable", { type: "integer", "x-nullable": true }, { type: ["integer", "null"] }],
    ["example becomes examples", { type: "string", example: "x" }, { type: "string", examples: ["x"] }],
    [
      "boolean exclusiveMinimum",
      { type: "number", minimum: 1, exclusiveMinimum: true },
      { type: "number", exclusiveMinimum: 1 },
    ],
    ["swagger file type", { type: "file" }, { type: "string", format: "binary" }],
    [
      "tuple items",
      { type: "array", items: [{ type: "string" }] },
      { type: "array", prefixItems: [{ type: "string" }] },
    ],
    ["drops xml and extensions", { type: "string", xml: { name: "x" }, "x-foo": 1 }, { type: "string" }],
    ["an empty enum is dropped", { type: "string", enum: [] }, { type: "string" }],
    ["a required that is no list is dropped", { type: "object", required: "a" }, { type: "object" }],
    [
      "boolean exclusiveMaximum",
      { type: "number", maximum: 5, exclusiveMaximum: true },
      { type: "number", exclusiveMaximum: 5 },
    ],
    ["file in a type list", { type: ["file", "string", "null"] }, { type: ["string", "null"] }],
    [
      "a nullable enum takes null",
      { type: "string", enum: ["a"], nullable: true },
      { type: ["string", "null"], enum: ["a", null] },
    ],
    [
      "keeps constraints",
      { type: "string", minLength: 2, maxLength: 5, pattern: "^a", format: "email", enum: ["ab"], default: "ab" },
      { type: "string", minLength: 2, maxLength: 5, pattern: "^a", format: "email", enum: ["ab"], default: "ab" },
    ],
  ])("%s", (_name, source, expected) => {
    expect(toJsonSchema(source, "#/x", input())).toEqual(expected);
  });

  it("drops readOnly properties from inputs and writeOnly ones from outputs", () => {
    const source = {
      type: "object",
      required: ["id", "name", "secret"],
      properties: {
        id: { type: "string", readOnly: true },
        name: { type: "string" },
        secret: { type: "string", writeOnly: true },
      },
    };
    expect(Object.keys(toJsonSchema(source, "#", input()).properties as object)).toEqual(["name", "secret"]);
    expect(toJsonSchema(source, "#", input()).required).toEqual(["name", "secret"]);
    const output = toJsonSchema(source, "#", { ...input(), direction: "output" });
    expect(Object.keys(output.properties as object)).toEqual(["id", "name"]);
  });

  it("cuts object cycles to a permissive stub and stays compilable", () => {
    const node: Record<string, unknown> = { type: "object", title: "Node", properties: { value: { type: "string" } } };
    (node.properties as Record<string, unknown>).next = node;
    const converted = toJsonSchema(node, "#", input());
    const next = (converted.properties as Record<string, Record<string, unknown>>).next!;
    expect(next.type).toBe("object");
    expect(next.description).toMatch(/recursive Node structure/);
    expect(() => JSON.stringify(converted)).not.toThrow();
    const validate = createAjv().compile(converted);
    expect(validate({ value: "a", next: { anything: 1 } })).toBe(true);
    expect(validate({ value: 1 })).toBe(false);
  });

  it("bounds depth", () => {
    let schema: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 50; i++) schema = { type: "object", properties: { child: schema } };
    const converted = toJsonSchema(schema, "#", { ...input(), maxDepth: 5 });
    expect(JSON.stringify(converted).length).toBeLessThan(1000);
  });

  it("drops an invalid pattern with a located warning instead of failing the tool", () => {
    const context = input();
    const converted = toJsonSchema(
      { type: "object", properties: { a: { type: "string", pattern: "(?<bad" } } },
      "#/paths/~1x/get",
      context,
    );
    expect((converted.properties as Record<string, Record<string, unknown>>).a!.pattern).toBeUndefined();
    expect(context.diagnostics[0]?.pointer).toBe("#/paths/~1x/get/properties/a/pattern");
  });

  it("merges allOf objects", () => {
    const merged = mergeAllOfObjects({
      allOf: [
        { type: "object", required: ["a"], properties: { a: { type: "string" } } },
        { properties: { b: { type: "integer" } }, required: ["b"] },
      ],
    });
    expect(merged).toEqual({
      type: "object",
      properties: { a: { type: "string" }, b: { type: "integer" } },
      required: ["a", "b"],
    });
    expect(mergeAllOfObjects({ allOf: [{ oneOf: [] }] })).toBeUndefined();
  });

  it("keeps the schema's own properties and required beside its allOf (Azure's resource bodies)", () => {
    const merged = mergeAllOfObjects({
      allOf: [{ properties: { location: { type: "string" } }, required: ["location"] }],
      properties: { kind: { type: "string" }, properties: { type: "object" } },
      required: ["kind"],
    });
    expect(merged).toEqual({
      type: "object",
      properties: { location: { type: "string" }, kind: { type: "string" }, properties: { type: "object" } },
      required: ["location", "kind"],
    });
  });
});

import { toBoundedJsonSchema } from "../../src/model/schema.js";

describe("bounded output schemas", () => {
  it("gets shallower until it fits, and still accepts what the full schema accepts", () => {
    let schema: Record<string, unknown> = {
      type: "object",
      properties: { leaf: { type: "string", description: "x".repeat(200) } },
    };
    for (let i = 0; i < 6; i++) schema = { type: "object", properties: { a: schema, b: schema, c: schema } };
    const full = toJsonSchema(schema, "#", { direction: "output", maxDepth: 20, diagnostics: [] });
    const bounded = toBoundedJsonSchema(schema, "#", { direction: "output", maxDepth: 20, diagnostics: [] }, 2000);
    expect(JSON.stringify(full).length).toBeGreaterThan(100_000);
    expect(JSON.stringify(bounded).length).toBeLessThanOrEqual(2000);
    const sample = { a: { b: { c: { a: { b: { c: { leaf: "ok" } } } } } } };
    expect(createAjv().compile(full)(sample)).toBe(true);
    expect(createAjv().compile(bounded)(sample)).toBe(true);
  });
});

describe("jsonLengthUpTo (the size check of bounded schemas)", () => {
  it("is JSON.stringify's length up to the limit, and above the limit past it", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(300), (value, limit) => {
        const exact = JSON.stringify(value).length;
        expect(jsonLengthUpTo(value, Number.MAX_SAFE_INTEGER)).toBe(exact);
        const bounded = jsonLengthUpTo(value, limit);
        if (exact <= limit) expect(bounded).toBe(exact);
        else expect(bounded).toBeGreaterThan(limit);
      }),
      { numRuns: 2000 },
    );
  });

  it("keeps its contract when it reuses what it learnt of shared objects under other limits", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.array(fc.nat(300), { minLength: 1, maxLength: 6 }), (value, limits) => {
        const shared = { value, again: value, list: [value, value] };
        const exact = JSON.stringify(shared).length;
        const known = { exact: new WeakMap<object, number>(), atLeast: new WeakMap<object, number>() };
        for (const limit of limits) {
          const bounded = jsonLengthUpTo(shared, limit, known);
          if (exact <= limit) expect(bounded).toBe(exact);
          else expect(bounded).toBeGreaterThan(limit);
        }
        expect(jsonLengthUpTo(shared, Number.MAX_SAFE_INTEGER, known)).toBe(exact);
      }),
      { numRuns: 1000 },
    );
  });

  it("counts what JSON drops or turns into null", () => {
    const value = {
      a: undefined,
      b: [undefined, () => 1],
      c: '\u2028"',
      d: -0,
      e: 1e21,
      f: Number.NaN,
      ["__proto__"]: 1,
    };
    expect(jsonLengthUpTo(value, 1e9)).toBe(JSON.stringify(value).length);
  });
});
