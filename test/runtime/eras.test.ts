/**
 * Both protocol eras against one HTTP endpoint, in process: the v1 SDK's Client (2025-11-25,
 * initialize) and the v2 Client pinned to 2026-07-28 (server/discover, _meta on every request).
 * Each lists, calls, gets a guided error and meets the destructive gate; the 2026 features
 * (cache hints, server/discover, input_required confirmation, paged tools/list) are checked on the wire.
 */
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Tool } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIST_TTL_MS, createServerFromRuntime } from "../../templates/server/src/runtime/mcp/server.js";
import { pagedListing } from "../../templates/server/src/runtime/mcp/listing.js";
import { startHttpServer, type RunningHttpServer } from "../../templates/server/src/runtime/mcp/http.js";
import { createToolRuntime, type ServerOptions } from "../../templates/server/src/runtime/server/runtime.js";
import type { ToolsFile } from "../../templates/server/src/runtime/shared/tool-data.js";
import { connectModernHttp, MODERN_PROTOCOL } from "../helpers/mcp.js";
import { json, startUpstream, type Upstream } from "../helpers/upstream.js";

const base = JSON.parse(readFileSync(new URL("../fixtures/runtime-tools.json", import.meta.url), "utf8")) as ToolsFile;
const toolsFile: ToolsFile = {
  ...base,
  api: { ...base.api, icons: [{ src: "https://pets.example/logo.png", mimeType: "image/png" }] },
  tools: [
    ...base.tools,
    {
      ...base.tools[1]!,
      name: "delete_pet",
      annotations: { ...base.tools[1]!.annotations, readOnlyHint: false, destructiveHint: true },
      operation: { ...base.tools[1]!.operation!, method: "delete" },
    },
  ],
};

let upstream: Upstream;
let http: RunningHttpServer;
let deletes = 0;

function options(): ServerOptions {
  return {
    env: { PETS_BASE_URL: `${upstream.url}/v1`, PETS_TOKEN: "tok-123", PETS_API_KEY: "key-456" },
    // A handler whose result is a bare array: structuredContent must still be valid for both eras.
    handlers: { echo: async (args) => [args["message"], "twice"] },
    hooks: {
      tools: {
        echo: {
          transformResult: (result) => ({
            ...result,
            structuredContent: ["raw", "array"] as unknown as Record<string, unknown>,
          }),
        },
      },
    },
    log: () => {},
  };
}

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.route("GET", /^\/v1\/pets$/, (_req, res) => json(res, 200, [{ id: 1, name: "Rex" }]));
  upstream.route("DELETE", /^\/v1\/pets\/2$/, (_req, res) => {
    deletes++;
    res.writeHead(204).end();
  });
  const runtime = createToolRuntime(toolsFile, options());
  http = await startHttpServer(() => createServerFromRuntime(runtime, { cacheScope: "public" }), {
    host: "127.0.0.1",
    port: 0,
    log: () => {},
  });
});

afterAll(async () => {
  await http?.close();
  await upstream?.close();
});

async function legacyClient(): Promise<Client> {
  const client = new Client({ name: "v1", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(http.url));
  return client;
}

/** A raw 2026-07-28 JSON-RPC POST, to see exactly what goes over the wire. */
async function modernPost(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const response = await fetch(http.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": MODERN_PROTOCOL,
      "mcp-method": method,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": MODERN_PROTOCOL,
          "io.modelcontextprotocol/clientCapabilities": {},
          "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
        },
      },
    }),
  });
  const text = await response.text();
  const body = text.startsWith("{")
    ? text
    : text
        .split("\n")
        .find((line) => line.startsWith("data: "))!
        .slice(6);
  return JSON.parse(body) as Record<string, unknown>;
}

describe.each([
  ["2025-11-25 (v1 Client)", async () => legacyClient()],
  ["2026-07-28 (v2 Client, pinned)", async () => connectModernHttp(http.url.href)],
] as const)("%s over HTTP", (_label, connect) => {
  it("lists, calls, and gets a guided error", async () => {
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(["list_pets", "delete_pet", "info", "read_response"]),
    );
    const listed = (await client.callTool({ name: "list_pets", arguments: {} })) as CallToolResult;
    expect(listed.isError).toBeFalsy();
    expect(listed.structuredContent).toMatchObject({ data: [{ id: 1, name: "Rex" }] });
    const invalid = (await client.callTool({
      name: "get_pet",
      arguments: { petId: "not-a-number" },
    })) as CallToolResult;
    expect(invalid.isError).toBe(true);
    expect(invalid.structuredContent).toMatchObject({
      error: { code: "INVALID_TYPE", issues: [expect.objectContaining({ field: "petId" })] },
    });
    const misspelt = (await client.callTool({
      name: "info",
      arguments: { tool: "get_pet", level: "ful" },
    })) as CallToolResult;
    expect(misspelt.structuredContent).toMatchObject({
      error: { code: "INVALID_ENUM", corrective_params: { tool: "get_pet", level: "full" } },
    });
    await client.close();
  });

  it("gates a destructive call behind _confirm when the client cannot ask the user", async () => {
    const client = await connect();
    const before = deletes;
    const gated = (await client.callTool({ name: "delete_pet", arguments: { petId: 2 } })) as CallToolResult;
    expect(gated.structuredContent).toMatchObject({ error: { code: "CONFIRMATION_REQUIRED" } });
    expect(deletes).toBe(before);
    const confirmed = (await client.callTool({
      name: "delete_pet",
      arguments: { petId: 2, _confirm: true },
    })) as CallToolResult;
    expect(confirmed.isError).toBeFalsy();
    expect(deletes).toBe(before + 1);
    await client.close();
  });

  it("sends an array structuredContent in the shape the era allows", async () => {
    const client = await connect();
    const result = (await client.callTool({ name: "echo", arguments: { message: "hi" } })) as CallToolResult;
    const modern = _label.startsWith("2026");
    expect(result.structuredContent).toEqual(modern ? ["raw", "array"] : { result: ["raw", "array"] });
    await client.close();
  });
});

describe("2026-07-28 on the wire", () => {
  it("answers server/discover with both eras' versions, identity, icons and cache hints", async () => {
    const { result } = (await modernPost("server/discover")) as { result: Record<string, unknown> };
    expect(result).toMatchObject({
      resultType: "complete",
      supportedVersions: expect.arrayContaining([MODERN_PROTOCOL]),
      capabilities: { tools: {} },
      ttlMs: LIST_TTL_MS,
      cacheScope: "public",
    });
    expect(result["instructions"]).toContain("List pets first");
    expect(result["_meta"]).toMatchObject({
      "io.modelcontextprotocol/serverInfo": { name: "pets-mcp", icons: [{ src: "https://pets.example/logo.png" }] },
    });
  });

  it("marks tools/list cacheable for an hour, in the data file's order every time", async () => {
    const first = (await modernPost("tools/list")) as { result: { tools: Tool[]; ttlMs: number; cacheScope: string } };
    const second = (await modernPost("tools/list")) as { result: { tools: Tool[] } };
    expect(first.result).toMatchObject({ ttlMs: LIST_TTL_MS, cacheScope: "public" });
    expect(first.result.tools.map((tool) => tool.name).slice(0, toolsFile.tools.length)).toEqual(
      toolsFile.tools.map((tool) => tool.name),
    );
    expect(JSON.stringify(second.result.tools)).toBe(JSON.stringify(first.result.tools));
  });

  it("confirms a destructive call through input_required when the request declares elicitation", async () => {
    const accepting = await connectModernHttp(http.url.href, { elicitation: "accept" });
    let before = deletes;
    const accepted = (await accepting.callTool({ name: "delete_pet", arguments: { petId: 2 } })) as CallToolResult;
    expect(accepted.isError).toBeFalsy();
    expect(deletes).toBe(before + 1);

    const declining = await connectModernHttp(http.url.href, { elicitation: "decline" });
    before = deletes;
    const declined = (await declining.callTool({ name: "delete_pet", arguments: { petId: 2 } })) as CallToolResult;
    expect(declined.structuredContent).toMatchObject({ error: { code: "CONFIRMATION_DECLINED" } });
    expect(deletes).toBe(before);
    await Promise.all([accepting.close(), declining.close()]);
  });

  it("returns the input_required question itself on the wire, and runs nothing", async () => {
    const before = deletes;
    const response = await fetch(http.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": MODERN_PROTOCOL,
        "mcp-method": "tools/call",
        "mcp-name": "delete_pet",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: {
          name: "delete_pet",
          arguments: { petId: 2 },
          _meta: {
            "io.modelcontextprotocol/protocolVersion": MODERN_PROTOCOL,
            "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
          },
        },
      }),
    });
    const body = (await response.json()) as { result: Record<string, unknown> };
    expect(body.result).toMatchObject({
      resultType: "input_required",
      inputRequests: {
        confirm: { method: "elicitation/create", params: { message: expect.stringContaining("DELETE /pets/2") } },
      },
    });
    expect(deletes).toBe(before);
  });
});

describe("paged tools/list", () => {
  const tools = Array.from({ length: 50 }, (_, i) => ({
    name: `tool_${i}`,
    description: "x".repeat(100),
    inputSchema: { type: "object" as const },
  }));

  it("serves one page when everything fits, and consistent pages with cursors otherwise", () => {
    expect(pagedListing(() => tools).page(undefined)).toEqual({ tools });
    const paged = pagedListing(() => tools, 1_000);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = paged.page(cursor);
      seen.push(...page.tools.map((tool) => tool.name));
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== undefined);
    expect(pages).toBeGreaterThan(5);
    expect(seen).toEqual(tools.map((tool) => tool.name));
    // Another instance over the same listing accepts the same cursor.
    const second = paged.page(undefined).nextCursor!;
    expect(pagedListing(() => tools, 1_000).page(second)).toEqual(paged.page(second));
  });

  it("refuses a cursor from another listing with -32602", () => {
    const cursor = pagedListing(() => tools, 1_000).page(undefined).nextCursor!;
    const other = pagedListing(() => tools.slice(1), 1_000);
    expect(() => other.page(cursor)).toThrow(/Invalid cursor/);
    expect(() => other.page("garbage")).toThrow(expect.objectContaining({ code: -32602 }));
  });
});

describe("cancellation over HTTP", () => {
  it.each([
    // A 2025 client that drops its connection (the v1 Client's abort only posts notifications/cancelled, which a stateless server cannot match).
    [
      "2025-11-25 (dropped connection)",
      async (url: URL) => ({
        callTool: (
          params: { name: string; arguments: Record<string, unknown> },
          _schema: undefined,
          { signal }: { signal: AbortSignal },
        ) =>
          fetch(url, {
            method: "POST",
            signal,
            headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
            body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params }),
          }),
        close: async () => {},
      }),
    ],
    [
      "2026-07-28 (v2 Client)",
      async (url: URL) =>
        (await connectModernHttp(url.href)) as unknown as { callTool: Client["callTool"]; close(): Promise<void> },
    ],
  ] as const)("%s: aborting the call aborts the handler's signal", async (_label, connect) => {
    let started = false;
    let aborted = false;
    const runtime = createToolRuntime(toolsFile, {
      ...options(),
      hooks: {},
      handlers: {
        echo: (_args, context) =>
          new Promise((resolve) => {
            started = true;
            context.signal.addEventListener("abort", () => {
              aborted = true;
              resolve("stopped");
            });
          }),
      },
    });
    const server = await startHttpServer(() => createServerFromRuntime(runtime), {
      host: "127.0.0.1",
      port: 0,
      log: () => {},
    });
    try {
      const client = await connect(server.url);
      const controller = new AbortController();
      const pending = client
        .callTool({ name: "echo", arguments: { message: "wait" } }, undefined, { signal: controller.signal })
        .catch((error: unknown) => error);
      for (let i = 0; i < 100 && !started; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(started).toBe(true);
      controller.abort();
      await pending;
      for (let i = 0; i < 100 && !aborted; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(aborted).toBe(true);
      await client.close();
    } finally {
      await server.close();
    }
  });
});
