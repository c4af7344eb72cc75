import { describe, expect, it } from "vitest";
import { prepareArguments, needsConfirmation } from "../../templates/server/src/runtime/guidance/correct.js";
import { clampNumber } from "../../templates/server/src/runtime/guidance/corrective.js";
import { createAjv } from "../../templates/server/src/runtime/shared/ajv.js";
import { addPet, allTools, deletePet, findPets, getPet, validatorFor } from "./fixtures.js";
import type { ToolData } from "../../templates/server/src/runtime/shared/tool-data.js";

const realAjv = createAjv();

function failWith(tool: ToolData, args: unknown) {
  const prepared = prepareArguments(tool, args, validatorFor(tool));
  expect(prepared.ok).toBe(false);
  if (prepared.ok) throw new Error("unreachable");
  return prepared.error;
}

function expectCorrectivePasses(tool: ToolData, corrective: unknown) {
  expect(corrective).toBeDefined();
  const validate = realAjv.compile(tool.inputSchema);
  expect(validate(corrective), JSON.stringify(validate.errors)).toBe(true);
}

describe("fixtures", () => {
  it("examples are valid", () => {
    for (const t of allTools) {
      const v = realAjv.compile(t.inputSchema);
      expect(v(t.guidance.examples!.minimal), t.name).toBe(true);
      expect(v(t.guidance.examples!.full), t.name).toBe(true);
    }
  });
});

describe("prepareArguments: valid calls", () => {
  it("passes valid args through, reports defaults only in resolved_inputs, never mutates", () => {
    const args = { status: "sold" };
    const r = prepareArguments(findPets, args, validatorFor(findPets));
    expect(r).toMatchObject({ ok: true, args: { status: "sold" }, corrections: [], warnings: [], confirmed: false });
    if (!r.ok) throw new Error();
    expect(r.args).not.toHaveProperty("limit");
    expect(r.resolved_inputs).toEqual({ status: "sold", limit: 20 });
    expect(args).toEqual({ status: "sold" });
  });

  it("auto-corrects a confident key typo and reports it", () => {
    const args = { statuss: "sold", limit: 5 };
    const r = prepareArguments(findPets, args, validatorFor(findPets));
    expect(r.ok).toBe(true);
    if (!r.ok) throw new Error();
    expect(r.args).toEqual({ status: "sold", limit: 5 });
    expect(r.corrections).toEqual([{ from: "statuss", to: "status", confidence: expect.any(Number) }]);
    expect(r.corrections[0]!.confidence).toBeGreaterThan(0.9);
    expect(r.warnings[0]).toMatch(/auto-corrected to "status"/);
    expect(args).toEqual({ statuss: "sold", limit: 5 });
  });

  it("accepts a case/separator variant (include-archived -> include_archived)", () => {
    const r = prepareArguments(findPets, { status: "sold", includeArchived: true }, validatorFor(findPets));
    expect(r.ok && r.args).toEqual({ status: "sold", include_archived: true });
  });

  it("strips _confirm and reports confirmation", () => {
    const r = prepareArguments(deletePet, { petId: 3, _confirm: true }, validatorFor(deletePet));
    expect(r.ok).toBe(true);
    if (!r.ok) throw new Error();
    expect(r.args).toEqual({ petId: 3 });
    expect(r.confirmed).toBe(true);
    expect(needsConfirmation(deletePet, r)).toBe(false);
    const u = prepareArguments(deletePet, { petId: 3 }, validatorFor(deletePet));
    expect(u.ok && needsConfirmation(deletePet, u)).toBe(true);
  });

  it("accepts undefined arguments as {}", () => {
    expect(prepareArguments(getPet, undefined, validatorFor(getPet)).ok).toBe(false);
    expect(prepareArguments(findPets, undefined, validatorFor(findPets)).ok).toBe(false);
  });
});

describe("prepareArguments: corrective_params for each corruption", () => {
  it.each<[string, ToolData, Record<string, unknown>, Record<string, unknown>]>([
    ["misspelt parameter (suggestion, not auto)", findPets, { status: "sold", limt: 5 }, { status: "sold", limit: 5 }],
    ['wrong type "50"', findPets, { status: "sold", limit: "50" }, { status: "sold", limit: 50 }],
    [
      'wrong type "true"',
      findPets,
      { status: "sold", include_archived: "true" },
      { status: "sold", include_archived: true },
    ],
    ["number where a string is wanted", addPet, { name: 1234, status: "sold" }, { name: "1234", status: "sold" }],
    ["missing required", findPets, { limit: 10 }, { status: "available", limit: 10 }],
    ["out of range (max)", findPets, { status: "sold", limit: 500 }, { status: "sold", limit: 100 }],
    [
      "out of range (exclusive min)",
      addPet,
      { name: "rex", status: "sold", weight: 0 },
      { name: "rex", status: "sold", weight: 1 },
    ],
    ["enum typo", findPets, { status: "availble" }, { status: "available" }],
    ["enum case", findPets, { status: "SOLD" }, { status: "sold" }],
    ["string too long", addPet, { name: "x".repeat(30), status: "sold" }, { name: "x".repeat(20), status: "sold" }],
    ["string too short (padded from example)", addPet, { name: "r", status: "sold" }, { name: "rd", status: "sold" }],
    [
      "bad format (normalised)",
      addPet,
      { name: "rex", status: "sold", birthDate: "2020-01-31T10:00:00Z" },
      { name: "rex", status: "sold", birthDate: "2020-01-31" },
    ],
    [
      "bad format (from example)",
      addPet,
      { name: "rex", status: "sold", photoUrl: "nope" },
      { name: "rex", status: "sold", photoUrl: "https://example.com/dog.png" },
    ],
    [
      "too many items",
      findPets,
      { status: "sold", tags: ["a", "b", "c", "d", "e", "f"] },
      { status: "sold", tags: ["a", "b", "c", "d", "e"] },
    ],
    ["comma list for an array", findPets, { status: "sold", tags: "a,b" }, { status: "sold", tags: ["a", "b"] }],
    [
      "nested unknown key",
      addPet,
      { name: "rex", status: "sold", category: { nmae: "Dogs" } },
      { name: "rex", status: "sold", category: { name: "Dogs" } },
    ],
    [
      "several at once",
      findPets,
      { statuss: "pendng", limit: "500", tags: "x" },
      { status: "pending", limit: 100, tags: ["x"] },
    ],
  ])("%s", (_label, tool, args, expected) => {
    const error = failWith(tool, args);
    expect(error.code).toBe("INVALID_ARGUMENTS");
    expect(error.issues.length).toBeGreaterThan(0);
    expectCorrectivePasses(tool, error.corrective_params);
    expect(error.corrective_params).toEqual(expected);
    expect(error.suggestions.auto_correctable).toBe(true);
    expect(error.next_steps[0]).toMatchObject({ tool: tool.name, params: expected });
  });

  it("never drops an unknown key silently", () => {
    const error = failWith(findPets, { status: "sold", colour: "brown" });
    expect(error.issues).toEqual([expect.objectContaining({ field: "colour", code: "UNKNOWN_PARAMETER" })]);
    expect(error.corrective_params).toEqual({ status: "sold" });
  });

  it("omits corrective_params rather than inventing an identifier", () => {
    const error = failWith(getPet, {});
    expect(error.corrective_params).toBeUndefined();
    expect(error.issues[0]).toMatchObject({ field: "petId", code: "MISSING_REQUIRED" });
    expect(error.next_steps.some((s) => typeof s === "object" && s.tool === "find_pets")).toBe(true);
    expect(failWith(getPet, { petId: "abc" }).corrective_params).toBeUndefined();
    expect(failWith(getPet, { petId: "7" }).corrective_params).toEqual({ petId: 7 });
  });

  it("omits corrective_params when no confident enum match exists", () => {
    const error = failWith(findPets, { status: "zzzzzz" });
    expect(error.corrective_params).toBeUndefined();
    expect(error.issues[0]!.fix).toMatch(/Use one of: available, pending, sold/);
  });

  it("rejects non-object arguments with a critical error and the full schema", () => {
    const error = failWith(addPet, ["rex"]);
    expect(error.severity).toBe("critical");
    expect(error.schema_hint_level).toBe("full");
    expectCorrectivePasses(addPet, error.corrective_params);
  });

  it("chooses the schema hint level by severity", () => {
    expect(failWith(findPets, { status: "sold", limit: 500 })).toMatchObject({
      severity: "medium",
      schema_hint_level: "minimal",
    });
    expect(failWith(findPets, { limit: 5 })).toMatchObject({ severity: "high", schema_hint_level: "typed" });
    expect(failWith(findPets, { foo: 1, bar: 2 })).toMatchObject({ severity: "critical", schema_hint_level: "full" });
  });
});

describe("clampNumber", () => {
  it.each([
    [500, { type: "integer", minimum: 1, maximum: 100 }, 100],
    [-3, { type: "integer", minimum: 1, maximum: 100 }, 1],
    [0, { type: "number", exclusiveMinimum: 0, maximum: 10 }, 1],
    [7, { type: "integer", multipleOf: 5, maximum: 100 }, 5],
    [10, { type: "integer", exclusiveMaximum: 10 }, 9],
  ])("%s in %j -> %s", (value, schema, expected) => {
    expect(clampNumber(value, schema)).toBe(expected);
  });
});
