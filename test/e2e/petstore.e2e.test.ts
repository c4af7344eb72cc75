/**
 * The foundation end to end: the Petstore sample is generated, installed,
 * compiled with tsc --strict, and driven by the SDK's Client over stdio and
 * Streamable HTTP against a real local upstream.
 */
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TOOL_NAME_PATTERN } from "../../src/model/names.js";
import { generateAndBuild, type BuiltProject } from "../helpers/generated.js";
import { connectHttp, connectStdio, startHttpServer, type HttpServerProcess } from "../helpers/mcp.js";
import { SAMPLES } from "../helpers/pipeline.js";
import { json, startUpstream, type Upstream } from "../helpers/upstream.js";

const API_KEY = "test-key-123";
let project: BuiltProject;
let upstream: Upstream;
let env: Record<string, string>;

beforeAll(async () => {
  upstream = await startUpstream();
  const pet = (id: number, name = "Rex") => ({ id, name, status: "available" });
  upstream.route("GET", /^\/v1\/pets$/, (_req, res) => json(res, 200, [pet(1), pet(2, "Tom")]));
  upstream.route("POST", /^\/v1\/pets$/, (req, res) => json(res, 201, { id: 42, ...JSON.parse(req.body) }));
  upstream.route("GET", /^\/v1\/pets\/\d+$/, (req, res) => json(res, 200, pet(Number(req.path.split("/").pop()))));
  upstream.route("GET", /^\/v1\/orders\/[^/]+$/, (req, res) =>
    json(res, 200, { id: decodeURIComponent(req.path.split("/").pop()!), pet_id: 1, quantity: null }),
  );
  upstream.route("POST", /^\/v1\/payments$/, (req, res) =>
    json(res, 200, {
      id: "pay_1",
      amount: Number(new URLSearchParams(req.body).get("amount")),
      currency: "usd",
      metadata: {},
    }),
  );
  project = await generateAndBuild(join(SAMPLES, "petstore.yaml"));
  env = { PETSTORE_BASE_URL: `${upstream.url}/v1`, PETSTORE_API_KEY: API_KEY };
}, 600_000);

afterAll(async () => {
  await upstream?.close();
});

function lastRequest() {
  const request = upstream.requests.at(-1);
  if (!request) throw new Error("the upstream saw no request");
  return request;
}

describe.each(["stdio", "http"] as const)("generated Petstore server over %s", (transport) => {
  let client: Client;
  let httpServer: HttpServerProcess | undefined;

  beforeAll(async () => {
    if (transport === "stdio") client = await connectStdio(project.dir, env);
    else {
      httpServer = await startHttpServer(project.dir, env);
      client = await connectHttp(httpServer.url);
    }
  });

  afterAll(async () => {
    await client?.close();
    await httpServer?.stop();
  });

  it("lists every tool with a unique valid name, object input schema and annotations", async () => {
    const { tools } = await client.listTools();
    // The API's tools, plus the built-in `info`, `read_response` and `operation_status` (long-running 202 operations).
    expect(tools.map((tool) => tool.name)).toEqual([
      ...project.result.model.tools.map((tool) => tool.name),
      "info",
      "read_response",
      "operation_status",
    ]);
    for (const tool of tools) {
      expect(tool.name).toMatch(TOOL_NAME_PATTERN);
      expect(tool.inputSchema.type).toBe("object");
    }
    for (const tool of tools.filter(
      (candidate) => !["info", "read_response", "operation_status"].includes(candidate.name),
    ))
      expect(tool.annotations?.openWorldHint).toBe(true);
    const listPets = tools.find((tool) => tool.name === "list_pets")!;
    // The input schema goes out exactly as generated.
    expect(listPets.inputSchema).toEqual(
      project.result.model.tools.find((tool) => tool.name === "list_pets")!.inputSchema,
    );
    expect(listPets.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(tools.find((tool) => tool.name === "delete_pet")!.annotations).toMatchObject({
      destructiveHint: true,
      idempotentHint: true,
    });
  });

  it("calls a GET with query style/explode and deepObject, sending the API key header", async () => {
    const result = await client.callTool({
      name: "list_pets",
      arguments: { limit: 5, status: ["available", "pending"], tags: ["a", "b"], filter: { species: "dog" } },
    });
    expect(result.isError).toBeFalsy();
    const request = lastRequest();
    expect(request.method).toBe("GET");
    expect(request.path).toBe("/v1/pets");
    expect(request.query.get("limit")).toBe("5");
    expect(request.query.get("status")).toBe("available,pending");
    expect(request.query.getAll("tags")).toEqual(["a", "b"]);
    expect(request.query.get("filter[species]")).toBe("dog");
    expect(request.query.has("offset")).toBe(false); // spec defaults are not sent
    expect(request.headers["x-api-key"]).toBe(API_KEY);
    const structured = result.structuredContent as { data: unknown };
    expect(structured.data).toEqual([
      { id: 1, name: "Rex", status: "available" },
      { id: 2, name: "Tom", status: "available" },
    ]);
    const text = (result.content as Array<{ type: string; text: string }>)[0]!;
    expect(text.type).toBe("text");
    expect(text.text).toContain("Rex");
  });

  it("calls a GET with a path parameter", async () => {
    const result = await client.callTool({ name: "get_pet", arguments: { petId: 7 } });
    expect(result.isError).toBeFalsy();
    expect(lastRequest().path).toBe("/v1/pets/7");
    expect((result.structuredContent as { data: { id: number } }).data.id).toBe(7);
  });

  it("POSTs a flattened JSON body without injecting defaults", async () => {
    const result = await client.callTool({ name: "create_pet", arguments: { name: "Rex", birth_date: "2020-01-02" } });
    expect(result.isError).toBeFalsy();
    const request = lastRequest();
    expect(request.method).toBe("POST");
    expect(request.headers["content-type"]).toMatch(/application\/json/);
    expect(JSON.parse(request.body)).toEqual({ name: "Rex", birth_date: "2020-01-02" });
    expect((result.structuredContent as { data: { id: number } }).data.id).toBe(42);
  });

  it("keeps a path id and a query id apart, and encodes path values", async () => {
    await client.callTool({
      name: "get_order",
      arguments: { id: "../admin", query_id: "corr-1", "X-Request-Id": "req-9" },
    });
    const request = lastRequest();
    expect(request.rawUrl.startsWith("/v1/orders/..%2Fadmin")).toBe(true);
    expect(request.query.get("id")).toBe("corr-1");
    expect(request.headers["x-request-id"]).toBe("req-9");
  });

  it("sends form bodies with nested objects the Stripe way", async () => {
    const result = await client.callTool({
      name: "create_payment",
      arguments: { amount: 500, currency: "usd", metadata: { order: "A1" }, items: [{ price: "p_1", quantity: 2 }] },
    });
    expect(result.isError).toBeFalsy();
    const request = lastRequest();
    expect(request.headers["content-type"]).toMatch(/application\/x-www-form-urlencoded/);
    const form = new URLSearchParams(request.body);
    expect(form.get("amount")).toBe("500");
    expect(form.get("metadata[order]")).toBe("A1");
    expect(form.get("items[0][price]")).toBe("p_1");
    expect(form.get("items[0][quantity]")).toBe("2");
  });

  it("returns invalid arguments as an isError tool result, not a protocol error", async () => {
    const before = upstream.requests.length;
    const result = await client.callTool({ name: "list_pets", arguments: { limit: 500 } });
    expect(result.isError).toBe(true);
    expect(upstream.requests.length).toBe(before);
  });
});

describe("Streamable HTTP under several clients", () => {
  it("serves concurrent clients and survives repeated initialize", async () => {
    const server = await startHttpServer(project.dir, env);
    try {
      const clients = await Promise.all(Array.from({ length: 8 }, () => connectHttp(server.url)));
      const results = await Promise.all(
        clients.map((client, index) => client.callTool({ name: "get_pet", arguments: { petId: index + 1 } })),
      );
      results.forEach((result, index) =>
        expect((result.structuredContent as { data: { id: number } }).data.id).toBe(index + 1),
      );
      await Promise.all(clients.map((client) => client.close()));
      const again = await connectHttp(server.url);
      expect((await again.listTools()).tools.length).toBe(project.result.model.tools.length + 3);
      await again.close();
    } finally {
      await server.stop();
    }
  });
});
