/**
 * Typed results until one render: outcomes, built-in tools and the tool modes work on `ToolOutcome` values, and
 * `renderOutcome` (guidance/result.ts, the default `Outcomes.render`) is the one function that writes the text of a
 * `CallToolResult`.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { GuidedError } from "../../templates/server/src/runtime/call/types.js";
import { guidedOutcomes } from "../../templates/server/src/runtime/guidance/outcomes.js";
import { renderOutcome } from "../../templates/server/src/runtime/guidance/result.js";
import { presentWith } from "../../templates/server/src/runtime/modes/presentation.js";

const RUNTIME = join(import.meta.dirname, "..", "..", "templates", "server", "src", "runtime");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : [],
  );
}

const error: GuidedError = {
  code: "INVALID_ARGUMENTS",
  message: "petId is missing",
  severity: "high",
  tool: "get_pet",
  issues: [{ field: "petId", code: "MISSING_REQUIRED", problem: "missing", expected: "an integer", fix: "Add petId" }],
  suggestions: {},
  corrective_params: { petId: 1 },
  next_steps: [{ tool: "get_pet", params: { petId: 1 }, note: "Corrected call" }],
};

describe("the one render", () => {
  it("is the only place in the runtime that writes a result's text", () => {
    const writers = sources(RUNTIME)
      .filter((file) => /type: "text"/.test(readFileSync(file, "utf8").replace(/^\s*(\/\/|\/?\*).*$/gm, "")))
      .map((file) => relative(RUNTIME, file));
    expect(writers).toEqual(["guidance/result.ts"]);
    expect(guidedOutcomes.render).toBe(renderOutcome);
  });

  it("renders an error value: the specific code, the text from the same value as structuredContent", () => {
    const result = renderOutcome({ kind: "error", error });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ error: { code: "MISSING_REQUIRED", tool: "get_pet" } });
    expect(result.content).toEqual([{ type: "text", text: expect.stringMatching(/^❌ MISSING_REQUIRED: petId/) }]);
  });

  it("renders what the mode's presentation made of the value, once", () => {
    const express = (step: { tool: string; params: Record<string, unknown> }) =>
      step.tool === "get_pet" ? { ...step, tool: "pets", params: { action: "get_pet", params: step.params } } : step;
    const presented = presentWith({ kind: "error", error }, express, (name) =>
      name === "get_pet" ? { tool: "pets", wrap: (params) => ({ action: name, params }) } : undefined,
    );
    const result = renderOutcome(presented);
    const structured = (result.structuredContent as { error: GuidedError }).error;
    expect(structured.tool).toBe("pets");
    expect(structured.corrective_params).toEqual({ action: "get_pet", params: { petId: 1 } });
    const text = (result.content[0] as { text: string }).text;
    expect(text).toContain("Call `pets` with:");
    expect(text).toContain('"action": "get_pet"');
    expect(error.tool).toBe("get_pet"); // the value presented is a new one; the outcome's own is untouched
  });

  it("passes a built-in answer's text and a user hook's own result through", () => {
    expect(renderOutcome({ kind: "answer", text: "3 tools", structured: { tool_count: 3 } })).toEqual({
      content: [{ type: "text", text: "3 tools" }],
      structuredContent: { tool_count: 3 },
    });
    const own: CallToolResult = { content: [{ type: "text", text: "mine" }], isError: true };
    expect(renderOutcome({ kind: "rendered", result: own })).toBe(own);
    expect(
      presentWith(
        { kind: "rendered", result: own },
        (step) => step,
        () => undefined,
      ),
    ).toEqual({
      kind: "rendered",
      result: own,
    });
  });
});
