import { describe, expect, it } from "vitest";
import { analyzeErrors } from "../../templates/server/src/runtime/guidance/issues.js";
import { collapseErrors } from "../../templates/server/src/runtime/guidance/ajv-errors.js";
import { addPet, findPets, validatorFor } from "./fixtures.js";
import type { ToolData } from "../../templates/server/src/runtime/shared/tool-data.js";

function issuesFor(tool: ToolData, args: Record<string, unknown>) {
  const v = validatorFor(tool);
  expect(v(args)).toBe(false);
  return analyzeErrors(tool, args, v.errors).map((analyzed) => analyzed.issue);
}

describe("analyzeErrors", () => {
  it.each([
    ["MISSING_REQUIRED", findPets, {}, "status", /Add "status"/],
    ["INVALID_TYPE", findPets, { status: "sold", limit: "50" }, "limit", /Send 50 as a number/],
    [
      "INVALID_TYPE (uncoercible)",
      findPets,
      { status: "sold", limit: "fifty" },
      "limit",
      /Provide an integer between 1 and 100/,
    ],
    ["OUT_OF_RANGE", findPets, { status: "sold", limit: 500 }, "limit", /Provide an integer between 1 and 100/],
    ["INVALID_ENUM", findPets, { status: "availble" }, "status", /Use one of: available, pending, sold/],
    [
      "INVALID_FORMAT",
      addPet,
      { name: "rex", status: "sold", photoUrl: "not a url" },
      "photoUrl",
      /uri format, e.g. "https:\/\/example.com\/dog.png"/,
    ],
    [
      "INVALID_PATTERN",
      addPet,
      { name: "rex", status: "sold", tag: "Big Dog" },
      "tag",
      /matching \^\[a-z\]\+\$, e.g. "dog"/,
    ],
    ["INVALID_LENGTH", addPet, { name: "r", status: "sold" }, "name", /at least 2|2 to 20 characters/],
    [
      "INVALID_LENGTH (array)",
      findPets,
      { status: "sold", tags: ["a", "b", "c", "d", "e", "f"] },
      "tags",
      /at most 5 items/,
    ],
    [
      "UNKNOWN_PARAMETER (nested)",
      addPet,
      { name: "rex", status: "sold", category: { name: "x", nmae: "y" } },
      "category.nmae",
      /Rename|Remove/,
    ],
  ])("%s", (code, tool, args, field, fix) => {
    const issues = issuesFor(tool, args);
    const issue = issues.find((i) => i.field === field);
    expect(issue, JSON.stringify(issues)).toBeDefined();
    expect(issue!.code).toBe(code.split(" ")[0]);
    expect(issue!.fix).toMatch(fix);
    expect(issue!.problem).toBeTruthy();
    expect(issue!.expected).toBeTruthy();
  });

  it("suggests the closest enum value", () => {
    const [issue] = issuesFor(findPets, { status: "availble" });
    expect(issue!.did_you_mean).toBe("available");
    expect(issue!.received).toBe("availble");
  });

  it("collapses anyOf noise to the plausible branch", () => {
    const issues = issuesFor(addPet, { name: "rex", status: "sold", nickname: "toolong" });
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ field: "nickname", code: "INVALID_LENGTH" });
  });

  it("reports one INVALID_TYPE listing every accepted type when all branches fail on type", () => {
    const issues = issuesFor(addPet, { name: "rex", status: "sold", nickname: 5 });
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ field: "nickname", code: "INVALID_TYPE" });
    expect(issues[0]!.problem).toMatch(/string or null/);
  });

  it("reports every problem at once, with nested fields as dotted paths", () => {
    const issues = issuesFor(addPet, { status: "old", weight: 0, category: { id: "x" } });
    const fields = issues.map((i) => `${i.field}:${i.code}`).sort();
    expect(fields).toEqual(
      [
        "category.id:INVALID_TYPE",
        "category.name:MISSING_REQUIRED",
        "name:MISSING_REQUIRED",
        "status:INVALID_ENUM",
        "weight:OUT_OF_RANGE",
      ].sort(),
    );
  });

  it("collapseErrors keeps non-composite errors untouched", () => {
    const v = validatorFor(findPets);
    v({ status: "x", limit: 0 });
    expect(collapseErrors(v.errors!)).toHaveLength(v.errors!.length);
    expect(analyzeErrors(findPets, {}, [])).toEqual([]);
  });
});
