import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ElicitRequestSchema, type CallToolResult, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineHooks } from "../../templates/server/src/runtime/hook-types.js";
import { startHttpServer, type RunningHttpServer } from "../../templates/server/src/runtime/mcp/http.js";
import type { ToolsFile } from "../../templates/server/src/runtime/shared/tool-data.js";
import { json, startUpstream, type RecordedRequest, type Upstream } from "../helpers/upstream.js";
import {
  createServer as createMcpServer,
  createServerFromRuntime,
} from "../../templates/server/src/runtime/mcp/server.js";
import { createToolRuntime, type ServerOptions } from "../../templates/server/src/runtime/server/runtime.js";
import { withContentId } from "../../templates/server/src/runtime/server/listing.js";

const toolsFile = JSON.parse(
  readFileSync(new URL("../fixtures/runtime-tools.json", import.meta.url), "utf8"),
) as ToolsFile;

let upstream: Upstream;
let upstreamBase: string;
/** What the upstream received, in order. */
let seen: RecordedRequest[];

const pets = [
  { id: 1, name: "Rex", tag: "dog" },
  { id: 2, name: "Tom", tag: "cat" },
];

beforeAll(async () => {
  upstream = await startUpstream();
  seen = upstream.requests;
  upstream.route("GET", /^\/v1\/pets$/, (_req, res) => json(res, 200, pets));
  upstream.route("POST", /^\/v1\/pets$/, (req, res) => json(res, 201, { id: 3, ...(JSON.parse(req.body) as object) }));
  upstream.route("DELETE", /^\/v1\/pets\/2$/, (_req, res) => void res.writeHead(204).end());
  upstream.route("GET", /^\/v1\/pets\/1$/, (_req, res) => json(res, 200, pets[0]));
  upstream.route("GET", /^\/v1\/pets\//, (_req, res) => json(res, 404, { message: "Pet not found" }));
  upstream.route(
    "GET",
    /^\/v1\/motd$/,
    (_req, res) => void res.writeHead(200, { "content-type": "text/plain" }).end("Be kind to pets."),
  );
  upstream.route("GET", /^\/v1\/drift$/, (_req, res) => json(res, 200, { wrong: true }));
  upstream.route("GET", /^\/v1\/broken$/, (_req, res) => json(res, 500, { message: "database on fire" }));
  upstreamBase = `${upstream.url}/v1`;
});

afterAll(async () => {
  await upstream.close();
});

function options(overrides: ServerOptions = {}): ServerOptions {
  return {
    env: { PETS_BASE_URL: upstreamBase, PETS_TOKEN: "tok-123", PETS_API_KEY: "key-456" },
    handlers: { echo: async (args) => ({ echoed: args["message"] }) },
    log: () => {},
    ...overrides,
  };
}

async function inMemoryClient(serverOptions: ServerOptions = options()): Promise<Client> {
  const server = createMcpServer(toolsFile, serverOptions);
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(clientTransport);
  // Client.callTool validates structuredContent against the outputSchema it saw here.
  await client.listTools();
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function textOf(result: CallToolResult): string {
  return result.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
}

describe("tools/list", () => {
  it("lists every tool with its inputSchema exactly as in the data file", async () => {
    const client = await inMemoryClient();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      ...toolsFile.tools.map((tool) => tool.name),
      "info",
      "read_response",
      "operation_status",
    ]);
    for (const [index, tool] of tools.slice(0, toolsFile.tools.length).entries()) {
      const source = toolsFile.tools[index]!;
      // Operations that change something also list the reserved `wait` flag (long-running 202 operations).
      const mutating = source.operation !== undefined && source.operation.method !== "get";
      const listed = mutating
        ? {
            ...tool.inputSchema,
            properties: Object.fromEntries(
              Object.entries(tool.inputSchema.properties ?? {}).filter(([key]) => key !== "wait"),
            ),
          }
        : tool.inputSchema;
      expect(listed).toEqual(source.inputSchema);
      if (mutating) expect(tool.inputSchema.properties?.["wait"]).toMatchObject({ type: "boolean" });
      expect(tool.description).toBe(source.description);
      expect(tool.annotations).toEqual(source.annotations);
      expect(tool.outputSchema).toMatchObject({ type: "object", additionalProperties: true });
      expect(tool.outputSchema).not.toHaveProperty("required");
    }
    expect(tools[0]!.title).toBe("List pets");
    const instructions = client.getInstructions()!;
    expect(instructions.startsWith(toolsFile.api.instructions)).toBe(true);
    for (const word of ["`info`", '"_confirm": true', "`read_response`", "corrective_params", "available_actions"])
      expect(instructions).toContain(word);
    expect(client.getServerVersion()).toMatchObject({ name: "pets-mcp", version: "1.2.3" });
  });

  it("names identical output schemas with one content-derived $id, so a client compiles each distinct one once", async () => {
    const client = await inMemoryClient();
    const { tools } = await client.listTools();
    const withoutId = (schema: object | undefined) => {
      const { $id: _id, ...rest } = (schema ?? {}) as Record<string, unknown>;
      return JSON.stringify(rest);
    };
    const ids = new Map<string, string>();
    for (const tool of tools) {
      const id = tool.outputSchema?.["$id"];
      expect(id).toMatch(/^urn:guided-mcp:output:[\w-]{22}$/);
      const content = withoutId(tool.outputSchema);
      // Same id exactly when the content is the same.
      expect(ids.get(id as string) ?? content).toBe(content);
      ids.set(id as string, content);
    }
    expect(new Set(ids.values()).size).toBe(ids.size);
    expect(ids.size).toBeLessThan(tools.length);
    // The v1 client looks schemas up by $id: calls through two tools sharing one still validate their results.
    const idOf = (name: string) => tools.find((tool) => tool.name === name)?.outputSchema?.["$id"];
    expect(idOf("get_pet")).toBe(idOf("get_drifting"));
    expect((await call(client, "get_pet", { petId: 1 })).isError).toBeFalsy();
    expect((await call(client, "get_drifting")).structuredContent).toBeDefined();
  });

  it("leaves a schema with its own identifiers (or inner ones) without a content $id", () => {
    const own = { type: "object" as const, $id: "https://example.test/pet" };
    expect(withContentId(own)).toBe(own);
    const inner = { type: "object" as const, properties: { data: { $id: "pet.json", type: "object" } } };
    expect(withContentId(inner)).toBe(inner);
    const anchored = { type: "object" as const, $defs: { Pet: { $anchor: "pet" } } };
    expect(withContentId(anchored)).toBe(anchored);
    expect(withContentId({ type: "object" })).toEqual({ $id: expect.stringMatching(/^urn:/), type: "object" });
  });

  it("hoists the response schema's $defs so references still resolve", async () => {
    const client = await inMemoryClient();
    const listPets = (await client.listTools()).tools.find((tool) => tool.name === "list_pets")!;
    expect(listPets.outputSchema).toMatchObject({
      properties: { data: { type: "array", items: { $ref: "#/$defs/Pet" } } },
      $defs: { Pet: { type: "object" } },
    });
  });
});

describe("tools/call", () => {
  it("calls the upstream with serialised arguments and the bearer token", async () => {
    const client = await inMemoryClient();
    seen.length = 0;
    const result = await call(client, "list_pets", { limit: 2, tags: ["dog", "cat"] });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ data: pets, resolved_inputs: { limit: 2, tags: ["dog", "cat"] } });
    expect(textOf(result)).toContain('"name": "Rex"');
    expect(seen).toHaveLength(1);
    expect(seen[0]!.rawUrl).toBe("/v1/pets?limit=2&tags=dog&tags=cat");
    expect(seen[0]!.headers["authorization"]).toBe("Bearer tok-123");
  });

  it("sends a JSON POST body with the API key header", async () => {
    const client = await inMemoryClient();
    seen.length = 0;
    const result = await call(client, "create_pet", { name: "Fido", "X-Request-Id": "r-1" });
    expect(result.structuredContent).toMatchObject({ data: { id: 3, name: "Fido" } });
    expect(seen[0]).toMatchObject({ method: "POST", body: '{"name":"Fido"}' });
    expect(seen[0]!.headers).toMatchObject({
      "content-type": "application/json",
      "x-api-key": "key-456",
      "x-request-id": "r-1",
    });
  });

  it("rejects invalid arguments before calling the upstream", async () => {
    const client = await inMemoryClient();
    seen.length = 0;
    const result = await call(client, "get_pet", { petId: "one", extra: 1 });
    expect(result.isError).toBe(true);
    expect(seen).toHaveLength(0);
    expect(result.structuredContent).toMatchObject({ error: { code: "UNKNOWN_PARAMETER", tool: "get_pet" } });
    const issues = (result.structuredContent as { error: { issues: unknown[] } }).error.issues;
    expect(issues.length).toBe(2); // allErrors: both problems at once
  });

  it("answers an unknown tool with an error result, not a protocol error", async () => {
    const client = await inMemoryClient();
    const result = await call(client, "get_pets_typo");
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("get_pets_typo");
    expect(result.structuredContent).toMatchObject({ error: { code: "UNKNOWN_TOOL" } });
  });

  it("turns a non-2xx upstream answer into an error result with the status and body", async () => {
    const client = await inMemoryClient();
    const result = await call(client, "get_broken");
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({
      error: { code: "UPSTREAM_UNAVAILABLE", details: { status: 500 } },
    });
    expect(textOf(result)).toContain("database on fire");
    const notFound = await call(client, "get_pet", { petId: 99 });
    expect(notFound.structuredContent).toMatchObject({
      error: { code: "UPSTREAM_NOT_FOUND", details: { status: 404 } },
    });
  });

  it("answers an empty 204 with an empty envelope, even when a response schema exists", async () => {
    const deleting: ToolsFile = {
      ...toolsFile,
      tools: [
        {
          ...toolsFile.tools[1]!,
          name: "delete_pet",
          operation: { ...toolsFile.tools[1]!.operation!, method: "delete" },
        },
      ],
    };
    const server = createMcpServer(deleting, options());
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await server.connect(serverTransport);
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(clientTransport);
    await client.listTools();
    const result = await call(client, "delete_pet", { petId: 2 });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ resolved_inputs: { petId: 2 } });
    expect(result.structuredContent).not.toHaveProperty("data");
    expect(textOf(result)).toContain("HTTP 204");
  });

  it("wraps text bodies in the object envelope", async () => {
    const client = await inMemoryClient();
    expect((await call(client, "get_motd")).structuredContent).toMatchObject({ data: "Be kind to pets." });
  });

  it("passes a body that drifted from its schema without breaking the client's output validation", async () => {
    const client = await inMemoryClient();
    const result = await call(client, "get_drifting");
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ unvalidated_data: { wrong: true } });
    expect(result.structuredContent).not.toHaveProperty("data");
  });

  it("names the missing env var, and no credential value, when auth is not configured", async () => {
    const client = await inMemoryClient();
    seen.length = 0;
    const result = await call(client, "get_secret");
    expect(result.isError).toBe(true);
    expect(seen).toHaveLength(0);
    expect(result.structuredContent).toMatchObject({
      error: {
        code: "UPSTREAM_UNAUTHORIZED",
        details: { reason: "missing_credentials", missing_env: ["PETS_OTHER_KEY"], upstream_called: false },
      },
    });
    expect(JSON.stringify(result)).not.toMatch(/tok-123|key-456/);
  });

  it("runs handler-backed tools from the registry", async () => {
    const client = await inMemoryClient();
    expect((await call(client, "echo", { message: "hi" })).structuredContent).toMatchObject({ data: { echoed: "hi" } });
    const missing = await inMemoryClient(options({ handlers: {} }));
    const result = await call(missing, "echo", { message: "hi" });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("no handler registered");
    expect(result.structuredContent).toMatchObject({ error: { code: "NOT_IMPLEMENTED" } });
  });

  it("reports an unreachable upstream as a transport failure", async () => {
    const client = await inMemoryClient(options({ env: { PETS_BASE_URL: "http://127.0.0.1:1/v1", PETS_TOKEN: "t" } }));
    const result = await call(client, "list_pets");
    expect(result.structuredContent).toMatchObject({ error: { code: "UPSTREAM_UNREACHABLE" } });
  });
});

describe("hooks", () => {
  it("applies beforeRequest, afterResponse, transformResult and handler overrides, global then per tool", async () => {
    const order: string[] = [];
    const hooks = defineHooks({
      beforeRequest(request) {
        order.push("global.before");
        return { ...request, headers: { ...request.headers, "x-source": "mcp" } };
      },
      afterResponse(response) {
        order.push("global.after");
        return { ...response, body: Array.isArray(response.body) ? response.body.slice(0, 1) : response.body };
      },
      transformResult(result) {
        order.push("global.transform");
        return result;
      },
      tools: {
        list_pets: {
          beforeRequest() {
            order.push("tool.before");
          },
          transformResult(result) {
            order.push("tool.transform");
            return { ...result, content: [...result.content, { type: "text", text: "tip: use get_pet next" }] };
          },
        },
        get_broken: {
          onError(failure) {
            return { isError: true, content: [{ type: "text", text: `custom: ${failure.kind}` }] };
          },
        },
      },
      handlers: {
        get_pet: async (args) => ({ id: args["petId"], name: "stubbed" }),
      },
    });
    const client = await inMemoryClient(options({ hooks }));
    seen.length = 0;

    const listed = await call(client, "list_pets");
    expect(seen[0]!.headers["x-source"]).toBe("mcp");
    expect(listed.structuredContent).toMatchObject({ data: [pets[0]] });
    expect(textOf(listed)).toContain("tip: use get_pet next");
    expect(order).toEqual(["global.before", "tool.before", "global.after", "global.transform", "tool.transform"]);

    expect(textOf(await call(client, "get_broken"))).toBe("custom: http_status");

    seen.length = 0;
    expect((await call(client, "get_pet", { petId: 5 })).structuredContent).toMatchObject({
      data: { id: 5, name: "stubbed" },
    });
    expect(seen).toHaveLength(0);
  });

  it("turns a throwing hook into an error result instead of a crash", async () => {
    const client = await inMemoryClient(
      options({
        hooks: {
          beforeRequest() {
            throw new Error("hook exploded");
          },
        },
      }),
    );
    const result = await call(client, "get_motd");
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("hook exploded");
    expect(result.structuredContent).toMatchObject({ error: { code: "INTERNAL_ERROR", tool: "get_motd" } });
  });
});

describe("Streamable HTTP (stateless)", () => {
  let http: RunningHttpServer;

  beforeAll(async () => {
    const runtime = createToolRuntime(toolsFile, options());
    http = await startHttpServer(() => createServerFromRuntime(runtime), { host: "127.0.0.1", port: 0, log: () => {} });
  });

  afterAll(async () => {
    await http.close();
  });

  async function httpClient(): Promise<Client> {
    const client = new Client({ name: "http-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(http.url));
    return client;
  }

  it("serves tools/list and tools/call, auth header arriving upstream", async () => {
    const client = await httpClient();
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(toolsFile.tools.length + 3); // + info, read_response, operation_status
    seen.length = 0;
    const result = await call(client, "get_pet", { petId: 1 });
    expect(result.structuredContent).toMatchObject({ data: pets[0] });
    expect(seen[0]!.headers["authorization"]).toBe("Bearer tok-123");
    await client.close();
  });

  it("serves 20 concurrent clients, each initializing on its own", async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, async (_, index) => {
        const client = await httpClient();
        await client.listTools();
        const result = await call(client, "create_pet", { name: `pet-${index}` });
        await client.close();
        return result.structuredContent as { data: { name: string } };
      }),
    );
    expect(results.map((result) => result.data.name).sort()).toEqual(
      Array.from({ length: 20 }, (_, i) => `pet-${i}`).sort(),
    );
  });

  it("answers /healthz, refuses GET/DELETE on /mcp with 405, and 404s elsewhere", async () => {
    const base = new URL("/", http.url);
    expect((await fetch(new URL("/healthz", base))).status).toBe(200);
    const get = await fetch(http.url, { headers: { accept: "text/event-stream" } });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    expect((await fetch(http.url, { method: "DELETE" })).status).toBe(405);
    expect((await fetch(new URL("/other", base))).status).toBe(404);
  });

  it("rejects requests addressed to another host (DNS rebinding)", async () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    const foreignOrigin = await fetch(http.url, {
      method: "POST",
      body,
      headers: { ...headers, origin: "https://evil.example" },
    });
    expect(foreignOrigin.status).toBe(403);
  });
});

describe("guidance wiring", () => {
  const destructive: ToolsFile = {
    ...toolsFile,
    tools: [
      ...toolsFile.tools,
      {
        ...toolsFile.tools[1]!,
        name: "delete_pet",
        annotations: { ...toolsFile.tools[1]!.annotations, readOnlyHint: false, destructiveHint: true },
        operation: { ...toolsFile.tools[1]!.operation!, method: "delete" },
      },
    ],
  };

  async function clientFor(
    file: ToolsFile,
    serverOptions: ServerOptions,
    elicit?: (message: string) => ElicitResult,
  ): Promise<Client> {
    const server = createMcpServer(file, serverOptions);
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await server.connect(serverTransport);
    const client = new Client({ name: "test", version: "1.0.0" }, elicit ? { capabilities: { elicitation: {} } } : {});
    if (elicit) client.setRequestHandler(ElicitRequestSchema, (request) => elicit(request.params.message));
    await client.connect(clientTransport);
    await client.listTools();
    return client;
  }

  it("auto-corrects a confident key typo and reports it in the envelope", async () => {
    const client = await inMemoryClient();
    seen.length = 0;
    const result = await call(client, "get_pet", { pet_id: 1 });
    expect(result.isError).toBeFalsy();
    expect(seen[0]!.rawUrl).toBe("/v1/pets/1");
    expect(result.structuredContent).toMatchObject({
      data: pets[0],
      corrections: [{ from: "pet_id", to: "petId" }],
      resolved_inputs: { petId: 1 },
    });
    expect((result.structuredContent as { warnings: string[] }).warnings[0]).toContain(
      '"pet_id" was auto-corrected to "petId"',
    );
  });

  it("fills available_actions from the response and reports defaults in resolved_inputs", async () => {
    const client = await inMemoryClient();
    const listed = await call(client, "list_pets");
    expect(listed.structuredContent).toMatchObject({
      resolved_inputs: { limit: 20 },
      available_actions: [{ name: "Get one pet from this list", tool: "get_pet", params: { petId: 1 } }],
      next_actions: ["get_pet"],
      context: { count: 2, ids: [1, 2] },
    });
    expect(typeof (listed.structuredContent as { suggestion: string }).suggestion).toBe("string");
  });

  it("gates destructive tools behind _confirm, and never sends _confirm upstream", async () => {
    const client = await clientFor(destructive, options());
    seen.length = 0;
    const gated = await call(client, "delete_pet", { petId: 2 });
    expect(gated.isError).toBe(true);
    expect(seen).toHaveLength(0);
    expect(gated.structuredContent).toMatchObject({
      error: {
        code: "CONFIRMATION_REQUIRED",
        next_steps: expect.arrayContaining([
          { tool: "delete_pet", params: { petId: 2, _confirm: true }, note: expect.any(String) },
        ]),
      },
    });
    const confirmed = await call(client, "delete_pet", { petId: 2, _confirm: true });
    expect(confirmed.isError).toBeFalsy();
    expect(seen).toHaveLength(1);
    expect(seen[0]!.rawUrl).toBe("/v1/pets/2");
    const listed = (await client.listTools()).tools.find((tool) => tool.name === "delete_pet")!;
    expect(listed.inputSchema.properties).toHaveProperty("_confirm");
  });

  it("asks through elicitation when the client supports it", async () => {
    const prompts: string[] = [];
    const accepting = await clientFor(destructive, options(), (message) => {
      prompts.push(message);
      return { action: "accept", content: { confirm: true } };
    });
    seen.length = 0;
    expect((await call(accepting, "delete_pet", { petId: 2 })).isError).toBeFalsy();
    expect(prompts[0]).toContain("DELETE /pets/2");
    expect(seen).toHaveLength(1);

    const declining = await clientFor(destructive, options(), () => ({ action: "decline" }));
    seen.length = 0;
    const declined = await call(declining, "delete_pet", { petId: 2 });
    expect(declined.isError).toBe(true);
    expect(declined.structuredContent).toMatchObject({
      error: { code: "CONFIRMATION_DECLINED", details: { answer: "decline" } },
    });
    expect(seen).toHaveLength(0);
  });

  it("can switch the confirmation gate off", async () => {
    const client = await clientFor(destructive, options({ confirmDestructive: false }));
    expect((await call(client, "delete_pet", { petId: 2 })).isError).toBeFalsy();
    expect(client.getInstructions()).not.toContain("_confirm");
  });

  it("summarises responses over the budget and pages them with read_response", async () => {
    const client = await inMemoryClient(
      options({
        responseBudgetChars: 500,
        handlers: { echo: async () => Array.from({ length: 100 }, (_, i) => ({ i, text: "x".repeat(40) })) },
      }),
    );
    const result = await call(client, "echo", { message: "big" });
    expect(result.isError).toBeFalsy();
    const envelope = result.structuredContent as {
      detail_available: boolean;
      summary: { item_count: number };
      detail: { params: Record<string, unknown> };
    };
    expect(envelope).not.toHaveProperty("data");
    expect(envelope.detail_available).toBe(true);
    expect(envelope.summary.item_count).toBe(100);
    let params: Record<string, unknown> | undefined = { ...envelope.detail.params, offset: 0 };
    const items: unknown[] = [];
    while (params) {
      const page = (await call(client, "read_response", params)).structuredContent as {
        items: unknown[];
        next?: { params: Record<string, unknown> };
      };
      items.push(...page.items);
      params = page.next?.params;
    }
    expect(items).toHaveLength(100);
    const expired = await call(client, "read_response", { handle: "resp_nope" });
    expect(expired.structuredContent).toMatchObject({ error: { code: "RESPONSE_EXPIRED" } });
  });

  it("describes tools through info", async () => {
    const client = await inMemoryClient();
    const overview = await call(client, "info");
    expect(overview.structuredContent).toMatchObject({
      tool_count: toolsFile.tools.length,
      categories: expect.any(Array),
    });
    const typed = await call(client, "info", { tool: "get_pet", level: "full" });
    expect(typed.structuredContent).toMatchObject({
      name: "get_pet",
      level: "full",
      examples: { minimal: { petId: 1 } },
    });
    const wrongLevel = await call(client, "info", { tool: "get_pet", level: "ful" });
    expect(wrongLevel.structuredContent).toMatchObject({
      error: { code: "INVALID_ENUM", corrective_params: { tool: "get_pet", level: "full" } },
    });
  });

  it("reports a throwing handler as HANDLER_ERROR", async () => {
    const client = await inMemoryClient(
      options({
        handlers: {
          echo: async () => {
            throw new Error("disk full");
          },
        },
      }),
    );
    const result = await call(client, "echo", { message: "hi" });
    expect(result.structuredContent).toMatchObject({ error: { code: "HANDLER_ERROR", tool: "echo" } });
    expect(textOf(result)).toContain("disk full");
  });
});
