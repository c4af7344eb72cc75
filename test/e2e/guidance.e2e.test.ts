/**
 * The guidance contract end to end: the Petstore sample is generated, built,
 * and driven through the SDK's Client over stdio against a real local
 * upstream. Client.callTool validates every structuredContent (success AND
 * error) against the outputSchema from tools/list, so each call below also
 * proves the envelope and its summary/unvalidated variants match it.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema, type CallToolResult, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateAndBuild, type BuiltProject } from "../helpers/generated.js";
import { connectStdio } from "../helpers/mcp.js";
import { modelFrom, SAMPLES } from "../helpers/pipeline.js";
import { json, startUpstream, type Upstream } from "../helpers/upstream.js";

const API_KEY = "guidance-key-123";
const BEARER = "guidance-bearer-456";

let project: BuiltProject;
let upstream: Upstream;
let env: Record<string, string>;
let client: Client;
const extraClients: Client[] = [];

const pet = (id: number, name = `pet-${id}`) => ({ id, name, status: "available" });
/** ~100 KB: 1000 pets with 60-character names. */
const BIG_LIST = Array.from({ length: 1000 }, (_, i) =>
  pet(i + 1, `pet-${String(i).padStart(4, "0")}-${"x".repeat(51)}`),
);

interface ErrorShape {
  code: string;
  message: string;
  severity: string;
  tool?: string;
  issues: Array<{ field: string; code: string; fix: string; did_you_mean?: unknown; received?: unknown }>;
  suggestions: {
    did_you_mean?: string;
    alternatives?: Array<{ name: string; score: number }>;
    auto_correctable?: boolean;
  };
  corrective_params?: Record<string, unknown>;
  next_steps: Array<string | { tool: string; params: Record<string, unknown> }>;
  retry_after_ms?: number;
  recovery_actions?: string[];
  details?: Record<string, unknown>;
}

interface EnvelopeShape {
  data?: unknown;
  next_actions: string[];
  suggestion: string;
  context: Record<string, unknown>;
  available_actions: Array<{ name: string; tool: string; params: Record<string, unknown> }>;
  resolved_inputs: Record<string, unknown>;
  next_steps?: Array<{ tool: string; params: Record<string, unknown> }>;
  warnings?: string[];
  corrections?: Array<{ from: string; to: string; confidence: number }>;
  summary?: Record<string, unknown>;
  detail_available?: boolean;
  detail?: { handle: string; tool: string; params: Record<string, unknown>; total_items?: number };
}

async function call(target: Client, name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
  return (await target.callTool({ name, arguments: args })) as CallToolResult;
}

function textOf(result: CallToolResult): string {
  return result.content.map((part) => (part.type === "text" ? part.text : "")).join("\n");
}

async function ok(target: Client, name: string, args: Record<string, unknown> = {}): Promise<EnvelopeShape> {
  const result = await call(target, name, args);
  if (result.isError) throw new Error(`${name} failed: ${textOf(result)}`);
  return result.structuredContent as unknown as EnvelopeShape;
}

async function failure(
  target: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<ErrorShape & { text: string }> {
  const result = await call(target, name, args);
  expect(result.isError).toBe(true);
  const text = textOf(result);
  expect(text.length).toBeGreaterThan(20);
  return { ...(result.structuredContent as { error: ErrorShape }).error, text };
}

function requestsSince(count: number) {
  return upstream.requests.slice(count);
}

async function stdioClient(
  extraEnv: Record<string, string>,
  options: { elicit?: (message: string) => ElicitResult; args?: string[] } = {},
): Promise<Client> {
  let connected: Client;
  if (options.elicit) {
    const elicit = options.elicit;
    connected = new Client({ name: "e2e-elicit", version: "1.0.0" }, { capabilities: { elicitation: {} } });
    connected.setRequestHandler(ElicitRequestSchema, (request) => elicit(request.params.message));
    await connected.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [join(project.dir, "dist", "index.js"), ...(options.args ?? [])],
        env: { PATH: process.env.PATH ?? "", ...extraEnv },
        stderr: "pipe",
      }),
    );
  } else {
    connected = await connectStdio(project.dir, extraEnv, options.args ?? []);
  }
  extraClients.push(connected);
  await connected.listTools(); // the client validates structuredContent against these output schemas
  return connected;
}

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.route("GET", /^\/v1\/pets$/, (req, res) => {
    if (req.query.getAll("tags").includes("big")) return json(res, 200, BIG_LIST);
    const limit = Number(req.query.get("limit") ?? 20);
    const offset = Number(req.query.get("offset") ?? 0);
    json(
      res,
      200,
      Array.from({ length: limit }, (_, i) => pet(offset + i + 1)),
    );
  });
  upstream.route("POST", /^\/v1\/pets$/, (req, res) => json(res, 201, { id: 42, ...JSON.parse(req.body) }));
  upstream.route("GET", /^\/v1\/pets\/\d+$/, async (req, res) => {
    const id = Number(req.path.split("/").pop());
    switch (id) {
      case 401:
        return json(res, 401, { message: "invalid api key" });
      case 403:
        return json(res, 403, { message: "scope pets:read missing" });
      case 404:
        return json(res, 404, { message: "Pet not found" });
      case 409:
        return json(res, 409, { message: "pet is locked" });
      case 422:
        return json(res, 422, { message: "petId 422 is reserved" });
      case 429:
        return json(res, 429, { message: "slow down" }, { "retry-after": "7" });
      case 503:
        return json(res, 503, { message: "maintenance" });
      case 999:
        await sleep(1500);
        return json(res, 200, pet(999));
      default:
        return json(res, 200, pet(id));
    }
  });
  upstream.route("DELETE", /^\/v1\/pets\/\d+$/, (_req, res) => {
    res.writeHead(204).end();
  });
  upstream.route("GET", /^\/v1\/orders\/[^/]+$/, (req, res) =>
    json(res, 200, { id: req.path.split("/").pop(), pet_id: 1, quantity: 1 }),
  );
  project = await generateAndBuild(join(SAMPLES, "petstore.yaml"));
  env = { PETSTORE_BASE_URL: `${upstream.url}/v1`, PETSTORE_API_KEY: API_KEY, PETSTORE_BEARER_AUTH_TOKEN: BEARER };
  client = await connectStdio(project.dir, env);
  await client.listTools();
}, 600_000);

afterAll(async () => {
  await client?.close();
  await Promise.all(extraClients.map((c) => c.close()));
  await upstream?.close();
});

describe("discoverability", () => {
  it("lists info and read_response next to the API's tools, and composes the instructions", async () => {
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual([
      ...project.result.model.tools.map((tool) => tool.name),
      "info",
      "read_response",
      "operation_status",
    ]);
    expect(project.result.model.tools.some((tool) => tool.name === "info" || tool.name === "read_response")).toBe(
      false,
    );
    const deletePet = tools.find((tool) => tool.name === "delete_pet")!;
    expect(deletePet.inputSchema.properties).toHaveProperty("_confirm");
    for (const tool of tools) expect(tool.outputSchema?.type).toBe("object");
    const instructions = client.getInstructions()!;
    expect(instructions).toMatch(/`info`.*then call the tool/is);
    expect(instructions).toContain('"_confirm": true');
    expect(instructions).toContain("`read_response`");
  });

  it("info lists categories with counts, one category, and a tool at every level", async () => {
    const overview = (await ok(client, "info")) as unknown as {
      tool_count: number;
      categories: Array<{ name: string; count: number; tools: Array<{ name: string }> }>;
    };
    expect(overview.tool_count).toBe(project.result.model.tools.length);
    expect(overview.categories.find((c) => c.name === "pets")).toMatchObject({ count: 6 });
    expect(overview.categories.map((c) => c.name).sort()).toEqual(["orders", "owners", "payments", "pets"]);

    const owners = (await ok(client, "info", { category: "owners" })) as unknown as {
      categories: Array<{ tools: Array<{ name: string }> }>;
    };
    expect(owners.categories[0]!.tools.map((t) => t.name)).toEqual(["get_owner"]);

    const minimal = (await ok(client, "info", { tool: "create_pet", level: "minimal" })) as unknown as Record<
      string,
      unknown
    >;
    expect(minimal).toMatchObject({
      name: "create_pet",
      level: "minimal",
      schema: { required: ["name"] },
      examples: { minimal: { name: "Rex" } },
    });
    const typed = (await ok(client, "info", { tool: "create_pet", level: "typed" })) as unknown as Record<
      string,
      unknown
    >;
    expect(typed).toMatchObject({
      level: "typed",
      schema: { status: { type: "string", default: "available", enum: ["available", "pending", "sold"] } },
    });
    const full = await call(client, "info", { tool: "create_pet", level: "full" });
    expect(full.structuredContent).toMatchObject({
      level: "full",
      schema: { properties: { name: { maxLength: 64 } } },
      http: { method: "POST", path: "/pets" },
    });
    expect(textOf(full)).toContain("Full valid example");
    const destructive = (await ok(client, "info", { tool: "delete_pet" })) as unknown as Record<string, unknown>;
    expect(destructive).toMatchObject({ requires_confirmation: true, level: "typed" });

    const unknown = await failure(client, "info", { tool: "get_pett" });
    expect(unknown).toMatchObject({ code: "UNKNOWN_TOOL", suggestions: { did_you_mean: "get_pet" } });
  });

  it("answers an unknown tool with did_you_mean, similar tools and categories with counts", async () => {
    const before = upstream.requests.length;
    const error = await failure(client, "list_pet", { limit: 5 });
    expect(error).toMatchObject({ code: "UNKNOWN_TOOL", suggestions: { did_you_mean: "list_pets" } });
    expect(error.suggestions.alternatives![0]).toMatchObject({ name: "list_pets" });
    expect(error.details!["categories"]).toEqual(
      expect.arrayContaining([
        { name: "pets", count: 6 },
        { name: "owners", count: 1 },
      ]),
    );
    expect(error.next_steps[0]).toEqual({ tool: "list_pets", params: { limit: 5 }, note: expect.any(String) });
    expect(error.text).toContain("Did you mean 'list_pets'?");
    expect(requestsSince(before)).toHaveLength(0);
  });
});

describe("success envelope", () => {
  it("fills available_actions from the response and reports resolved inputs", async () => {
    const result = await call(client, "create_pet", { name: "Rex" });
    expect(result.isError).toBeFalsy();
    const envelope = result.structuredContent as unknown as EnvelopeShape;
    expect(envelope.data).toEqual({ id: 42, name: "Rex" });
    expect(envelope.available_actions).toContainEqual(
      expect.objectContaining({ tool: "get_pet", params: { petId: 42 } }),
    );
    // The owner link needs owner_id, which this response lacks: it is not offered half-filled.
    expect(envelope.available_actions.some((a) => a.tool === "get_owner")).toBe(false);
    expect(envelope.next_actions).toContain("get_pet");
    expect(envelope.resolved_inputs).toEqual({ name: "Rex", status: "available" });
    expect(envelope.context).toMatchObject({ id: 42 });
    expect(envelope.suggestion).toMatch(/get_pet/);
    expect(JSON.parse(upstream.requests.at(-1)!.body)).toEqual({ name: "Rex" }); // defaults reported, not sent
    expect(textOf(result)).toContain('`get_pet` {"petId":42}');

    // The offered call works as is.
    const action = envelope.available_actions.find((a) => a.tool === "get_pet")!;
    expect((await ok(client, action.tool, action.params)).data).toMatchObject({ id: 42 });
  });

  it("gives the exact next-page call when a full page comes back", async () => {
    const first = await ok(client, "list_pets", { limit: 3 });
    expect(first.data).toHaveLength(3);
    expect(first.next_steps?.[0]).toMatchObject({ tool: "list_pets", params: { limit: 3, offset: 3 } });
    const next = first.next_steps![0]!;
    const second = await ok(client, next.tool, next.params);
    expect(upstream.requests.at(-1)!.query.get("offset")).toBe("3");
    expect((second.data as Array<{ id: number }>)[0]!.id).toBe(4);
    expect(first.available_actions).toContainEqual(expect.objectContaining({ tool: "get_pet", params: { petId: 1 } }));
  });

  it("summarises a ~100 KB response and pages the rest through read_response", async () => {
    const result = await call(client, "list_pets", { tags: ["big"] });
    expect(result.isError).toBeFalsy();
    const envelope = result.structuredContent as unknown as EnvelopeShape;
    expect(JSON.stringify(BIG_LIST).length).toBeGreaterThan(95_000);
    expect(envelope).not.toHaveProperty("data");
    expect(envelope.detail_available).toBe(true);
    expect(envelope.summary).toMatchObject({ item_count: 1000, field_names: ["id", "name", "status"] });
    expect(envelope.detail).toMatchObject({ tool: "read_response", total_items: 1000 });
    expect(envelope.next_steps).toContainEqual(
      expect.objectContaining({ tool: "read_response", params: envelope.detail!.params }),
    );
    expect(textOf(result).length).toBeLessThan(25_000);

    const shown = (envelope.summary!["first_items"] as unknown[]).length;
    const items: unknown[] = [...(envelope.summary!["first_items"] as unknown[])];
    let params: Record<string, unknown> | undefined = envelope.detail!.params;
    expect(params["offset"]).toBe(shown);
    let pages = 0;
    while (params) {
      const page = await call(client, "read_response", params);
      expect(page.isError).toBeFalsy();
      const structured = page.structuredContent as { items: unknown[]; next?: { params: Record<string, unknown> } };
      expect(JSON.stringify(structured.items).length).toBeLessThanOrEqual(20_000);
      items.push(...structured.items);
      params = structured.next?.params;
      pages++;
    }
    expect(pages).toBeGreaterThan(3);
    expect(items).toEqual(BIG_LIST);

    const expired = await failure(client, "read_response", { handle: "resp_doesnotexist" });
    expect(expired.code).toBe("RESPONSE_EXPIRED");
  });

  it("honours <PREFIX>_RESPONSE_BUDGET_CHARS", async () => {
    const small = await stdioClient({ ...env, PETSTORE_RESPONSE_BUDGET_CHARS: "1000" });
    const envelope = await ok(small, "list_pets", { limit: 50 });
    expect(envelope.detail_available).toBe(true);
    expect(envelope.summary).toMatchObject({ item_count: 50 });
  });
});

describe("auto-correction and corrective_params", () => {
  it("renames a confident typo (> 0.9) and goes ahead, reporting it", async () => {
    const before = upstream.requests.length;
    const envelope = await ok(client, "list_pets", { limitt: 2 });
    expect(requestsSince(before)[0]!.query.get("limit")).toBe("2");
    expect(envelope.corrections).toEqual([{ from: "limitt", to: "limit", confidence: expect.any(Number) }]);
    expect(envelope.corrections![0]!.confidence).toBeGreaterThan(0.9);
    expect(envelope.warnings?.[0]).toContain('"limitt" was auto-corrected to "limit"');
    expect(envelope.resolved_inputs).toMatchObject({ limit: 2, offset: 0 });
  });

  it.each([
    ["misspelt parameter", "list_pets", { limt: 5 }, "UNKNOWN_PARAMETER", "limt", { limit: 5 }],
    ["wrong type", "list_pets", { limit: "50" }, "INVALID_TYPE", "limit", { limit: 50 }],
    [
      "missing required",
      "create_pet",
      { status: "pending" },
      "MISSING_REQUIRED",
      "name",
      { status: "pending", name: "Rex" },
    ],
    ["out of range", "list_pets", { limit: 500 }, "OUT_OF_RANGE", "limit", { limit: 100 }],
    [
      "enum typo",
      "create_pet",
      { name: "Rex", status: "availble" },
      "INVALID_ENUM",
      "status",
      { name: "Rex", status: "available" },
    ],
  ] as const)(
    "%s: corrupted args -> corrective_params resent unchanged -> success",
    async (_label, tool, args, code, field, corrective) => {
      const before = upstream.requests.length;
      const error = await failure(client, tool, { ...args });
      expect(requestsSince(before)).toHaveLength(0);
      expect(error.code).toBe(code); // named by its primary issue
      expect(error.tool).toBe(tool);
      expect(error.issues).toContainEqual(expect.objectContaining({ field, code }));
      expect(error.corrective_params).toEqual(corrective);
      expect(error.suggestions.auto_correctable).toBe(true);
      expect(error.next_steps[0]).toMatchObject({ tool, params: corrective });
      expect(error.text).toContain("Corrected call");
      const envelope = await ok(client, tool, error.corrective_params!);
      expect(envelope.data).toBeDefined();
      expect(requestsSince(before)).toHaveLength(1);
    },
  );

  it("names the suggestion for a misspelt parameter", async () => {
    const error = await failure(client, "list_pets", { limt: 5 });
    expect(error.issues[0]).toMatchObject({ field: "limt", code: "UNKNOWN_PARAMETER", did_you_mean: "limit" });
    expect(error.suggestions.did_you_mean).toBe("limit");
  });

  it.each([
    ["UNKNOWN_PARAMETER", "list_pets", { limit: 5, colour: "red" }, "colour"],
    ["MISSING_REQUIRED", "get_pet", {}, "petId"],
    ["INVALID_TYPE", "get_pet", { petId: "seven" }, "petId"],
    ["OUT_OF_RANGE", "get_pet", { petId: 0 }, "petId"],
    ["INVALID_ENUM", "create_payment", { amount: 5, currency: "yen" }, "currency"],
    ["INVALID_FORMAT", "create_pet", { name: "Rex", birth_date: "yesterday" }, "birth_date"],
    ["INVALID_PATTERN", "get_owner", { ownerId: "bob" }, "ownerId"],
    ["INVALID_LENGTH", "create_pet", { name: "" }, "name"],
  ] as const)("reports %s with its structured fields", async (code, tool, args, field) => {
    const before = upstream.requests.length;
    const error = await failure(client, tool, { ...args });
    expect(requestsSince(before)).toHaveLength(0);
    expect(error).toMatchObject({ code, tool, severity: expect.stringMatching(/critical|high|medium/) });
    const issue = error.issues.find((i) => i.field === field)!;
    expect(issue).toMatchObject({
      code,
      problem: expect.any(String),
      expected: expect.any(String),
      fix: expect.any(String),
    });
    expect(error.next_steps.length).toBeGreaterThan(0);
    expect(error.text).toContain(code);
  });

  it("never invents an identifier: a missing petId gets no corrective_params but a lookup step", async () => {
    const error = await failure(client, "get_pet", {});
    expect(error.corrective_params).toBeUndefined();
    expect(error.next_steps).toContainEqual(expect.objectContaining({ tool: "list_pets" }));
  });
});

describe("confirmation gate", () => {
  it("answers CONFIRMATION_REQUIRED first, then runs with _confirm: true (never sent upstream)", async () => {
    const before = upstream.requests.length;
    const gated = await failure(client, "delete_pet", { petId: 5 });
    expect(gated).toMatchObject({
      code: "CONFIRMATION_REQUIRED",
      tool: "delete_pet",
      details: { would_run: { method: "DELETE", resolved_path: "/pets/5" } },
    });
    expect(gated.next_steps[0]).toMatchObject({ tool: "delete_pet", params: { petId: 5, _confirm: true } });
    expect(requestsSince(before)).toHaveLength(0);

    const step = gated.next_steps[0] as { tool: string; params: Record<string, unknown> };
    const done = await call(client, step.tool, step.params);
    expect(done.isError).toBeFalsy();
    const sent = requestsSince(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ method: "DELETE", path: "/v1/pets/5", body: "" });
    expect(sent[0]!.rawUrl).not.toContain("_confirm");
    expect(sent[0]!.headers["authorization"]).toBe(`Bearer ${BEARER}`);
    expect(done.structuredContent).toMatchObject({ resolved_inputs: { petId: 5 } });
    expect(textOf(done)).toContain("HTTP 204");
  });

  it("asks through MCP elicitation when the client declares it: accept runs, decline does not", async () => {
    const prompts: string[] = [];
    const accepting = await stdioClient(env, {
      elicit: (message) => {
        prompts.push(message);
        return { action: "accept", content: { confirm: true } };
      },
    });
    const before = upstream.requests.length;
    expect((await call(accepting, "delete_pet", { petId: 6 })).isError).toBeFalsy();
    expect(prompts[0]).toContain("DELETE /pets/6");
    expect(requestsSince(before)).toHaveLength(1);

    const declining = await stdioClient(env, { elicit: () => ({ action: "decline" }) });
    const declined = await failure(declining, "delete_pet", { petId: 7 });
    expect(declined).toMatchObject({ code: "CONFIRMATION_DECLINED", details: { answer: "decline" } });
    const cancelling = await stdioClient(env, { elicit: () => ({ action: "cancel" }) });
    expect(await failure(cancelling, "delete_pet", { petId: 7 })).toMatchObject({
      code: "CONFIRMATION_DECLINED",
      details: { answer: "cancel" },
    });
    expect(requestsSince(before)).toHaveLength(1);
  });

  it("is switched off by --no-confirm and by PETSTORE_CONFIRM_DESTRUCTIVE=false", async () => {
    for (const unguarded of [
      await stdioClient(env, { args: ["--no-confirm"] }),
      await stdioClient({ ...env, PETSTORE_CONFIRM_DESTRUCTIVE: "false" }),
    ]) {
      const before = upstream.requests.length;
      expect((await call(unguarded, "delete_pet", { petId: 8 })).isError).toBeFalsy();
      expect(requestsSince(before)).toHaveLength(1);
    }
  });
});

describe("upstream and runtime failures", () => {
  it.each([
    [401, "UPSTREAM_UNAUTHORIZED"],
    [403, "UPSTREAM_FORBIDDEN"],
    [404, "UPSTREAM_NOT_FOUND"],
    [409, "UPSTREAM_CONFLICT"],
    [422, "UPSTREAM_VALIDATION"],
    [429, "RATE_LIMITED"],
    [503, "UPSTREAM_UNAVAILABLE"],
  ] as const)("maps HTTP %i to %s", async (status, code) => {
    const result = await call(client, "get_pet", { petId: status });
    expect(result.isError).toBe(true);
    const error = (result.structuredContent as { error: ErrorShape }).error;
    expect(error).toMatchObject({ code, tool: "get_pet", details: { status, request: `GET /pets/${status}` } });
    expect(error.recovery_actions?.length).toBeGreaterThan(0);
    expect(JSON.stringify(result)).not.toContain(API_KEY);
    switch (code) {
      case "UPSTREAM_UNAUTHORIZED":
        expect(error.details!["credential_env"]).toEqual(["PETSTORE_API_KEY"]);
        expect(error.message).toContain("PETSTORE_API_KEY");
        break;
      case "UPSTREAM_NOT_FOUND":
        expect(error.next_steps).toContainEqual(expect.objectContaining({ tool: "list_pets" }));
        expect(error.message).toContain("petId=404");
        break;
      case "UPSTREAM_VALIDATION":
        expect(error.details!["upstream_body"]).toEqual({ message: "petId 422 is reserved" });
        break;
      case "RATE_LIMITED":
        expect(error.retry_after_ms).toBe(7000);
        expect(error.next_steps[0]).toMatchObject({ tool: "get_pet", params: { petId: 429 } });
        break;
      case "UPSTREAM_UNAVAILABLE":
        expect(error.retry_after_ms).toBe(1000);
        expect(error.next_steps).toContainEqual(expect.objectContaining({ tool: "get_pet", params: { petId: 503 } }));
        break;
      default:
        break;
    }
  });

  it("reports TIMEOUT with the configured limit", async () => {
    const impatient = await stdioClient({ ...env, PETSTORE_TIMEOUT_MS: "300" });
    const error = await failure(impatient, "get_pet", { petId: 999 });
    expect(error).toMatchObject({ code: "TIMEOUT", details: { timeout_ms: 300 }, retry_after_ms: 1000 });
    expect(error.message).toContain("PETSTORE_TIMEOUT_MS");
  });

  it("names the missing credential env var before calling upstream", async () => {
    const noBearer = await stdioClient({ PETSTORE_BASE_URL: env.PETSTORE_BASE_URL!, PETSTORE_API_KEY: API_KEY });
    const before = upstream.requests.length;
    const error = await failure(noBearer, "delete_pet", { petId: 5, _confirm: true });
    expect(error).toMatchObject({
      code: "UPSTREAM_UNAUTHORIZED",
      details: { reason: "missing_credentials", missing_env: ["PETSTORE_BEARER_AUTH_TOKEN"], upstream_called: false },
    });
    expect(error.message).toContain("PETSTORE_BEARER_AUTH_TOKEN");
    expect(requestsSince(before)).toHaveLength(0);
  });

  it("refuses a CR/LF header value and an unusable base URL with clear errors", async () => {
    const before = upstream.requests.length;
    const injected = await failure(client, "get_order", { id: "o1", "X-Request-Id": "a\r\nX-Evil: 1" });
    expect(injected).toMatchObject({ code: "INVALID_REQUEST", details: { reason: "header_injection" } });
    expect(injected.issues[0]).toMatchObject({ field: "X-Request-Id" });

    const misconfigured = await stdioClient({ ...env, PETSTORE_BASE_URL: "ftp://example.com/v1" });
    const config = await failure(misconfigured, "get_pet", { petId: 1 });
    expect(config).toMatchObject({
      code: "CONFIGURATION_ERROR",
      details: { reason: "invalid_base_url", env: "PETSTORE_BASE_URL" },
    });
    expect(requestsSince(before)).toHaveLength(0);
  });
});

describe("reserved tool names in the generator", () => {
  it("suffixes an API tool whose name would be info or read_response", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cgm-reserved-"));
    const spec = join(dir, "reserved.json");
    const op = (operationId: string) => ({ operationId, responses: { "200": { description: "ok" } } });
    writeFileSync(
      spec,
      JSON.stringify({
        openapi: "3.0.3",
        info: { title: "Reserved", version: "1.0.0" },
        servers: [{ url: "https://example.com" }],
        paths: {
          "/info": { get: op("info") },
          "/read": { get: op("readResponse") },
          "/other": { get: op("getOther") },
        },
      }),
    );
    const model = await modelFrom(spec);
    expect(model.tools.map((tool) => tool.name).sort()).toEqual(["get_other", "info_op", "read_response_op"]);
  });
});
