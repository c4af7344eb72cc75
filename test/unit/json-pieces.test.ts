import { describe, expect, it } from "vitest";
import { jsonAround, schemaMemberText, schemaText } from "../../src/model/schema-text.js";
import { buildHints, hintsJson } from "../../src/guidance/hints.js";
import { nameSources } from "../../src/guidance/producer-calls.js";
import { toolDataJson } from "../../src/emit/tools-file.js";
import type { JsonSchema } from "../../src/model/ir.js";

/** A small deterministic random source (the same cases every run). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const KEYS = ["type", "properties", "2", "10", "description", "é", 'quo"te', "required", "items", "$ref", "a\nb"];

/** Random JSON-like values: nested objects with integer-like and escaped keys, lists, strings needing escapes. */
function value(next: () => number, depth: number): unknown {
  const pick = next();
  if (depth > 3 || pick < 0.3) return [1, -0.5, "x", 'a"b\\c', "\u2028é", true, null][Math.floor(next() * 7)];
  if (pick < 0.45) return Array.from({ length: Math.floor(next() * 3) }, () => value(next, depth + 1));
  if (pick < 0.5) return undefined;
  const object: Record<string, unknown> = {};
  for (const key of KEYS) if (next() < 0.4) object[key] = value(next, depth + 1);
  return object;
}

describe("a member's text cut out of its object's JSON", () => {
  it("is JSON.stringify of the member, for every own key of random objects", () => {
    const next = random(7);
    let checked = 0;
    for (let round = 0; round < 400; round++) {
      const object = value(next, 0);
      if (typeof object !== "object" || object === null || Array.isArray(object)) continue;
      const json = JSON.stringify(object);
      for (const key of Object.keys(object)) {
        const member = (object as Record<string, unknown>)[key];
        const around = jsonAround(object, key);
        if (member === undefined) {
          expect(around).toBeUndefined();
          continue;
        }
        expect(`${around!.prefix}${JSON.stringify(member)}${around!.suffix}`).toBe(json);
        // A fresh object each round: its text is made here, once.
        expect(schemaMemberText(object as JsonSchema, key)).toBe(JSON.stringify(member));
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(300);
  });

  it("is not made for a missing key, a value without JSON, or an object with a __proto__ member", () => {
    expect(jsonAround({ a: 1 }, "b")).toBeUndefined();
    expect(jsonAround({ a: () => 1 }, "a")).toBeUndefined();
    const withProto = JSON.parse('{"type":"object","__proto__":{"x":1},"properties":{"a":{}}}') as JsonSchema;
    expect(Object.keys(withProto)).toContain("__proto__");
    expect(jsonAround(withProto, "properties")).toBeUndefined();
    expect(schemaMemberText(withProto, "properties")).toBeUndefined();
  });

  it("is not taken from a text that is not the object's", () => {
    const schema: JsonSchema = { type: "object", properties: { a: { type: "string" } } };
    schemaText(schema);
    // Changed after its text was made (which the model never does): the layout check refuses the stale text.
    schema["required"] = ["a"];
    expect(schemaMemberText(schema, "properties")).toBeUndefined();
  });
});

describe("hints serialised with their input schema's properties", () => {
  const body = (): JsonSchema => ({
    type: "object",
    properties: {
      id: { type: "string", description: "The id" },
      "10": { type: "integer", enum: [1, 2] },
      state: { type: "string", default: "open", readOnly: false },
      note: { anyOf: [{ type: "string" }, { type: "null" }] },
    },
    additionalProperties: false,
    required: ["note", "id", "missing"],
    description: "A body",
  });

  it("give JSON.stringify of the hints", () => {
    const schema = body();
    const hints = buildHints(schema, new Set(["id"]));
    expect(hints.full.properties).not.toBe(schema["properties"]);
    expect(hintsJson(hints)).toBe(JSON.stringify(hints));
  });

  it("still do after a producer is named in the typed hints", () => {
    const hints = buildHints(body(), new Set(["id"]));
    nameSources(hints, { id: [{ tool: "list_things", take: "data[].id", call: { tool: "list_things", params: {} } }] });
    expect(hints.typed["id"]!.placeholder).toContain("list_things");
    expect(hintsJson(hints)).toBe(JSON.stringify(hints));
  });

  it("when a readOnly property is left out, a __proto__ property is met, or properties come from allOf", () => {
    const readOnly = body();
    (readOnly["properties"] as Record<string, JsonSchema>)["state"]!["readOnly"] = true;
    const proto = JSON.parse(
      '{"type":"object","properties":{"a":{"type":"string"},"__proto__":{"type":"integer"}},"required":["a"]}',
    ) as JsonSchema;
    const allOf: JsonSchema = {
      allOf: [{ type: "object", properties: { a: { type: "string" } } }],
      properties: { b: { type: "integer" } },
    };
    for (const schema of [readOnly, proto, allOf]) {
      const hints = buildHints(schema);
      expect(hintsJson(hints)).toBe(JSON.stringify(hints));
    }
  });
});

describe("a tool's data serialised with its input schema's text", () => {
  it("gives JSON.stringify of the data, with or without its input schema and guidance", () => {
    const inputSchema: JsonSchema = { type: "object", properties: { q: { type: "string", description: "é\u2028" } } };
    const data = {
      name: "search",
      description: "Searches",
      pointer: "#/paths/~1search/get",
      annotations: { readOnlyHint: true },
      inputSchema,
      responseSchema: { type: "object" },
      guidance: undefined,
    };
    expect(toolDataJson(data as never)).toBe(JSON.stringify(data));
    const { inputSchema: _schema, ...rest } = data;
    expect(toolDataJson(rest as never)).toBe(JSON.stringify(rest));
  });
});
