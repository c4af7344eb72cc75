import { describe, expect, it, vi } from "vitest";
import type { ToolData } from "../../src/model/ir.js";
import { compareTools, formatReport } from "../../src/report/index.js";
import { compareToolsText, toolSpans } from "../../src/report/text.js";

const tool = (
  name: string,
  pointer: string,
  properties: Record<string, unknown>,
  required: string[] = [],
): ToolData => ({
  name,
  description: name,
  category: "default",
  pointer,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  inputSchema: { type: "object", properties, required },
  guidance: {
    hints: { minimal: { required: [], optional: [] }, typed: {}, full: { required: [], properties: {} } },
    examples: { minimal: {}, full: {} },
    links: [],
  },
});

describe("change report", () => {
  it.each([
    ["added tool", [], [tool("a", "#/a", {})], [{ kind: "added", tool: "a", breaking: false }]],
    ["removed tool", [tool("a", "#/a", {})], [], [{ kind: "removed", tool: "a", breaking: true }]],
    [
      "renamed tool (same operation)",
      [tool("a", "#/a", {})],
      [tool("b", "#/a", {})],
      [{ kind: "renamed", tool: "b", from: "a", breaking: true }],
    ],
    [
      "new required parameter",
      [tool("a", "#/a", { x: { type: "string" } })],
      [tool("a", "#/a", { x: { type: "string" }, y: { type: "string" } }, ["y"])],
      [{ kind: "changed", breaking: true, details: ["BREAKING: new required parameter `y`"] }],
    ],
    [
      "new optional parameter",
      [tool("a", "#/a", {})],
      [tool("a", "#/a", { y: { type: "string" } })],
      [{ kind: "changed", breaking: false, details: ["new optional parameter `y`"] }],
    ],
    [
      "type narrowed",
      [tool("a", "#/a", { x: { type: ["string", "integer"] } })],
      [tool("a", "#/a", { x: { type: "integer" } })],
      [{ kind: "changed", breaking: true }],
    ],
    [
      "integer to number is widening",
      [tool("a", "#/a", { x: { type: "integer" } })],
      [tool("a", "#/a", { x: { type: "number" } })],
      [],
    ],
    [
      "enum narrowed",
      [tool("a", "#/a", { x: { enum: ["a", "b"] } })],
      [tool("a", "#/a", { x: { enum: ["a"] } })],
      [{ kind: "changed", breaking: true, details: ['BREAKING: parameter `x` enum narrowed (removed "b")'] }],
    ],
    [
      "enum widened",
      [tool("a", "#/a", { x: { enum: ["a"] } })],
      [tool("a", "#/a", { x: { enum: ["a", "b"] } })],
      [{ kind: "changed", breaking: false }],
    ],
    ["parameter removed", [tool("a", "#/a", { x: {} })], [tool("a", "#/a", {})], [{ kind: "changed", breaking: true }]],
    [
      "maximum tightened",
      [tool("a", "#/a", { x: { type: "integer", maximum: 100 } })],
      [tool("a", "#/a", { x: { type: "integer", maximum: 50 } })],
      [{ kind: "changed", breaking: true }],
    ],
    ["unchanged", [tool("a", "#/a", { x: { type: "string" } })], [tool("a", "#/a", { x: { type: "string" } })], []],
  ] as const)("%s", (_name, before, after, expected) => {
    const report = compareTools(before as ToolData[], after as ToolData[]);
    expect(report.changes).toHaveLength(expected.length);
    expected.forEach((change, index) => expect(report.changes[index]).toMatchObject(change));
  });

  it("formats a readable report with breaking labels", () => {
    const report = compareTools(
      [tool("a", "#/a", {}), tool("gone", "#/g", {})],
      [tool("b", "#/a", {}), tool("new", "#/n", {})],
    );
    const text = formatReport(report, "API 2");
    expect(text).toContain("- BREAKING removed: `gone`");
    expect(text).toContain("- BREAKING renamed: `a` → `b`");
    expect(text).toContain("- added: `new`");
    expect(text).toContain("3 change(s), 2 breaking.");
  });
});

describe("change report from the tools file's text (only differing tools parsed)", () => {
  const many = Array.from({ length: 40 }, (_, i) =>
    tool(`t${i}`, `#/paths/t${i}`, { q: { type: "string", description: `"quoted" \\ [${i}] {x}` } }),
  );
  const compact = (tools: ToolData[]) => JSON.stringify({ api: { name: "x" }, tools }) + "\n";
  const edit = (tools: ToolData[], at: number, change: Partial<ToolData>) =>
    tools.map((t, i) => (i === at ? { ...t, ...change } : t));
  const variants: Record<string, ToolData[]> = {
    "description edited": edit(many, 7, { description: "new text" }),
    "first and last edited": edit(edit(many, 0, { description: "a" }), 39, { description: "b" }),
    "tool removed": many.filter((_, i) => i !== 20),
    "tool added": [...many.slice(0, 3), tool("zz", "#/paths/zz", {}), ...many.slice(3)],
    "tool renamed": edit(many, 11, { name: "t11_v2" }),
    "tool moved": [many[5]!, ...many.slice(0, 5), ...many.slice(6)],
    "required parameter": edit(many, 30, { inputSchema: { type: "object", properties: { q: {} }, required: ["q"] } }),
    "no tools": [],
    unchanged: many,
  };
  it.each(Object.entries(variants))("%s: the same report as comparing every tool, both ways", (_name, next) => {
    expect(compareToolsText(compact(many), compact(next), next)).toEqual(compareTools(many, next));
    expect(compareToolsText(compact(next), compact(many), many)).toEqual(compareTools(next, many));
  });

  it("parses only the tools that differ", () => {
    const next = edit(many, 7, { description: "new text" });
    const parse = vi.spyOn(JSON, "parse");
    try {
      compareToolsText(compact(many), compact(next), next);
      // The previous version of the edited tool, and nothing else of the file.
      expect(parse.mock.calls.map(([text]) => text)).toEqual([JSON.stringify(many[7])]);
    } finally {
      parse.mockRestore();
    }
  });

  it("gives the same report as comparing every tool after random edits, API changes and non-ASCII texts", () => {
    let seed = 7;
    const random = (below: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % below;
    };
    const texts = ["café", "🚀 launch", "plain", '"q" \\ ]}', ""];
    for (let round = 0; round < 200; round++) {
      let next = [...many];
      for (let edits = 1 + random(3); edits > 0; edits--) {
        const at = random(next.length + 1);
        const action = random(4);
        if (action === 0 && next.length > 0) next.splice(Math.min(at, next.length - 1), 1);
        else if (action === 1) next.splice(at, 0, tool(`n${round}-${edits}`, `#/paths/n${round}`, {}));
        else if (action === 2 && next.length > 0)
          next = edit(next, Math.min(at, next.length - 1), { description: texts[random(texts.length)]! });
        else if (next.length > 1) next.push(next.splice(Math.min(at, next.length - 1), 1)[0]!);
      }
      const api = round % 5 === 0 ? { name: `x${round}` } : { name: "x" };
      const after = JSON.stringify({ api, tools: next }) + "\n";
      expect(compareToolsText(compact(many), after, next)).toEqual(compareTools(many, next));
      expect(compareToolsText(after, compact(many), many)).toEqual(compareTools(next, many));
    }
  });

  it("finds each tool's JSON in a compact file, and refuses other layouts", () => {
    const text = compact(many);
    const spans = toolSpans(text)!;
    expect(spans.map(([start, end]) => JSON.parse(text.slice(start, end)) as ToolData)).toEqual(many);
    expect(toolSpans(JSON.stringify({ api: {}, tools: many }, null, 2))).toBeUndefined();
    expect(toolSpans(JSON.stringify({ tools: many, api: {} }))).toBeUndefined();
    expect(toolSpans(compact(many).slice(0, -10))).toBeUndefined();
  });

  it("falls back to parsing the whole file for another layout, and reports nothing for a damaged one", () => {
    const next = edit(many, 7, { description: "new text" });
    const indented = JSON.stringify({ api: {}, tools: many }, null, 2) + "\n";
    expect(compareToolsText(indented, compact(next), next)).toEqual(compareTools(many, next));
    expect(compareToolsText(compact(many).replace('{"name":"t9"', '{"name":t9'), compact(next), next)).toBeUndefined();
    expect(compareToolsText("not json", compact(next), next)).toBeUndefined();
  });
});
