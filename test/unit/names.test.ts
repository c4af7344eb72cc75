import { describe, expect, it } from "vitest";
import {
  argName,
  assignUniqueNames,
  baseToolName,
  fitLength,
  snakeCase,
  TOOL_NAME_PATTERN,
} from "../../src/model/names.js";

describe("names", () => {
  it.each([
    ["listPetsByID", "list_pets_by_id"],
    ["repos/get-content", "repos_get_content"],
    ["HTTPServerStatus", "http_server_status"],
    ["  weird--name!!  ", "weird_name"],
    ["Ünïcödé op", "unicode_op"],
  ])("snake_case(%s) = %s", (input, expected) => {
    expect(snakeCase(input)).toBe(expected);
  });

  it.each([
    [undefined, "get", "/pets/{petId}/photos", "get_pets_by_pet_id_photos"],
    ["createPet", "post", "/pets", "create_pet"],
    ["123start", "get", "/x", "op_123start"],
    [undefined, "get", "/", "get"],
  ])("tool name from operationId %s / %s %s", (operationId, method, path, expected) => {
    expect(baseToolName(operationId, method, path)).toBe(expected);
  });

  it("fits long names into 64 characters deterministically and validly", () => {
    const long = "a_very_long_operation_identifier_that_goes_on_and_on_beyond_what_clients_accept_for_names";
    const fitted = fitLength(long);
    expect(fitted.length).toBeLessThanOrEqual(64);
    expect(fitted).toMatch(TOOL_NAME_PATTERN);
    expect(fitLength(long)).toBe(fitted);
    expect(fitLength(long + "_2")).not.toBe(fitted);
  });

  it("breaks collisions by identity, independent of other operations", () => {
    const requests = [
      { base: "get_pet", identity: "get /pets/{id}", explicit: false },
      { base: "get_pet", identity: "get /pet/{id}", explicit: true },
    ];
    const names = assignUniqueNames(requests);
    expect(names[1]).toBe("get_pet");
    expect(names[0]).toMatch(/^get_pet_[0-9a-f]{4}$/);
    // Adding an unrelated operation does not rename existing ones.
    const grown = assignUniqueNames([...requests, { base: "list_pets", identity: "get /pets", explicit: true }]);
    expect(grown.slice(0, 2)).toEqual(names);
    expect(new Set(grown).size).toBe(3);
  });

  it.each([
    ["petId", "petId"],
    ["X-Request-Id", "X-Request-Id"],
    ["filter[name]", "filter_name"],
    ["$select", "select"],
    ["a b", "a_b"],
  ])("argument name %s → %s", (input, expected) => {
    expect(argName(input)).toBe(expected);
  });
});

import { packageSlug } from "../../src/model/names.js";

describe("package slug", () => {
  it.each([
    ["Swagger Petstore - OpenAPI 3.0", "swagger-petstore-openapi-3-0"],
    ["GitHub's official OpenAPI spec + Octokit extension", "githubs-official-openapi-spec-octokit"],
    ["Ünïcödé API", "unicode-api"],
    ["!!!", "api"],
  ])("%s → %s", (title, slug) => {
    expect(packageSlug(title)).toBe(slug);
  });
});
