import { describe, expect, it } from "vitest";
import { normaliseSpec } from "../../src/normalise/index.js";

const loaded = (document: unknown) => ({ source: "spec.yaml", location: "file:///tmp/spec.yaml", text: "", document });

describe("normalise", () => {
  it.each([
    ["Swagger 2.0", { swagger: "2.0", info: { title: "t", version: "1" }, paths: {} }, "openapi", "2.0"],
    ["OpenAPI 3.0", { openapi: "3.0.3", info: { title: "t", version: "1" }, paths: {} }, "openapi", "3.0.3"],
    ["OpenAPI 3.1", { openapi: "3.1.0", info: { title: "t", version: "1" }, paths: {} }, "openapi", "3.1.0"],
    ["JSON Schema with $defs", { $defs: { a: { type: "object" } } }, "jsonschema", "json-schema"],
    ["JSON Schema with definitions", { definitions: { a: { type: "object" } } }, "jsonschema", "json-schema"],
    ["one titled schema", { title: "Tool", type: "object", properties: {} }, "jsonschema", "json-schema"],
  ])("recognises %s", (_name, document, kind, version) => {
    const spec = normaliseSpec(loaded(document));
    expect(spec.kind).toBe(kind);
    expect(spec.sourceVersion).toBe(version);
    if (kind === "openapi") expect(String(spec.document.openapi)).toMatch(/^3\.1/);
  });

  it("upgrades Swagger 2.0 host/basePath/schemes to a server URL", () => {
    const spec = normaliseSpec(
      loaded({
        swagger: "2.0",
        info: { title: "t", version: "1" },
        host: "api.example.com",
        basePath: "/v2",
        schemes: ["https"],
        paths: {},
      }),
    );
    expect(spec.document.servers).toEqual([{ url: "https://api.example.com/v2" }]);
  });

  it.each([
    ["a list", [1, 2], /spec\.yaml#: the document is not an object — /],
    [
      "Swagger 1.2",
      { swagger: "1.2" },
      /spec\.yaml#\/swagger: Swagger version 1\.2 is not supported — use Swagger 2\.0 or OpenAPI 3\.x/,
    ],
    ["OpenAPI 4", { openapi: "4.0.0" }, /spec\.yaml#\/openapi: OpenAPI version 4\.0\.0 is not supported/],
    ["something else", { hello: "world" }, /not an OpenAPI or JSON Schema document/],
  ])("rejects %s with a located message and a fix", (_name, document, message) => {
    expect(() => normaliseSpec(loaded(document))).toThrow(message);
  });
});
