/** The nesting limit holds the same for JSON (checked by a scan of the text) as for YAML (checked by a walk). */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonNestingWithin, MAX_NESTING, parseSpecText } from "../../src/load/index.js";

/** The depth of a parsed value, the top level counting as 1 for a container. */
function depthOf(value: unknown): number {
  if (typeof value !== "object" || value === null) return 0;
  return 1 + Math.max(0, ...Object.values(value).map(depthOf));
}

/** JSON nested `depth` containers deep (objects and arrays alternating; the top-level value is 1); strings hold brackets and escapes. */
function nested(depth: number): string {
  let text = '{"leaf": "} ] \\" [ {"}';
  for (let level = 2; level <= depth; level++)
    text = level % 2 === 0 ? `["[{\\\\", ${text}]` : `{"a${level}": ${text}}`;
  return text;
}

describe("nesting limit", () => {
  it("accepts JSON and YAML nested exactly to the limit, and refuses one level more with the place named", () => {
    const within = nested(MAX_NESTING);
    expect(parseSpecText(within, "spec.json")).toEqual(JSON.parse(within));
    // The same document through the YAML parser (JSON is YAML): the walk agrees.
    expect(parseSpecText(`# yaml\n${within}`, "spec.yaml")).toEqual(JSON.parse(within));

    const over = nested(MAX_NESTING + 1);
    expect(() => parseSpecText(over, "spec.json")).toThrow(/spec\.json#\/.+nested more than \d+ levels deep/);
    expect(() => parseSpecText(`# yaml\n${over}`, "spec.yaml")).toThrow(/nested more than \d+ levels deep/);
  });

  it("does not count brackets inside strings", () => {
    const brackets = JSON.stringify({ text: "[".repeat(MAX_NESTING * 2) + "{".repeat(MAX_NESTING * 2) });
    expect(parseSpecText(brackets, "spec.json")).toEqual(JSON.parse(brackets));
  });

  it("the text scan agrees with the parsed depth, whatever the strings hold", () => {
    const text = fc.string({ unit: fc.constantFrom("\\", '"', "[", "{", "]", "}", "a", "\\u0022") });
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: "small" },
        text,
        fc.array(tie("node"), { maxLength: 3 }),
        fc.dictionary(text, tie("node"), { maxKeys: 3 }),
      ),
    })).node;
    fc.assert(
      fc.property(value, fc.nat(6), fc.boolean(), (parsed, limit, pretty) => {
        const json = JSON.stringify(parsed, null, pretty ? 2 : undefined);
        expect(jsonNestingWithin(json, limit)).toBe(depthOf(parsed) <= limit);
      }),
      { numRuns: 3000 },
    );
  });
});
