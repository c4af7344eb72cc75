import { describe, expect, it } from "vitest";
import { buildHints, describeType } from "../../src/guidance/hints.js";

describe("describeType", () => {
  it.each([
    [{ type: "string" }, "string"],
    [{ type: ["string", "null"] }, "string|null"],
    [{}, "any"],
    [undefined, "any"],
    [{ oneOf: [{ type: "string" }, { type: "integer" }] }, "string|integer"],
    [{ anyOf: [{ type: "string", format: "date" }, { type: "null" }] }, "string|null"],
    [{ anyOf: [{ type: "string" }, {}] }, "any"],
    [{ allOf: [{ description: "x" }, { type: "object" }] }, "object"],
    [{ enum: ["a", "b", null] }, "string|null"],
    [{ const: 3 }, "integer"],
    [{ type: ["integer", "number"] }, "number"],
    [{ properties: { a: {} } }, "object"],
    [{ items: { type: "string" } }, "array"],
  ])("%j → %s", (schema, expected) => {
    expect(describeType(schema as never)).toBe(expected);
  });
});

describe("buildHints", () => {
  const schema = {
    type: "object",
    description: "Search the catalogue",
    properties: {
      pattern: { type: "string", description: "Search pattern (regex supported)", examples: ["User.*"], minLength: 1 },
      filter: { type: ["string", "null"] },
      max: { type: "integer", default: 50, minimum: 1 },
      order: { enum: ["asc", "desc"] },
      kind: { anyOf: [{ enum: ["a", "b"] }, { type: "null" }] },
      id: { type: "string", readOnly: true },
    },
    required: ["pattern"],
  };
  const hints = buildHints(schema);

  it("minimal lists required and optional names, without readOnly ones", () => {
    expect(hints.minimal).toEqual({ required: ["pattern"], optional: ["filter", "max", "order", "kind"] });
  });

  it("typed gives type, required, default and enum per argument", () => {
    expect(hints.typed).toEqual({
      pattern: { type: "string", required: true },
      filter: { type: "string|null", required: false },
      max: { type: "integer", required: false, default: 50 },
      order: { type: "string", required: false, enum: ["asc", "desc"] },
      kind: { type: "string|null", required: false, enum: ["a", "b", null] },
    });
  });

  it("full keeps every constraint, description and example", () => {
    expect(hints.full.description).toBe("Search the catalogue");
    expect(hints.full.required).toEqual(["pattern"]);
    expect(hints.full.properties["pattern"]).toEqual(schema.properties.pattern);
    expect(hints.full.properties["max"]).toEqual({ type: "integer", default: 50, minimum: 1 });
    expect(hints.full.properties).not.toHaveProperty("id");
  });

  it("handles a schema without properties", () => {
    expect(buildHints({ type: "object" })).toEqual({
      minimal: { required: [], optional: [] },
      typed: {},
      full: { required: [], properties: {} },
    });
  });

  it("merges properties from allOf", () => {
    const h = buildHints({
      type: "object",
      allOf: [{ properties: { a: { type: "string" } }, required: ["a"] }, { properties: { b: { type: "number" } } }],
    });
    expect(h.minimal).toEqual({ required: ["a"], optional: ["b"] });
  });
});
