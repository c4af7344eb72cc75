import { writeFileSync, mkdtempSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compileInputValidators } from "../../src/model/validators.js";
import { createExampleGenerator, exampleCompiler } from "../../src/guidance/index.js";
import { TOOL_NAME_PATTERN } from "../../src/model/names.js";
import { createAjv } from "../../templates/server/src/runtime/shared/ajv.js";
import { modelFrom, SAMPLES, toolNamed } from "../helpers/pipeline.js";

describe("OpenAPI 3.0 model (petstore)", async () => {
  const model = await modelFrom(join(SAMPLES, "petstore.yaml"));

  it("makes one validly named tool per operation", () => {
    expect(model.tools.map((tool) => tool.name)).toEqual([
      "list_pets",
      "create_pet",
      "get_pet",
      "update_pet",
      "delete_pet",
      "get_owner",
      "get_order",
      "create_payment",
      "search_pets",
    ]);
    for (const tool of model.tools) expect(tool.name).toMatch(TOOL_NAME_PATTERN);
  });

  it("derives API data: base URL, env vars, security schemes", () => {
    expect(model.api).toMatchObject({
      name: "petstore-mcp",
      baseUrl: "https://petstore.example.com/v1",
      baseUrlEnv: "PETSTORE_BASE_URL",
      envPrefix: "PETSTORE",
      securitySchemes: [
        { name: "api_key", kind: "apiKey", in: "header", parameterName: "X-API-Key", env: "PETSTORE_API_KEY" },
        { name: "bearerAuth", kind: "bearer", env: "PETSTORE_BEARER_AUTH_TOKEN" },
      ],
    });
  });

  it("keeps every parameter constraint and binds serialisation", () => {
    const listPets = toolNamed(model, "list_pets");
    expect(listPets.inputSchema.properties).toMatchObject({
      limit: { type: "integer", minimum: 1, maximum: 100, default: 20, description: "How many pets to return." },
      status: { type: "array", items: { type: "string", enum: ["available", "pending", "sold"] } },
      filter: { type: "object" },
    });
    expect(listPets.inputSchema.required).toBeUndefined();
    expect(listPets.inputSchema.additionalProperties).toBe(false);
    const binding = listPets.operation!.parameters;
    expect(binding.find((p) => p.arg === "status")).toMatchObject({ style: "form", explode: false, in: "query" });
    expect(binding.find((p) => p.arg === "filter")).toMatchObject({ style: "deepObject", explode: true });
    expect(listPets.annotations).toEqual({
      title: "List pets",
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
    });
    expect(listPets.category).toBe("pets");
    expect(listPets.responseHeaders).toEqual(["x-total-count"]);
  });

  it("flattens an object body and keeps body constraints; readOnly fields are not inputs", () => {
    const createPet = toolNamed(model, "create_pet");
    expect(createPet.operation!.body).toEqual({
      mode: "flattened",
      properties: expect.objectContaining({ name: "name", status: "status" }),
      mediaType: "application/json",
      required: true,
    });
    expect(createPet.inputSchema.required).toEqual(["name"]);
    expect((createPet.inputSchema.properties as Record<string, unknown>).status).toMatchObject({
      enum: ["available", "pending", "sold"],
      default: "available",
    });
    expect(createPet.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
    expect(createPet.openapiLinks).toEqual([
      expect.objectContaining({
        name: "GetCreatedPet",
        operationId: "getPet",
        parameters: { petId: "$response.body#/id" },
      }),
    ]);
  });

  it("handles nullable without a type (OpenAPI 3.0)", () => {
    const nickname = (toolNamed(model, "create_pet").inputSchema.properties as Record<string, Record<string, unknown>>)
      .nickname!;
    expect(nickname).toEqual({ description: "Any nickname, or null." });
  });

  it("keeps a path id and a query id as two inputs", () => {
    const getOrder = toolNamed(model, "get_order");
    expect(Object.keys(getOrder.inputSchema.properties as object)).toEqual(["id", "query_id", "X-Request-Id"]);
    expect(getOrder.operation!.parameters.map((p) => [p.arg, p.name, p.in])).toEqual([
      ["id", "id", "path"],
      ["query_id", "id", "query"],
      ["X-Request-Id", "X-Request-Id", "header"],
    ]);
  });

  it("keeps a oneOf body as one object-typed `body` argument with every constraint", () => {
    const search = toolNamed(model, "search_pets");
    expect(search.inputSchema.type).toBe("object");
    expect(search.operation!.body).toMatchObject({ mode: "property", arg: "body" });
    const body = (search.inputSchema.properties as Record<string, Record<string, unknown>>).body!;
    expect(body.oneOf).toHaveLength(2);
    const validate = createAjv().compile(search.inputSchema);
    expect(validate({ body: { name: "Rex" } })).toBe(true);
    expect(validate({ body: { name: "R" } })).toBe(false);
  });

  it("bounds the recursive Category schema", () => {
    const text = JSON.stringify(toolNamed(model, "create_pet").inputSchema);
    expect(text).toMatch(/recursive/);
  });

  it("annotates by method", () => {
    expect(toolNamed(model, "delete_pet").annotations).toMatchObject({
      destructiveHint: true,
      idempotentHint: true,
      readOnlyHint: false,
    });
    expect(toolNamed(model, "update_pet").annotations).toMatchObject({ destructiveHint: false, idempotentHint: true });
    expect(toolNamed(model, "delete_pet").operation!.security).toEqual([["bearerAuth"]]);
    expect(toolNamed(model, "get_pet").operation!.security).toEqual([["api_key"]]);
  });

  it("compiles every input schema", () => {
    expect(compileInputValidators(model).size).toBe(model.tools.length);
  });
});

describe("Swagger 2.0 model (inventory)", async () => {
  const model = await modelFrom(join(SAMPLES, "inventory-swagger2.json"));

  it("takes the base URL from host/basePath/schemes and basic auth", () => {
    expect(model.api.baseUrl).toBe("https://inventory.example.com/api");
    expect(model.api.securitySchemes).toEqual([
      {
        name: "basicAuth",
        kind: "basic",
        usernameEnv: "INVENTORY_BASIC_AUTH_USERNAME",
        passwordEnv: "INVENTORY_BASIC_AUTH_PASSWORD",
      },
    ]);
  });

  it("keeps in: body and in: formData parameters", () => {
    const create = toolNamed(model, "create_item");
    expect(create.operation!.body).toMatchObject({ mode: "flattened", mediaType: "application/json" });
    expect(create.inputSchema.required).toEqual(["sku", "name"]);
    const adjust = toolNamed(model, "adjust_stock");
    expect(adjust.operation!.body).toMatchObject({ mode: "flattened", mediaType: "application/x-www-form-urlencoded" });
    expect(adjust.inputSchema.required).toEqual(["itemId", "delta"]);
    expect(toolNamed(model, "list_items").operation!.parameters.find((p) => p.arg === "sku")).toMatchObject({
      style: "form",
      explode: false,
    });
  });
});

describe("OpenAPI 3.1 model (library) with external refs", async () => {
  const model = await modelFrom(join(SAMPLES, "library-openapi31.yaml"));

  it("resolves server variables and external file refs", () => {
    expect(model.api.baseUrl).toBe("https://library.example.com/v2");
    const book = toolNamed(model, "get_book").responseSchema!;
    expect(book).toMatchObject({ type: "object", required: ["id", "title"] });
    expect(JSON.stringify(book)).toMatch(/recursive/);
  });

  it("uses apiKey in query", () => {
    expect(model.api.securitySchemes[0]).toMatchObject({
      kind: "apiKey",
      in: "query",
      parameterName: "api_key",
      env: "LIBRARY_API_KEY_QUERY",
    });
  });
});

describe("JSON Schema input", async () => {
  const model = await modelFrom(join(SAMPLES, "notes-tools.schema.json"));
  it("makes a handler-backed tool per $defs entry", () => {
    expect(model.kind).toBe("jsonschema");
    expect(model.tools.map((tool) => [tool.name, tool.handler?.module])).toEqual([
      ["create_note", "create_note"],
      ["search_notes", "search_notes"],
    ]);
    expect(toolNamed(model, "create_note").inputSchema).toMatchObject({ type: "object", required: ["title", "body"] });
  });
});

describe("hostile $refs", () => {
  it("refuses a $ref outside the spec folder unless allowed", async () => {
    const root = mkdtempSync(join(tmpdir(), "cgm-ref-"));
    mkdirSync(join(root, "spec"));
    writeFileSync(join(root, "secret.yaml"), "Thing: {type: string}\n");
    const spec = join(root, "spec", "api.yaml");
    writeFileSync(
      spec,
      `openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /x:\n    get:\n      parameters:\n        - {name: a, in: query, schema: {$ref: '../secret.yaml#/Thing'}}\n      responses: {'200': {description: ok}}\n`,
    );
    await expect(modelFrom(spec)).rejects.toThrow(/outside the spec's folder .*--allow-external-refs/);
    const allowed = await modelFrom(spec, { allowExternalFiles: true });
    expect(allowed.tools[0]!.inputSchema.properties).toEqual({ a: { type: "string" } });
  });

  it("refuses a remote $ref unless allowed", async () => {
    const root = mkdtempSync(join(tmpdir(), "cgm-ref-"));
    const spec = join(root, "api.yaml");
    writeFileSync(
      spec,
      `openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n  /x:\n    get:\n      parameters:\n        - {name: a, in: query, schema: {$ref: 'http://127.0.0.1:9/thing.yaml'}}\n      responses: {'200': {description: ok}}\n`,
    );
    await expect(modelFrom(spec)).rejects.toThrow(/remote URL .*--allow-remote-refs/);
  });
});

describe("nullable parameters", () => {
  it("offers a nullable path parameter without null (a path segment cannot hold it); other locations keep null", async () => {
    const spec = join(mkdtempSync(join(tmpdir(), "cgm-null-")), "api.yaml");
    writeFileSync(
      spec,
      `openapi: 3.0.0\ninfo: {title: t, version: '1'}\npaths:\n  /consents/{id}:\n    get:\n      parameters:\n` +
        `        - {name: id, in: path, required: true, schema: {type: string, nullable: true}}\n` +
        `        - {name: keep, in: query, required: true, schema: {type: boolean, nullable: true}}\n` +
        `      responses: {'200': {description: ok}}\n`,
    );
    const [tool] = (await modelFrom(spec)).tools;
    expect(tool!.inputSchema.properties).toEqual({
      id: { type: "string" },
      keep: { type: ["boolean", "null"] },
    });
  });
});

describe("x-mcp overrides", () => {
  it("hides and renames operations at root, path and operation level", async () => {
    const root = mkdtempSync(join(tmpdir(), "cgm-xmcp-"));
    const spec = join(root, "api.yaml");
    writeFileSync(
      spec,
      `openapi: 3.1.0
info: {title: t, version: '1'}
paths:
  /internal:
    x-mcp: false
    get: {operationId: internalStats, responses: {'200': {description: ok}}}
  /pets:
    get:
      operationId: listPets
      x-mcp: {name: find_pets, title: Find pets, description: Search the pet catalogue.}
      responses: {'200': {description: ok}}
    post:
      operationId: createPet
      x-mcp: {hidden: true}
      responses: {'200': {description: ok}}
  /admin:
    x-mcp: false
    get:
      operationId: adminHome
      x-mcp: {hidden: false}
      responses: {'200': {description: ok}}
`,
    );
    const model = await modelFrom(spec);
    expect(model.tools.map((tool) => tool.name)).toEqual(["find_pets", "admin_home"]);
    expect(model.tools[0]).toMatchObject({
      title: "Find pets",
      description: "Search the pet catalogue.",
      operationId: "listPets",
      annotations: { title: "Find pets" },
    });
  });
});

describe("fail closed", () => {
  it("makes a schema Ajv cannot compile a generation error naming its location, never a permissive server", async () => {
    const root = mkdtempSync(join(tmpdir(), "cgm-closed-"));
    const spec = join(root, "api.yaml");
    writeFileSync(
      spec,
      `openapi: 3.1.0
info: {title: t, version: '1'}
paths:
  /things:
    get:
      operationId: listThings
      parameters:
        - {name: kind, in: query, schema: {type: strnig}}
      responses: {'200': {description: ok}}
`,
    );
    const model = await modelFrom(spec);
    expect(() => compileInputValidators(model)).toThrow(
      /#\/paths\/~1things\/get: the input schema of tool list_things cannot be compiled .* — fix the schema at that location, or hide the operation with `x-mcp: false`/,
    );
    // Generation compiles through the example generator's (verbose) compiler, shared with example repair: same verdict.
    expect(() => compileInputValidators(model, exampleCompiler(createExampleGenerator()))).toThrow(
      /#\/paths\/~1things\/get: the input schema of tool list_things cannot be compiled .*type.* — fix the schema at that location/,
    );
  });
});
