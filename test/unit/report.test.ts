import { describe, expect, it } from "vitest";
import type { ToolData } from "../../src/model/ir.js";
import { compareTools, formatReport } from "../../src/report/index.js";

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
