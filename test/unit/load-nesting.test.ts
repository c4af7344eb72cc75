/** The nesting limit holds the same for JSON (checked by a scan of the text) as for YAML (checked by a walk). */
import { describe, expect, it } from "vitest";
import { MAX_NESTING, parseSpecText } from "../../src/load/index.js";

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
});
