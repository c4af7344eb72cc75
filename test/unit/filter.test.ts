import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generate } from "../../src/generate.js";
import { filterTools, globToRegExp, type ToolFilter } from "../../templates/server/src/runtime/shared/filter.js";
import { modelFrom, SAMPLES } from "../helpers/pipeline.js";

describe("tool filter (shared by generator and server)", async () => {
  const model = await modelFrom(join(SAMPLES, "petstore.yaml"));
  const names = (filter: ToolFilter) => filterTools(model.tools, filter).map((tool) => tool.name);

  it.each<[string, ToolFilter, string[]]>([
    ["no filter keeps all", {}, model.tools.map((tool) => tool.name)],
    ["include tag", { includeTags: ["owners"] }, ["get_owner"]],
    ["exclude tags (case-insensitive)", { excludeTags: ["PETS", "payments"] }, ["get_owner", "get_order"]],
    ["operationId glob", { includeOperations: ["*Pet"] }, ["create_pet", "get_pet", "update_pet", "delete_pet"]],
    ["tool-name glob", { includeOperations: ["get_*"] }, ["get_pet", "get_owner", "get_order"]],
    ["exclude glob", { excludeOperations: ["*pet*"] }, ["get_owner", "get_order", "create_payment"]],
    ["methods", { methods: ["delete", "put"] }, ["update_pet", "delete_pet"]],
    ["read-only", { readOnly: true }, ["list_pets", "get_pet", "get_owner", "get_order"]],
    ["combined", { includeTags: ["pets"], readOnly: true }, ["list_pets", "get_pet"]],
  ])("%s", (_name, filter, expected) => {
    expect(names(filter)).toEqual(expected);
  });

  it("matches globs whole, with ? and escaped regex characters", () => {
    expect(globToRegExp("repos/get-*").test("repos/get-content")).toBe(true);
    expect(globToRegExp("get_?").test("get_ab")).toBe(false);
    expect(globToRegExp("a.b").test("axb")).toBe(false);
  });

  it("applies at generation time and records the choice for regeneration", async () => {
    const result = await generate({
      from: join(SAMPLES, "petstore.yaml"),
      out: "/tmp/unused-filter-dry-run",
      dryRun: true,
      filter: { readOnly: true },
      toolMode: "dispatch",
    });
    expect(result.model.tools.map((tool) => tool.name)).toEqual(["list_pets", "get_pet", "get_owner", "get_order"]);
    expect(result.model.api.toolMode).toBe("dispatch");
    expect(result.write.manifest.options).toMatchObject({ filter: { readOnly: true }, toolMode: "dispatch" });
  });

  it("refuses filters that leave nothing", async () => {
    await expect(
      generate({
        from: join(SAMPLES, "petstore.yaml"),
        out: "/tmp/unused",
        dryRun: true,
        filter: { includeTags: ["nope"] },
      }),
    ).rejects.toThrow(/filters leave none of the 9 operations/);
  });
});
