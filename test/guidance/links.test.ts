import { describe, expect, it } from "vitest";
import { buildLinkIndex, buildLinks, MAX_LINKS } from "../../src/guidance/links.js";
import { findListTool } from "../../src/guidance/list-tool.js";
import type { Diagnostic, ToolLink, ToolModel } from "../../src/model/ir.js";
import { makeTool, pet, petstore } from "./fixtures.js";

function linksOf(tools: ToolModel[], name: string): { links: ToolLink[]; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const tool = tools.find((t) => t.name === name)!;
  return { links: buildLinks(tool, buildLinkIndex(tools), diagnostics), diagnostics };
}
const summary = (links: ToolLink[]) => links.map((l) => [l.tool, l.params, l.source]);

describe("inferred links", () => {
  const tools = petstore();

  it.each<[string, string, Array<[string, Record<string, unknown>]>]>([
    [
      "item GET → siblings, sub-collections and *_id fields",
      "get_pet",
      [
        ["update_pet", { petId: "$request.path.petId" }],
        ["delete_pet", { petId: "$request.path.petId" }],
        ["list_pet_photos", { petId: "$request.path.petId" }],
        ["get_owner", { ownerId: "$response.body#/owner_id" }],
      ],
    ],
    ["collection GET → item getter from the first item", "list_pets", [["get_pet", { petId: "$response.body#/0/id" }]]],
    [
      "POST → getter of the created resource",
      "create_pet",
      [
        ["get_pet", { petId: "$response.body#/id" }],
        ["get_owner", { ownerId: "$response.body#/owner_id" }],
      ],
    ],
    ["DELETE has nothing to follow", "delete_pet", []],
  ])("%s", (_n, name, expected) => {
    const { links } = linksOf(tools, name);
    expect(links.map((l) => [l.tool, l.params])).toEqual(expected);
    expect(links.every((l) => l.source === "inferred" && l.name.length > 0)).toBe(true);
  });

  it("labels links with the resource noun", () => {
    expect(linksOf(tools, "get_pet").links.map((l) => l.name)).toEqual([
      "Update this pet",
      "Delete this pet",
      "List photos of this pet",
      "Get the owner",
    ]);
  });

  it("uses the items pointer and the target's arg names", () => {
    const t = [
      makeTool({
        name: "list_users",
        path: "/users",
        responseSchema: {
          type: "object",
          properties: { value: { type: "array", items: { type: "object", properties: { id: { type: "string" } } } } },
        },
      }),
      makeTool({ name: "get_user", path: "/users/{user-id}", argNames: { "user-id": "user_id" } }),
    ];
    expect(summary(linksOf(t, "list_users").links)).toEqual([
      ["get_user", { user_id: "$response.body#/value/0/id" }, "inferred"],
    ]);
  });

  it("maps `{issue_number}` to the resource's `number` and keeps parent path params", () => {
    const issue = { type: "object", properties: { id: { type: "integer" }, number: { type: "integer" } } };
    const t = [
      makeTool({
        name: "issues_list",
        path: "/repos/{owner}/{repo}/issues",
        responseSchema: { type: "array", items: issue },
      }),
      makeTool({ name: "issues_get", path: "/repos/{owner}/{repo}/issues/{issue_number}", responseSchema: issue }),
    ];
    expect(linksOf(t, "issues_list").links[0]!.params).toEqual({
      owner: "$request.path.owner",
      repo: "$request.path.repo",
      issue_number: "$response.body#/0/number",
    });
  });

  it("caps links per tool", () => {
    const t = [makeTool({ name: "get_thing", path: "/things/{id}" })];
    for (let i = 0; i < 20; i++) t.push(makeTool({ name: `list_sub${i}`, path: `/things/{id}/sub${i}` }));
    expect(linksOf(t, "get_thing").links).toHaveLength(MAX_LINKS);
  });

  it("skips a collection whose response is not a list", () => {
    const t = [
      makeTool({
        name: "get_status",
        path: "/status",
        responseSchema: { type: "object", properties: { ok: { type: "boolean" } } },
      }),
      makeTool({ name: "get_status_item", path: "/status/{id}" }),
    ];
    expect(linksOf(t, "get_status").links).toEqual([]);
  });
});

describe("OpenAPI links", () => {
  const base = petstore();
  const withLinks = (links: ToolModel["openapiLinks"]): ToolModel[] =>
    base.map((t) => (t.name === "create_pet" ? { ...t, openapiLinks: links } : t));

  it("maps operationId and wire names to the target tool and its arg names; wins over inferred links", () => {
    const tools = withLinks([
      {
        name: "GetPetById",
        operationId: "getPet",
        parameters: { petId: "$response.body#/id" },
        description: "The new pet",
        pointer: "#/paths/~1pets/post/responses/201/links/GetPetById",
      },
    ]);
    const { links, diagnostics } = linksOf(tools, "create_pet");
    expect(diagnostics).toEqual([]);
    expect(links[0]).toEqual({
      name: "Get pet by id",
      tool: "get_pet",
      params: { petId: "$response.body#/id" },
      source: "openapi",
      description: "The new pet",
    });
    expect(links.filter((l) => l.tool === "get_pet")).toHaveLength(1);
  });

  it("resolves operationRef and `path.`-qualified keys to renamed args", () => {
    const tools = [
      ...base.filter((t) => t.name !== "get_pet"),
      makeTool({ name: "get_pet", path: "/pets/{petId}", argNames: { petId: "pet_id" } }),
    ].map((t) =>
      t.name === "create_pet"
        ? {
            ...t,
            openapiLinks: [
              {
                name: "self",
                operationRef: "#/paths/~1pets~1{petId}/get",
                parameters: { "path.petId": "$response.body#/id" },
                pointer: "#/x",
              },
            ],
          }
        : t,
    );
    expect(summary(linksOf(tools, "create_pet").links)[0]).toEqual([
      "get_pet",
      { pet_id: "$response.body#/id" },
      "openapi",
    ]);
  });

  it("reports unknown targets and unknown parameters as warnings", () => {
    const tools = withLinks([
      { name: "Nope", operationId: "doesNotExist", parameters: {}, pointer: "#/links/Nope" },
      {
        name: "Bad",
        operationId: "getPet",
        parameters: { petId: "$response.body#/id", colour: "red" },
        pointer: "#/links/Bad",
      },
    ]);
    const { links, diagnostics } = linksOf(tools, "create_pet");
    expect(diagnostics.map((d) => [d.pointer, d.severity])).toEqual([
      ["#/links/Nope", "warning"],
      ["#/links/Bad", "warning"],
    ]);
    expect(diagnostics[0]!.message).toMatch(/doesNotExist/);
    expect(diagnostics[0]!.fix).toBeTruthy();
    expect(links.find((l) => l.source === "openapi")!.params).toEqual({ petId: "$response.body#/id" });
  });

  it("drops a self-link that would repeat the same call, keeps one with new params", () => {
    const tools = base.map((t) =>
      t.name === "get_pet"
        ? {
            ...t,
            openapiLinks: [
              { name: "again", operationId: "getPet", parameters: { petId: "$request.path.petId" }, pointer: "#/a" },
              {
                name: "parent",
                operationId: "getPet",
                parameters: { petId: "$response.body#/parent_id" },
                pointer: "#/b",
              },
            ],
          }
        : t,
    );
    expect(summary(linksOf(tools, "get_pet").links).filter(([tool]) => tool === "get_pet")).toEqual([
      ["get_pet", { petId: "$response.body#/parent_id" }, "openapi"],
    ]);
  });
});

describe("findListTool", () => {
  const tools = petstore();
  const index = buildLinkIndex(tools);
  it.each([
    ["get_pet", "list_pets"],
    ["update_pet", "list_pets"],
    ["delete_pet", "list_pets"],
    ["create_pet", "list_pets"],
    ["list_pets", undefined],
    ["get_owner", undefined],
  ])("%s → %s", (name, expected) => {
    expect(
      findListTool(
        tools.find((t) => t.name === name)!,
        index,
      ),
    ).toBe(expected);
  });

  it("falls back to a search tool of the collection", () => {
    const t = [
      makeTool({ name: "get_pet", path: "/pet/{petId}", responseSchema: pet }),
      makeTool({ name: "find_pets_by_status", path: "/pet/findByStatus" }),
    ];
    expect(findListTool(t[0]!, buildLinkIndex(t))).toBe("find_pets_by_status");
  });

  it("goes by names for JSON Schema input", () => {
    const t = [
      makeTool({ name: "get_category" }),
      makeTool({ name: "list_categories" }),
      makeTool({ name: "delete_box" }),
      makeTool({ name: "search_boxes" }),
    ];
    const idx = buildLinkIndex(t);
    expect(findListTool(t[0]!, idx)).toBe("list_categories");
    expect(findListTool(t[2]!, idx)).toBe("search_boxes");
    expect(findListTool(t[1]!, idx)).toBeUndefined();
  });
});
