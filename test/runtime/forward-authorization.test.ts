/**
 * Forwarded authorization (`--forward-authorization`): over Streamable HTTP, each MCP request's bearer token is what
 * the upstream receives. Two real MCP clients with different tokens call concurrently; every upstream request must
 * carry its own caller's token, never the other's, and never the server's configured one.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generate, regenerationOptions } from "../../src/generate.js";
import { startHttpServer, type RunningHttpServer } from "../../templates/server/src/runtime/mcp/http.js";
import { createServerFromRuntime } from "../../templates/server/src/runtime/mcp/server.js";
import { createToolRuntime } from "../../templates/server/src/runtime/server/runtime.js";
import type { ToolsFile } from "../../templates/server/src/runtime/shared/tool-data.js";
import { json, startUpstream, type Upstream } from "../helpers/upstream.js";

const toolsFile = JSON.parse(
  readFileSync(new URL("../fixtures/runtime-tools.json", import.meta.url), "utf8"),
) as ToolsFile;
const TOKEN_A = "user-a-token-1111";
const TOKEN_B = "user-b-token-2222";

let upstream: Upstream;
let http: RunningHttpServer;

beforeAll(async () => {
  upstream = await startUpstream();
  // Random delays interleave the two callers' requests; the body echoes the Authorization it received.
  upstream.route("GET", /^\/v1\/pets$/, (req, res) => {
    setTimeout(
      () => json(res, 200, [{ id: 1, name: "Rex", tag: req.headers.authorization ?? "none" }]),
      Math.random() * 30,
    );
  });
  const runtime = createToolRuntime(toolsFile, {
    env: { PETS_BASE_URL: `${upstream.url}/v1`, PETS_TOKEN: "server-held-token-9999" },
    log: () => {},
    toolMode: "per-operation",
  });
  http = await startHttpServer(() => createServerFromRuntime(runtime, { forwardAuthorization: true }), {
    host: "127.0.0.1",
    port: 0,
    log: () => {},
    forwardAuthorization: true,
  });
});

afterAll(async () => {
  await http?.close();
  await upstream?.close();
});

async function clientWith(token: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(http.url, {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: `user-${token}`, version: "1.0.0" });
  await client.connect(transport);
  return client;
}

describe("--forward-authorization over HTTP", () => {
  it("sends each caller's own token upstream, never mixed under concurrency, and never echoes it back", async () => {
    const [a, b] = await Promise.all([clientWith(TOKEN_A), clientWith(TOKEN_B)]);
    upstream.requests.length = 0;
    // limit identifies the caller in the upstream's record: A asks 1..10, B 11..20.
    const calls = Array.from({ length: 10 }, (_, i) => [
      a.callTool({ name: "list_pets", arguments: { limit: i + 1 } }),
      b.callTool({ name: "list_pets", arguments: { limit: i + 11 } }),
    ]).flat();
    const results = (await Promise.all(calls)) as CallToolResult[];
    for (const result of results) expect(result.isError, JSON.stringify(result)).toBeFalsy();

    expect(upstream.requests).toHaveLength(20);
    for (const request of upstream.requests) {
      const limit = Number(request.query.get("limit"));
      expect(request.headers.authorization).toBe(`Bearer ${limit <= 10 ? TOKEN_A : TOKEN_B}`);
    }
    // The upstream echoed each token; the agents see it redacted.
    const text = JSON.stringify(results);
    expect(text).not.toContain(TOKEN_A);
    expect(text).not.toContain(TOKEN_B);
    expect(text).toContain("[redacted forwarded Authorization]");
    await Promise.all([a.close(), b.close()]);
  });

  it("answers 401 to an MCP request without a bearer token, and nothing reaches the upstream", async () => {
    upstream.requests.length = 0;
    const response = await fetch(http.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(upstream.requests).toHaveLength(0);
  });

  it("refuses to start together with an MCP token (both use the Authorization header)", async () => {
    const runtime = createToolRuntime(toolsFile, { env: {}, log: () => {} });
    await expect(
      startHttpServer(() => createServerFromRuntime(runtime, { forwardAuthorization: true }), {
        host: "127.0.0.1",
        port: 0,
        log: () => {},
        forwardAuthorization: true,
        mcpToken: "mcp-token-123",
      }),
    ).rejects.toThrow(/cannot be combined/);
  });

  it("is off by default: the server's configured token goes upstream, whatever the caller sends", async () => {
    const runtime = createToolRuntime(toolsFile, {
      env: { PETS_BASE_URL: `${upstream.url}/v1`, PETS_TOKEN: "server-held-token-9999" },
      log: () => {},
      toolMode: "per-operation",
    });
    const plain = await startHttpServer(() => createServerFromRuntime(runtime), {
      host: "127.0.0.1",
      port: 0,
      log: () => {},
    });
    try {
      const transport = new StreamableHTTPClientTransport(plain.url, {
        requestInit: { headers: { authorization: `Bearer ${TOKEN_A}` } },
      });
      const client = new Client({ name: "plain", version: "1.0.0" });
      await client.connect(transport);
      upstream.requests.length = 0;
      await client.callTool({ name: "list_pets", arguments: {} });
      expect(upstream.requests[0]!.headers.authorization).toBe("Bearer server-held-token-9999");
      await client.close();
    } finally {
      await plain.close();
    }
  });
});

describe("--forward-authorization at generation", () => {
  const petstore = new URL("../../samples/petstore.yaml", import.meta.url).pathname;

  it("is recorded in the data file and for regeneration, and the README warns about it after the quick start", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "cgm-forward-")), "project");
    await generate({ from: petstore, out, ship: [], forwardAuthorization: true });
    const data = JSON.parse(readFileSync(join(out, "data", "tools.json"), "utf8")) as ToolsFile;
    expect(data.api.forwardAuthorization).toBe(true);
    expect((await regenerationOptions(out)).forwardAuthorization).toBe(true);
    const readme = readFileSync(join(out, "README.md"), "utf8");
    const quickStart = readme.indexOf("## Quick start");
    const warning = readme.indexOf("**Warning — forwarded authorization is on.**");
    expect(quickStart).toBeGreaterThan(0);
    expect(warning).toBeGreaterThan(quickStart);
    expect(warning).toBeLessThan(readme.indexOf("## Configuration"));
  });

  it("is off by default: no flag in the data file, no warning; the quick start comes before the configuration table", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "cgm-forward-")), "project");
    await generate({ from: petstore, out, ship: [] });
    const data = JSON.parse(readFileSync(join(out, "data", "tools.json"), "utf8")) as ToolsFile;
    expect(data.api.forwardAuthorization).toBeUndefined();
    const readme = readFileSync(join(out, "README.md"), "utf8");
    expect(readme).not.toContain("forwarded authorization is on");
    const block = readme.slice(readme.indexOf("## Quick start")).split("```")[1]!.trim().split("\n").slice(1);
    expect(block).toEqual([
      "npm install && npm run build",
      expect.stringMatching(/^export PETSTORE_API_KEY=…/),
      'claude mcp add petstore-mcp -e PETSTORE_API_KEY="$PETSTORE_API_KEY" -- node "$PWD/dist/index.js"',
    ]);
    expect(readme.indexOf("## Quick start")).toBeLessThan(readme.indexOf("## Configuration"));
  });
});

describe("forwarded authorization on long-running operations", () => {
  it("polls a status link with the polling caller's own token, never the starter's or the server's", async () => {
    const createPet = toolsFile.tools.find((tool) => tool.name === "create_pet")!;
    const startExport = {
      ...createPet,
      name: "start_export",
      inputSchema: { type: "object", additionalProperties: false },
      operation: { ...createPet.operation!, path: "/exports", body: undefined },
    };
    upstream.route("POST", /^\/v1\/exports$/, (_req, res) =>
      json(res, 202, { status: "queued" }, { location: "/v1/exports/jobs/7" }),
    );
    upstream.route("GET", /^\/v1\/exports\/jobs\/7$/, (_req, res) => json(res, 200, { status: "running" }));
    const runtime = createToolRuntime(
      { ...toolsFile, tools: [...toolsFile.tools, startExport] },
      {
        env: { PETS_BASE_URL: `${upstream.url}/v1`, PETS_TOKEN: "server-held-token-9999", PETS_API_KEY: "key-456" },
        log: () => {},
        toolMode: "per-operation",
      },
    );
    upstream.requests.length = 0;
    const started = await runtime.callTool("start_export", {}, { forwardedToken: TOKEN_A });
    const handle = (started.structuredContent as { operation?: { handle?: string } }).operation?.handle;
    expect(handle, JSON.stringify(started)).toBeTypeOf("string");
    await runtime.callTool("operation_status", { handle }, { forwardedToken: TOKEN_B });
    const [post, poll] = upstream.requests;
    expect(post!.path).toBe("/v1/exports");
    expect(post!.headers.authorization).toBe(`Bearer ${TOKEN_A}`);
    expect(poll!.path).toBe("/v1/exports/jobs/7");
    expect(poll!.headers.authorization).toBe(`Bearer ${TOKEN_B}`);
  });
});
