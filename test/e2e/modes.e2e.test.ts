/**
 * Large-API features end to end, through generated + tsc-built projects and
 * the SDK's Client over stdio against a real local upstream:
 *
 * - tool modes (per-operation, dispatch, discovery, auto on both sides of the
 *   threshold) and their overrides by `--tools` and `<PREFIX>_TOOLS`;
 * - dispatch list / describe / unknown action / dispatch-shaped corrective_params;
 * - discovery search → describe → invoke; available_actions in the mode in use;
 * - start-up filters (tag, glob, method, read-only) and generator filters;
 * - x-mcp: a hidden path and a name/description override;
 * - a 202 + Location long-running operation, with wait (progress
 *   notifications) and without (handle + operation_status).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CallToolResultSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateAndBuild, type BuiltProject } from "../helpers/generated.js";
import { connectStdio } from "../helpers/mcp.js";
import { SAMPLES } from "../helpers/pipeline.js";
import { json, startUpstream, type Upstream } from "../helpers/upstream.js";

const WIDGETS = 40;

/** 45 operations (above the auto threshold of 40): widgets, a long-running export, x-mcp hide and override. */
function jobsSpec(): object {
  const paths: Record<string, unknown> = {
    "/exports": {
      post: {
        operationId: "startExport",
        summary: "Start an export of all widgets",
        tags: ["exports"],
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["format"],
                properties: { format: { type: "string", enum: ["csv", "json"] } },
              },
            },
          },
        },
        responses: { "202": { description: "Accepted", headers: { Location: { schema: { type: "string" } } } } },
      },
    },
    "/exports/{jobId}": {
      get: {
        operationId: "getExportJob",
        summary: "Status of an export job",
        tags: ["exports"],
        parameters: [{ name: "jobId", in: "path", required: true, schema: { type: "string" } }],
        responses: { "200": { description: "Job", content: { "application/json": { schema: { type: "object" } } } } },
      },
    },
    "/secret": {
      "x-mcp": false,
      get: {
        operationId: "getSecret",
        summary: "Internal secret",
        tags: ["internal"],
        responses: { "200": { description: "ok" } },
      },
    },
    "/reports": {
      get: {
        operationId: "listReports",
        "x-mcp": { name: "fetch_reports", description: "Reports, newest first." },
        summary: "List reports",
        tags: ["reports"],
        responses: {
          "200": {
            description: "Reports",
            content: { "application/json": { schema: { type: "array", items: { type: "object" } } } },
          },
        },
      },
    },
    "/items/{itemId}": {
      delete: {
        operationId: "deleteItem",
        summary: "Delete an item",
        tags: ["items"],
        parameters: [{ name: "itemId", in: "path", required: true, schema: { type: "integer", minimum: 1 } }],
        responses: { "204": { description: "Deleted" } },
      },
    },
  };
  for (let i = 0; i < WIDGETS; i++) {
    paths[`/widgets/w${i}`] = {
      get: {
        operationId: `getWidget${i}`,
        summary: `Get widget number ${i}`,
        tags: ["widgets"],
        parameters: [{ name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 50 } }],
        responses: {
          "200": {
            description: "Widget",
            content: { "application/json": { schema: { type: "object", properties: { id: { type: "integer" } } } } },
          },
        },
      },
    };
  }
  return {
    openapi: "3.0.3",
    info: { title: "Jobs", version: "1.0.0" },
    servers: [{ url: "http://localhost/api" }],
    components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
    security: [{ bearer: [] }],
    paths,
  };
}

let upstream: Upstream;
let petstore: BuiltProject;
let petstoreDispatch: BuiltProject;
let jobs: BuiltProject;
let petEnv: Record<string, string>;
let jobsEnv: Record<string, string>;
const clients: Client[] = [];
let exportPolls = 0;

async function connect(project: BuiltProject, env: Record<string, string>, args: string[] = []): Promise<Client> {
  const client = await connectStdio(project.dir, env, args);
  clients.push(client);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

const sc = (result: CallToolResult) => result.structuredContent as Record<string, any>;
const names = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name);

beforeAll(async () => {
  upstream = await startUpstream();
  const pet = (id: number) => ({ id, name: `pet-${id}`, status: "available" });
  upstream.route("GET", /^\/v1\/pets$/, (_req, res) => json(res, 200, [pet(1), pet(2)]));
  upstream.route("GET", /^\/v1\/pets\/\d+$/, (req, res) => json(res, 200, pet(Number(req.path.split("/").pop()))));
  upstream.route("POST", /^\/v1\/pets$/, (req, res) => json(res, 201, { id: 42, ...JSON.parse(req.body) }));
  upstream.route("GET", /^\/api\/widgets\/w\d+$/, (req, res) =>
    json(res, 200, { id: Number(req.path.slice(req.path.lastIndexOf("w") + 1)) }),
  );
  upstream.route("GET", /^\/api\/reports$/, (_req, res) => json(res, 200, [{ id: 1 }]));
  upstream.route("POST", /^\/api\/exports$/, (_req, res) => {
    exportPolls = 0;
    json(res, 202, { status: "queued" }, { location: "/api/exports/job-9" });
  });
  upstream.route("GET", /^\/api\/exports\/job-9$/, (_req, res) => {
    exportPolls++;
    if (exportPolls <= 2) return json(res, 200, { status: "running" }, { "retry-after": "0.1" });
    json(res, 200, { status: "succeeded", resource: { id: 9, download: "https://files.invalid/9.csv" } });
  });

  const dir = mkdtempSync(join(tmpdir(), "cgm-modes-"));
  writeFileSync(join(dir, "jobs.json"), JSON.stringify(jobsSpec()));
  [petstore, petstoreDispatch, jobs] = await Promise.all([
    generateAndBuild(join(SAMPLES, "petstore.yaml")),
    generateAndBuild(join(SAMPLES, "petstore.yaml"), { toolMode: "dispatch", filter: { excludeTags: ["payments"] } }),
    generateAndBuild(join(dir, "jobs.json")),
  ]);
  petEnv = { PETSTORE_BASE_URL: `${upstream.url}/v1`, PETSTORE_API_KEY: "k" };
  const api = jobs.result.model.api;
  const bearer = api.securitySchemes.find((scheme) => scheme.kind === "bearer") as { env: string };
  jobsEnv = { [api.baseUrlEnv]: `${upstream.url}/api`, [bearer.env]: "jobs-token" };
}, 900_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close().catch(() => {})));
  await upstream?.close();
});

describe("mode selection", () => {
  it("auto: per-operation at or below the threshold (Petstore)", async () => {
    const client = await connect(petstore, petEnv);
    expect(await names(client)).toEqual([
      ...petstore.result.model.tools.map((t) => t.name),
      "info",
      "read_response",
      "operation_status",
    ]);
    expect(client.getInstructions()).toMatch(/`info` first/);
  });

  it("auto: discovery above the threshold (45 operations)", async () => {
    expect(jobs.result.model.tools.length).toBeGreaterThan(40);
    const client = await connect(jobs, jobsEnv);
    expect(await names(client)).toEqual([
      "search_operations",
      "describe_operation",
      "invoke_operation",
      "info",
      "read_response",
      "operation_status",
    ]);
    expect(client.getInstructions()).toMatch(/search_operations.*→.*describe_operation.*→.*invoke_operation/s);
    expect(client.getInstructions()).toContain('"wait": true');
  });

  it("the generator's --tools choice is recorded; --tools and <PREFIX>_TOOLS override it", async () => {
    expect(await names(await connect(petstoreDispatch, petEnv))).toEqual([
      "petstore",
      "info",
      "read_response",
      "operation_status",
    ]);
    expect((await names(await connect(petstoreDispatch, petEnv, ["--tools", "discovery"])))[0]).toBe(
      "search_operations",
    );
    expect((await names(await connect(petstore, { ...petEnv, PETSTORE_TOOLS: "dispatch" })))[0]).toBe("petstore");
    expect((await names(await connect(jobs, jobsEnv, ["--tools", "per-operation"]))).length).toBe(
      jobs.result.model.tools.length + 3,
    );
    // Flag beats env.
    expect(
      (await names(await connect(petstore, { ...petEnv, PETSTORE_TOOLS: "dispatch" }, ["--tools", "discovery"])))[0],
    ).toBe("search_operations");
  });
});

describe("dispatch mode", () => {
  let client: Client;
  beforeAll(async () => {
    client = await connect(petstoreDispatch, petEnv);
  });

  it("shows the action enum in the schema and excludes what the generator filtered out", async () => {
    const [tool] = (await client.listTools()).tools;
    const action = (tool!.inputSchema.properties as Record<string, { enum: string[] }>)["action"]!;
    expect(action.enum).toEqual([...petstoreDispatch.result.model.tools.map((t) => t.name), "list", "describe"]);
    expect(action.enum).not.toContain("create_payment");
    expect(tool!.inputSchema.required).toEqual(["action"]);
  });

  it("list, describe, invoke, with available_actions as dispatch calls", async () => {
    const list = sc(await call(client, "petstore", { action: "list" }));
    expect(list["actions"]).toContainEqual(expect.objectContaining({ name: "get_pet", required: ["petId"] }));
    const described = sc(
      await call(client, "petstore", { action: "describe", params: { action: "get_pet", level: "full" } }),
    );
    expect(described).toMatchObject({ name: "get_pet", level: "full", examples: { minimal: expect.any(Object) } });
    const result = await call(client, "petstore", { action: "get_pet", params: { petId: 3 } });
    expect(sc(result)["data"]).toMatchObject({ id: 3 });
    expect(upstream.requests.at(-1)!.path).toBe("/v1/pets/3");
    const actions = sc(result)["available_actions"] as Array<{
      tool: string;
      params: { action: string; params: object };
    }>;
    expect(actions.length).toBeGreaterThan(0);
    for (const a of actions)
      expect(a).toMatchObject({ tool: "petstore", params: { action: expect.any(String), params: expect.any(Object) } });
  });

  it("unknown action → UNKNOWN_ACTION with did-you-mean; invalid params → dispatch-shaped corrective_params", async () => {
    const unknown = sc(await call(client, "petstore", { action: "list_pet" }))["error"];
    expect(unknown).toMatchObject({ code: "UNKNOWN_ACTION", suggestions: { did_you_mean: "list_pets" } });
    const invalid = sc(await call(client, "petstore", { action: "list_pets", params: { limit: "20" } }))["error"];
    expect(invalid).toMatchObject({
      code: "INVALID_TYPE",
      tool: "petstore",
      corrective_params: { action: "list_pets", params: { limit: 20 } },
    });
    expect(invalid.schema_hint).toBeDefined();
    const retried = await call(client, "petstore", invalid.corrective_params);
    expect(retried.isError).toBeFalsy();
  });
});

describe("discovery mode", () => {
  let client: Client;
  beforeAll(async () => {
    client = await connect(jobs, jobsEnv);
  });

  it("search → describe → invoke reaches an operation in three calls", async () => {
    const found = sc(await call(client, "search_operations", { query: "widget number 17" }));
    expect(found["results"][0].name).toBe("get_widget17");
    const described = sc(await call(client, "describe_operation", { name: found["results"][0].name, level: "typed" }));
    const step = described["next_steps"][0];
    expect(step.tool).toBe("invoke_operation");
    const result = await call(client, step.tool, { ...step.params, params: { limit: 5 } });
    expect(sc(result)["data"]).toEqual({ id: 17 });
    expect(upstream.requests.at(-1)!.query.get("limit")).toBe("5");
    expect(upstream.requests.at(-1)!.headers.authorization).toBe("Bearer jobs-token");
  });

  it("unknown names get did-you-mean, invalid params an invoke-shaped correction", async () => {
    const unknown = sc(await call(client, "describe_operation", { name: "get_widgt17" }))["error"];
    expect(unknown).toMatchObject({ code: "UNKNOWN_OPERATION", suggestions: { did_you_mean: "get_widget17" } });
    const invalid = sc(await call(client, "invoke_operation", { name: "get_widget1", params: { limit: 500 } }))[
      "error"
    ];
    expect(invalid.corrective_params).toEqual({ name: "get_widget1", params: { limit: 50 } });
    expect(invalid.next_steps[0]).toMatchObject({
      tool: "invoke_operation",
      params: { name: "get_widget1", params: { limit: 50 } },
    });
  });

  it("x-mcp: a hidden path is gone, an override names and describes the tool", async () => {
    const model = jobs.result.model.tools;
    expect(model.some((t) => t.operationId === "getSecret")).toBe(false);
    expect(model.find((t) => t.name === "fetch_reports")?.description).toContain("Reports, newest first.");
    const hidden = sc(await call(client, "invoke_operation", { name: "get_secret" }))["error"];
    expect(hidden.code).toBe("UNKNOWN_OPERATION");
    const found = sc(await call(client, "search_operations", { query: "reports" }));
    expect(found["results"][0].name).toBe("fetch_reports");
    const perOp = await connect(jobs, jobsEnv, ["--tools", "per-operation"]);
    const listed = (await perOp.listTools()).tools;
    expect(listed.find((t) => t.name === "fetch_reports")?.description).toContain("Reports, newest first.");
    expect(listed.some((t) => /secret/.test(t.name))).toBe(false);
  });
});

describe("start-up filters", () => {
  it("by tag, glob, method and read-only, from flags and env; filtered-out operations are unknown", async () => {
    const byTag = await connect(petstore, petEnv, ["--include-tags", "owners,orders"]);
    expect(await names(byTag)).toEqual(["get_owner", "get_order", "info", "read_response", "operation_status"]);
    expect(sc(await call(byTag, "list_pets"))["error"].code).toBe("UNKNOWN_TOOL");

    const byGlob = await connect(petstore, { ...petEnv, PETSTORE_INCLUDE_OPS: "*_pet,getOwner" });
    expect(
      (await names(byGlob)).filter((n) => !["info", "read_response", "operation_status"].includes(n)).sort(),
    ).toEqual(["create_pet", "delete_pet", "get_owner", "get_pet", "update_pet"]);

    const byMethod = await connect(petstore, petEnv, ["--methods", "post"]);
    expect(
      (await names(byMethod)).filter((n) => !["info", "read_response", "operation_status"].includes(n)).sort(),
    ).toEqual(["create_payment", "create_pet", "search_pets"]);

    const readOnly = await connect(petstore, { ...petEnv, PETSTORE_READ_ONLY: "true" }, ["--tools", "dispatch"]);
    const [dispatch] = (await readOnly.listTools()).tools;
    const actions = (dispatch!.inputSchema.properties as Record<string, { enum: string[] }>)["action"]!.enum;
    expect(actions).not.toContain("delete_pet");
    expect(actions).toContain("list_pets");
    expect(sc(await call(readOnly, "petstore", { action: "delete_pet", params: { petId: 1 } }))["error"].code).toBe(
      "UNKNOWN_ACTION",
    );
  });
});

describe("long-running operations (202 + Location)", () => {
  it("with wait: polls until done, sending progress notifications, and returns the final resource", async () => {
    const client = await connect(jobs, jobsEnv);
    const progress: number[] = [];
    const result = (await client.callTool(
      { name: "invoke_operation", arguments: { name: "start_export", params: { format: "csv" }, wait: true } },
      CallToolResultSchema,
      { onprogress: (p) => progress.push(p.progress) },
    )) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(sc(result)["operation"]).toMatchObject({ status: "succeeded", polls: 3 });
    expect(sc(result)["data"] ?? sc(result)["unvalidated_data"]).toEqual({
      id: 9,
      download: "https://files.invalid/9.csv",
    });
    expect(progress).toEqual([1, 2]);
    const post = upstream.requests.find((r) => r.method === "POST" && r.path === "/api/exports")!;
    expect(JSON.parse(post.body)).toEqual({ format: "csv" }); // `wait` never goes upstream
    const polls = upstream.requests.filter((r) => r.path === "/api/exports/job-9");
    expect(polls.every((r) => r.headers.authorization === "Bearer jobs-token")).toBe(true);
  });

  it("without wait: the handle and the exact operation_status call, which then waits for the result", async () => {
    const client = await connect(jobs, jobsEnv, ["--tools", "per-operation"]);
    const start = (await client.listTools()).tools.find((t) => t.name === "start_export")!;
    expect(start.inputSchema.properties).toHaveProperty("wait");
    const accepted = sc(await call(client, "start_export", { format: "json" }));
    expect(accepted["operation"]).toMatchObject({ status: "running", status_url: `${upstream.url}/api/exports/job-9` });
    const statusCall = accepted["next_steps"][0];
    expect(statusCall).toMatchObject({
      tool: "operation_status",
      params: { handle: accepted["operation"].handle, wait: true },
    });
    const done = sc(await call(client, statusCall.tool, statusCall.params));
    expect(done["operation"]).toMatchObject({ status: "succeeded" });
    expect(done["data"] ?? done["unvalidated_data"]).toEqual({ id: 9, download: "https://files.invalid/9.csv" });
  });
});
