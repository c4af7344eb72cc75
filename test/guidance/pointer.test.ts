import { describe, expect, it } from "vitest";
import { getAt, schemaAtPath, setAt } from "../../src/guidance/examples/pointer.js";
import type { JsonSchema } from "../../src/model/ir.js";

// Ajv reports where a value fails as a plain JSON pointer (RFC 6901): `~0` and `~1` are escapes, `%` is a character.
const value = () => ({ "p%2541": { "q%41": 1 }, "a/b~c": [{ "%zz": "x" }], plain: { n: 2 } });
const schema: JsonSchema = {
  type: "object",
  properties: {
    "p%2541": { type: "object", properties: { "q%41": { type: "integer", minimum: 3 } } },
    "a/b~c": { type: "array", items: { type: "object", properties: { "%zz": { type: "string", minLength: 4 } } } },
  },
};

const cases: Array<
  [pointer: string, found: unknown, subschema: JsonSchema | undefined, tokens: Array<string | number>]
> = [
  ["", value(), schema, []],
  ["/p%2541/q%41", 1, { type: "integer", minimum: 3 }, ["p%2541", "q%41"]],
  ["/a~1b~0c/0/%zz", "x", { type: "string", minLength: 4 }, ["a/b~c", 0, "%zz"]],
  ["/plain/n", 2, undefined, ["plain", "n"]],
  ["/p%41", undefined, undefined, ["p%41"]],
];

describe("instance paths of the example repair", () => {
  it.each(cases)("%j reads the value and the schema there", (pointer, found, subschema) => {
    expect(getAt(value(), pointer)).toEqual(found);
    expect(schemaAtPath(schema, pointer)).toEqual(subschema);
  });

  it.each(cases.filter(([pointer, found]) => pointer !== "" && found !== undefined))(
    "%j writes where it reads, and nowhere else",
    (pointer, _found, _subschema, tokens) => {
      const holder = { root: value() as unknown };
      setAt(holder, pointer, "fixed");
      const expected: Record<string | number, unknown> = value();
      let parent = expected;
      for (const token of tokens.slice(0, -1)) parent = parent[token] as Record<string | number, unknown>;
      parent[tokens[tokens.length - 1]!] = "fixed";
      expect(holder.root).toEqual(expected);
    },
  );

  it("replaces the whole value at the root", () => {
    const holder = { root: value() as unknown };
    setAt(holder, "", 7);
    expect(holder.root).toBe(7);
  });
});
