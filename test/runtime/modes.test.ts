/**
 * Tool modes, start-up filters and long-running operations, in process: the
 * runtime behind a real SDK Client (in-memory transport) against a local
 * upstream. The generated-project version of these checks is
 * test/e2e/modes.e2e.test.ts.
 */
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { CallToolResultSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadRuntimeConfig } from "../../templates/server/src/runtime/config/config.js";
import { classifyPoll, findStatusLink, finalResult } from "../../templates/server/src/runtime/call/long-running.js";
import { dispatchGroups } from "../../templates/server/src/runtime/modes/dispatch.js";
import { resolveToolMode } from "../../templates/server/src/runtime/modes/modes.js";
import { SearchIndex } from "../../templates/server/src/runtime/modes/search-index.js";
import type { ToolData, ToolsFile } from "../../templates/server/src/runtime/shared/tool-data.js";
import { json, startUpstream, type RecordedRequest, type Upstream } from "../helpers/upstream.js";
import { createServer as createMcpServer } from "../../templates/server/src/runtime/mcp/server.js";
import type { ServerOptions } from "../../templates/server/src/runtime/server/runtime.js";

const fixture = JSON.parse(
  readFileSync(new URL("../fixtures/runtime-tools.json", import.meta.url), "utf8"),
) as ToolsFile;
const createPet = fixture.tools.find((tool) => tool.name === "create_pet")!;
const getPet = fixture.tools.find((tool) => tool.name === "get_pet")!;

const deletePet: ToolData = {
  ...getPet,
  name: "delete_pet",
  title: "Delete a pet",
  description: "Deletes a pet for good.",
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  operation: { ...getPet.operation!, method: "delete" },
  tags: ["pets"],
};
const startExport: ToolData = {
  ...createPet,
  name: "start_export",
  title: "Export all pets",
  description: "Starts an export of every pet as a file; long-running.",
  category: "exports",
  tags: ["exports"],
  inputSchema: {
    type: "object",
    properties: { format: { type: "string", enum: ["csv", "json"] } },
    required: ["format"],
    additionalProperties: false,
  },
  operation: {
    method: "post",
    path: "/exports",
    parameters: [],
    body: { mode: "flattened", properties: { format: "format" }, mediaType: "application/json", required: true },
    security: [["bearer"]],
  },
  guidance: {
    hints: {
      minimal: { required: ["format"], optional: [] },
      typed: { format: { type: "string", required: true, enum: ["csv", "json"] } },
      full: { required: ["format"], properties: { format: { type: "string", enum: ["csv", "json"] } } },
    },
    examples: { minimal: { format: "csv" }, full: { format: "csv" } },
    links: [],
  },
  responseSchema: undefined,
};
const toolsFile: ToolsFile = { api: fixture.api, tools: [...fixture.tools, deletePet, startExport] };

let upstream: Upstream;
let upstreamBase: string;
/** What the upstream received, in order. */
let seen: RecordedRequest[];
let exportPolls = 0;

beforeAll(async () => {
  upstream = await startUpstream();
  seen = upstream.requests;
  upstream.route("GET", /^\/v1\/pets$/, (_req, res) => json(res, 200, [{ id: 1, name: "Rex" }]));
  upstream.route("POST", /^\/v1\/pets$/, (req, res) => json(res, 201, { id: 3, ...(JSON.parse(req.body) as object) }));
  upstream.route("DELETE", /^\/v1\/pets\/1$/, (_req, res) => void res.writeHead(204).end());
  upstream.route("GET", /^\/v1\/pets\/1$/, (_req, res) => json(res, 200, { id: 1, name: "Rex" }));
  upstream.route("POST", /^\/v1\/exports$/, (_req, res) => {
    exportPolls = 0;
    json(res, 202, { status: "queued" }, { location: "/v1/exports/jobs/7" });
  });
  upstream.route("GET", /^\/v1\/exports\/jobs\/7$/, (_req, res) => {
    exportPolls++;
    if (exportPolls < 3)
      return json(res, 200, { status: "running", percentComplete: exportPolls * 30 }, { "retry-after": "0.05" });
    json(res, 200, { status: "succeeded", result: { id: 7, url: "https://files.invalid/7.csv" } });
  });
  upstreamBase = `${upstream.url}/v1`;
});

afterAll(async () => {
  await upstream.close();
});

async function client(overrides: ServerOptions = {}, file: ToolsFile = toolsFile): Promise<Client> {
  const server = createMcpServer(file, {
    env: { PETS_BASE_URL: upstreamBase, PETS_TOKEN: "tok-123" },
    handlers: { echo: async (args) => ({ echoed: args["message"] }) },
    log: () => {},
    pollIntervalMs: 20,
    ...overrides,
  });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const connected = new Client({ name: "modes-test", version: "1.0.0" });
  await connected.connect(clientTransport);
  await connected.listTools();
  return connected;
}

async function call(c: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await c.callTool({ name, arguments: args })) as CallToolResult;
}

const structured = (result: CallToolResult) => result.structuredContent as Record<string, any>;

describe("mode resolution and configuration", () => {
  it("auto is per-operation up to the threshold and discovery above it; an explicit mode wins", () => {
    expect(resolveToolMode(undefined, {}, 40)).toBe("per-operation");
    expect(resolveToolMode(undefined, {}, 41)).toBe("discovery");
    expect(resolveToolMode(undefined, { toolMode: "auto", autoThreshold: 5 }, 6)).toBe("discovery");
    expect(resolveToolMode(undefined, { toolMode: "dispatch" }, 6)).toBe("dispatch");
    expect(resolveToolMode("per-operation", { toolMode: "dispatch" }, 6000)).toBe("per-operation");
  });

  it("reads --tools, the filters and the wait timeout from flags and env", () => {
    const api = { name: "pets-mcp", envPrefix: "PETS", baseUrlEnv: "PETS_BASE_URL", timeoutMs: 1000 };
    const fromFlags = loadRuntimeConfig(
      [
        "--tools",
        "dispatch",
        "--include-tags",
        "pets, exports",
        "--exclude-ops",
        "get_*",
        "--methods",
        "GET,post",
        "--read-only",
        "--wait-timeout-ms",
        "5000",
      ],
      {},
      api,
    );
    expect(fromFlags).toMatchObject({
      config: {
        toolMode: "dispatch",
        filter: {
          includeTags: ["pets", "exports"],
          excludeOperations: ["get_*"],
          methods: ["get", "post"],
          readOnly: true,
        },
        waitTimeoutMs: 5000,
      },
    });
    const fromEnv = loadRuntimeConfig(
      [],
      {
        PETS_TOOLS: "discovery",
        PETS_EXCLUDE_TAGS: "exports",
        PETS_INCLUDE_OPS: "list_*",
        PETS_READ_ONLY: "true",
        PETS_WAIT_TIMEOUT_MS: "10",
      },
      api,
    );
    expect(fromEnv).toMatchObject({
      config: {
        toolMode: "discovery",
        filter: { excludeTags: ["exports"], includeOperations: ["list_*"], readOnly: true },
        waitTimeoutMs: 10,
      },
    });
    expect(() => loadRuntimeConfig(["--tools", "all"], {}, api)).toThrow(/per-operation, dispatch, discovery, auto/);
    expect(loadRuntimeConfig([], {}, api)).not.toHaveProperty("config.filter");
  });

  it("names dispatch tools from the API or its categories, valid, unique and never reserved", () => {
    expect(dispatchGroups({ name: "pets-mcp" }, toolsFile.tools).map((g) => g.name)).toEqual(["pets"]);
    const many = Array.from({ length: 200 }, (_, i) => ({
      ...getPet,
      name: `op_${i}`,
      category: i < 100 ? "info" : i < 150 ? "Pets & Owners!" : "pets & owners",
    }));
    const names = dispatchGroups({ name: "x" }, many).map((g) => g.name);
    expect(names).toEqual(["info_2", "Pets_Owners", "pets_owners"]);
    for (const name of names) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
  });
});

describe("dispatch mode", () => {
  let c: Client;
  beforeAll(async () => {
    c = await client({ toolMode: "dispatch" });
  });

  it("lists one tool with a visible action enum, plus info, read_response and operation_status", async () => {
    const { tools } = await c.listTools();
    expect(tools.map((t) => t.name)).toEqual(["pets", "info", "read_response", "operation_status"]);
    const schema = tools[0]!.inputSchema as {
      properties: { action: { enum: string[] }; params: { type: string } };
      required: string[];
    };
    expect(schema.properties.action.enum).toEqual([...toolsFile.tools.map((t) => t.name), "list", "describe"]);
    expect(schema.properties.params.type).toBe("object");
    expect(schema.required).toEqual(["action"]);
    expect(c.getInstructions()).toContain('{"action": "list"}');
  });

  it("list gives trimmed summaries; describe gives hints and dispatch-shaped valid calls", async () => {
    const list = structured(await call(c, "pets", { action: "list" }));
    expect(list["actions"]).toContainEqual({
      name: "get_pet",
      description: expect.any(String),
      category: "pets",
      required: ["petId"],
    });
    expect(list["actions"].find((a: { name: string }) => a.name === "delete_pet")).toMatchObject({ destructive: true });
    const described = structured(
      await call(c, "pets", { action: "describe", params: { action: "create_pet", level: "typed" } }),
    );
    expect(described["schema"]).toMatchObject({ name: { type: "string", required: true } });
    expect(described["next_steps"][0]).toEqual({
      tool: "pets",
      params: { action: "create_pet", params: { name: "Rex" } },
      note: "Minimal valid call",
    });
  });

  it("runs an action through the guided path; available_actions and next_steps are dispatch calls", async () => {
    const result = await call(c, "pets", { action: "get_pet", params: { petId: 1 } });
    expect(result.isError).toBeFalsy();
    expect(structured(result)["data"]).toEqual({ id: 1, name: "Rex" });
    for (const step of [...structured(result)["available_actions"], ...(structured(result)["next_steps"] ?? [])])
      expect(step.tool).toBe("pets");
  });

  it("answers an unknown action with did-you-mean", async () => {
    const result = await call(c, "pets", { action: "get_pett", params: { petId: 1 } });
    expect(result.isError).toBe(true);
    const error = structured(result)["error"];
    expect(error).toMatchObject({ code: "UNKNOWN_ACTION", tool: "pets", suggestions: { did_you_mean: "get_pet" } });
    expect(error.next_steps[0]).toMatchObject({ tool: "pets", params: { action: "get_pet", params: { petId: 1 } } });
  });

  it("validation errors carry the action's hints and dispatch-shaped corrective_params", async () => {
    const result = await call(c, "pets", { action: "list_pets", params: { limit: "500" } });
    const error = structured(result)["error"];
    expect(error.code).toBe("INVALID_TYPE");
    expect(error.tool).toBe("pets");
    expect(error.details.operation).toBe("list_pets");
    expect(error.corrective_params).toEqual({ action: "list_pets", params: { limit: 100 } });
    expect(error.next_steps[0]).toMatchObject({
      tool: "pets",
      params: { action: "list_pets", params: { limit: 100 } },
    });
    expect((result.content[0] as { text: string }).text).toContain('"action": "list_pets"');
  });

  it("gates destructive actions and gives the confirmed dispatch call", async () => {
    const first = structured(await call(c, "pets", { action: "delete_pet", params: { petId: 1 } }))["error"];
    expect(first.code).toBe("CONFIRMATION_REQUIRED");
    expect(first.next_steps[0]).toMatchObject({
      tool: "pets",
      params: { action: "delete_pet", params: { petId: 1, _confirm: true } },
    });
    const confirmed = await call(c, "pets", first.next_steps[0].params);
    expect(confirmed.isError).toBeFalsy();
    expect(seen.at(-1)).toMatchObject({ method: "DELETE", rawUrl: "/v1/pets/1" });
  });
});

describe("discovery mode", () => {
  let c: Client;
  beforeAll(async () => {
    c = await client({ toolMode: "discovery" });
  });

  it("lists the three meta-tools and names the sequence in the instructions", async () => {
    const { tools } = await c.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      "search_operations",
      "describe_operation",
      "invoke_operation",
      "info",
      "read_response",
      "operation_status",
    ]);
    expect(c.getInstructions()).toMatch(/search_operations.*→.*describe_operation.*→.*invoke_operation/s);
  });

  it("search → describe → invoke", async () => {
    const found = structured(await call(c, "search_operations", { query: "export pets file" }));
    expect(found["results"][0]).toMatchObject({
      name: "start_export",
      method: "POST",
      path: "/exports",
      required: ["format"],
    });
    const described = structured(await call(c, "describe_operation", { name: "get_pet" }));
    const invoke = described["next_steps"][0];
    expect(invoke).toMatchObject({ tool: "invoke_operation", params: { name: "get_pet", params: { petId: 1 } } });
    const result = await call(c, invoke.tool, invoke.params);
    expect(structured(result)["data"]).toEqual({ id: 1, name: "Rex" });
  });

  it("unknown operation names get did-you-mean; validation errors invoke-shaped corrective_params", async () => {
    const unknown = structured(await call(c, "invoke_operation", { name: "creat_pet", params: { name: "Rex" } }))[
      "error"
    ];
    expect(unknown).toMatchObject({ code: "UNKNOWN_OPERATION", suggestions: { did_you_mean: "create_pet" } });
    expect(unknown.next_steps[0]).toMatchObject({
      tool: "invoke_operation",
      params: { name: "create_pet", params: { name: "Rex" } },
    });
    const invalid = structured(await call(c, "invoke_operation", { name: "list_pets", params: { limit: 0 } }))["error"];
    expect(invalid.corrective_params).toEqual({ name: "list_pets", params: { limit: 1 } });
    const confirm = structured(await call(c, "invoke_operation", { name: "delete_pet", params: { petId: 1 } }))[
      "error"
    ];
    expect(confirm.next_steps[0]).toEqual(
      expect.objectContaining({
        tool: "invoke_operation",
        params: { name: "delete_pet", params: { petId: 1 }, _confirm: true },
      }),
    );
    expect((await call(c, "invoke_operation", confirm.next_steps[0].params)).isError).toBeFalsy();
  });

  it("ranks by names, descriptions, tags and paths", () => {
    const index = new SearchIndex(toolsFile.tools);
    expect(index.search("pet by id").hits[0]!.tool.name).toBe("get_pet");
    expect(index.search("delete").hits[0]!.tool.name).toBe("delete_pet");
    expect(index.search("exports", { category: "exports" }).hits.map((h) => h.tool.name)).toEqual(["start_export"]);
    expect(index.search("list_pets").hits[0]!.tool.name).toBe("list_pets");
  });
});

describe("start-up filters", () => {
  it("a filtered-out operation is unknown in every mode", async () => {
    for (const toolMode of ["per-operation", "dispatch", "discovery"] as const) {
      const c = await client({ toolMode, filter: { readOnly: true, excludeOperations: ["get_*"] } });
      const names = (await c.listTools()).tools.map((t) => t.name);
      if (toolMode === "per-operation")
        expect(names).toEqual(["list_pets", "echo", "info", "read_response", "operation_status"]); // echo: a read-only handler
      const result =
        toolMode === "per-operation"
          ? await call(c, "get_pet", { petId: 1 })
          : toolMode === "dispatch"
            ? await call(c, "pets", { action: "get_pet", params: { petId: 1 } })
            : await call(c, "invoke_operation", { name: "get_pet", params: { petId: 1 } });
      expect(structured(result)["error"].code).toMatch(/^UNKNOWN_(TOOL|ACTION|OPERATION)$/);
    }
  });
});

describe("long-running operations", () => {
  it("recognises status links and finished states", () => {
    const url = "http://api.test/v1/exports";
    expect(findStatusLink({ headers: { "operation-location": "/v1/ops/1" }, body: undefined, url })?.href).toBe(
      "http://api.test/v1/ops/1",
    );
    expect(findStatusLink({ headers: {}, body: { links: { status: "jobs/2" } }, url })?.href).toBe(
      "http://api.test/v1/jobs/2",
    );
    expect(findStatusLink({ headers: {}, body: { _links: { status: { href: "https://x.test/s" } } }, url })?.href).toBe(
      "https://x.test/s",
    );
    expect(findStatusLink({ headers: {}, body: { status: "queued" }, url })).toBeUndefined();
    expect(classifyPoll({ status: 200, body: { status: "InProgress" } })).toBe("running");
    expect(classifyPoll({ status: 200, body: { status: "Succeeded" } })).toBe("succeeded");
    expect(classifyPoll({ status: 200, body: { state: "FAILED" } })).toBe("failed");
    expect(classifyPoll({ status: 202, body: undefined })).toBe("running");
    expect(classifyPoll({ status: 200, body: { id: 1 } })).toBe("succeeded");
    expect(classifyPoll({ status: 200, body: { done: true, response: { id: 1 } } })).toBe("succeeded");
    expect(finalResult({ status: "succeeded", result: { id: 7 } })).toEqual({ id: 7 });
  });

  it("without wait: the handle and the exact operation_status call; then status polls to the result", async () => {
    const c = await client();
    const started = await call(c, "start_export", { format: "csv" });
    expect(started.isError).toBeFalsy();
    const s = structured(started);
    expect(s["operation"]).toMatchObject({ status: "running", status_url: `${upstreamBase}/exports/jobs/7` });
    const handle = s["operation"].handle as string;
    expect(s["next_steps"][0]).toEqual({
      tool: "operation_status",
      params: { handle, wait: true },
      note: "Wait for the result",
    });
    const once = structured(await call(c, "operation_status", { handle }));
    expect(once["operation"]).toMatchObject({ status: "running", upstream_status: "running", polls: 1 });
    const done = structured(await call(c, "operation_status", { handle, wait: true }));
    expect(done["operation"]).toMatchObject({ status: "succeeded" });
    expect(done["unvalidated_data"] ?? done["data"]).toEqual({ id: 7, url: "https://files.invalid/7.csv" });
    const unknown = structured(await call(c, "operation_status", { handle: "op_nope" }))["error"];
    expect(unknown.code).toBe("UNKNOWN_HANDLE");
  });

  it("with wait: polls with credentials, reports progress, returns the final result; never sends wait upstream", async () => {
    const c = await client();
    seen.length = 0;
    const progress: Array<{ progress: number; total?: number }> = [];
    const result = (await c.callTool(
      { name: "start_export", arguments: { format: "csv", wait: true } },
      CallToolResultSchema,
      {
        onprogress: (p) => progress.push(p),
      },
    )) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(structured(result)["operation"]).toMatchObject({ status: "succeeded", polls: 3 });
    expect(JSON.parse(seen[0]!.body)).toEqual({ format: "csv" });
    expect(
      seen.slice(1).every((r) => r.rawUrl === "/v1/exports/jobs/7" && r.headers.authorization === "Bearer tok-123"),
    ).toBe(true);
    expect(progress.map((p) => p.progress)).toEqual([30, 60]);
  });

  it("with wait in discovery mode, the call goes through invoke_operation", async () => {
    const c = await client({ toolMode: "discovery" });
    const result = await call(c, "invoke_operation", { name: "start_export", params: { format: "json" }, wait: true });
    expect(structured(result)["operation"]).toMatchObject({ status: "succeeded" });
  });

  it("stops waiting at the wait timeout with the handle", async () => {
    const c = await client({ waitTimeoutMs: 30 });
    const result = structured(await call(c, "start_export", { format: "csv", _wait: true }));
    expect(result["operation"].status).toBe("running");
    expect(result["warnings"].join(" ")).toMatch(/Still running/);
  });
});

describe("search index: paths", () => {
  const operation = (name: string, path: string) =>
    ({
      name,
      description: "Get the number of the resource",
      category: "termStore",
      pointer: `#/paths/${name}`,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
      inputSchema: { type: "object" },
      operation: { method: "get", path, parameters: [], security: [] },
      guidance: {
        hints: { minimal: { required: [], optional: [] }, typed: {}, full: { required: [], properties: {} } },
        links: [],
      },
    }) as unknown as ConstructorParameters<typeof SearchIndex>[0][number];
  const index = new SearchIndex([
    operation("count_sets_terms", "/sites/{site-id}/termStore/sets/{set-id}/terms/$count"),
    operation("count_terms_sets", "/sites/{site-id}/termStore/terms/{term-id}/sets/$count"),
  ]);

  it("ranks paths that differ only in segment order by the order of the query's words", () => {
    expect(index.search("count sites termStore sets terms").hits[0]!.tool.name).toBe("count_sets_terms");
    expect(index.search("count sites termStore terms sets").hits[0]!.tool.name).toBe("count_terms_sets");
  });

  it("finds an operation by its quoted path, whatever its parameters are called", () => {
    expect(index.search("/sites/{id}/termStore/terms/{x}/sets/$count").hits[0]!.tool.name).toBe("count_terms_sets");
  });
});
