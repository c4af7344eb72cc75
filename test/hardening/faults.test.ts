/**
 * Issue "The generated server under attack and fault", part 7: the generated
 * and compiled Petstore server over Streamable HTTP, under malformed
 * JSON-RPC, 200 concurrent calls, a failing upstream, and 10 000 sequential
 * calls with flat memory. (Upstream faults: slow, 5xx/429, cut mid-body and
 * refused connections are also in resilience.test.ts and limits.test.ts.)
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateAndBuild, type BuiltProject } from "../helpers/generated.js";
import { SAMPLES } from "../helpers/pipeline.js";
import { json, startUpstream, type Upstream } from "../helpers/upstream.js";
import {
  call,
  closedPort,
  dataOf,
  errorOf,
  httpClient,
  httpSession,
  INITIALIZE,
  rawPost,
  stdioSession,
  toolCall,
  type HttpSession,
} from "./support.js";

let project: BuiltProject;
let upstream: Upstream;
let env: Record<string, string>;
let server: HttpSession;

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.route("GET", /^\/v1\/orders\/[^/]+$/, (req, res) => {
    const id = decodeURIComponent(req.path.split("/").pop()!);
    const answer = () => json(res, 200, { id, pet_id: Number(req.query.get("id") ?? 0), quantity: 1 });
    // A little jitter for the concurrent calls, so their answers come back out of order.
    if (id.startsWith("order-")) setTimeout(answer, Math.random() * 20);
    else answer();
  });
  upstream.route("GET", /^\/v1\/pets\/\d+$/, (req, res) => {
    const id = Number(req.path.split("/").pop());
    if (id === 500) return json(res, 500, { message: "boom" });
    if (id === 429) return json(res, 429, { message: "slow down" }, { "retry-after": "0" });
    json(res, 200, { id, name: "Rex" });
  });
  project = await generateAndBuild(join(SAMPLES, "petstore.yaml"));
  env = { PETSTORE_BASE_URL: `${upstream.url}/v1`, PETSTORE_API_KEY: "faults-key", PETSTORE_CIRCUIT_THRESHOLD: "0" };
  server = await httpSession(project.dir, env);
}, 600_000);

afterAll(async () => {
  await server?.stop();
  await upstream?.close();
});

async function stillServing(): Promise<void> {
  expect(server.process.exitCode).toBeNull();
  const response = await rawPost(server.url, toolCall(99, "get_order", { id: "alive" }));
  expect(response.status).toBe(200);
  expect(response.json).toMatchObject({ id: 99, result: { structuredContent: { data: { id: "alive" } } } });
}

describe("malformed JSON-RPC over HTTP", () => {
  it.each([
    // Not JSON at all: Parse error. Valid JSON that is no JSON-RPC request: Invalid Request.
    ["invalid JSON", "{", 400, -32700],
    ["truncated JSON", '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_or', 400, -32700],
    ["an empty body", "", 400, -32700],
    ["a JSON number", "42", 400, -32600],
    ["JSON null", "null", 400, -32600],
    ["not JSON-RPC", JSON.stringify({ hello: "world" }), 400, -32600],
    ["a wrong jsonrpc version", JSON.stringify({ jsonrpc: "1.0", id: 1, method: "ping" }), 400, -32600],
    ["an object id", JSON.stringify({ jsonrpc: "2.0", id: { a: 1 }, method: "ping" }), 400, -32600],
    ["an empty batch", "[]", 400, -32600],
    ["a batch of garbage", JSON.stringify([1, "two", null]), 400, -32600],
    ["deeply nested arrays", "[".repeat(5000) + "]".repeat(5000), 400, -32600],
  ])("answers %s with a JSON-RPC error and keeps serving", async (_label, body, status, code) => {
    const response = await rawPost(server.url, body);
    expect(response.status).toBe(status);
    if (code !== undefined) expect(response.json).toMatchObject({ jsonrpc: "2.0", error: { code } });
    await stillServing();
  });

  it.each([
    ["params missing", { jsonrpc: "2.0", id: 2, method: "tools/call" }],
    ["params null", { jsonrpc: "2.0", id: 2, method: "tools/call", params: null }],
    ["params an array", { jsonrpc: "2.0", id: 2, method: "tools/call", params: [1, 2] }],
    ["name a number", toolCall(2, 123 as unknown as string, {})],
    ["name null", toolCall(2, null as unknown as string, {})],
    ["name an object", toolCall(2, { toString: "get_order" } as unknown as string, {})],
    ["arguments a string", toolCall(2, "get_order", "id=1")],
    ["arguments an array", toolCall(2, "get_order", [1, 2, 3])],
    ["arguments a number", toolCall(2, "get_order", 7)],
    [
      "_meta a string",
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "get_order", arguments: { id: "x" }, _meta: "nope" },
      },
    ],
    [
      "progressToken an object",
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "get_order", arguments: { id: "x" }, _meta: { progressToken: { a: 1 } } },
      },
    ],
  ])("answers tools/call with %s by a JSON-RPC error or an isError result", async (_label, message) => {
    const response = await rawPost(server.url, message);
    expect(response.status).toBeLessThan(500);
    const answer = response.json as { error?: { code: number }; result?: { isError?: boolean } };
    expect(answer.error !== undefined || answer.result?.isError === true).toBe(true);
    if (answer.error) expect(typeof answer.error.code).toBe("number");
    await stillServing();
  });

  it.each([
    [
      "argument values of every wrong type",
      { id: { nested: [1, { deep: null }] }, query_id: [1, 2], "X-Request-Id": { a: 1 } },
    ],
    ["unknown arguments", { idd: "x", zzz: true }],
    ["a null argument", { id: null }],
    ["a huge number", { id: 1e308 }],
    ["unicode oddities", { id: "\ud800\udfff\u0000\u202e" }],
  ])("answers %s with a tool result, never a crash", async (_label, args) => {
    const response = await rawPost(server.url, toolCall(3, "get_order", args));
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({ jsonrpc: "2.0", id: 3, result: { content: expect.any(Array) } });
    await stillServing();
  });

  it("answers an unknown method with -32601 and a notification with 202", async () => {
    expect((await rawPost(server.url, { jsonrpc: "2.0", id: 4, method: "no/such/method" })).json).toMatchObject({
      error: { code: -32601 },
    });
    expect((await rawPost(server.url, { jsonrpc: "2.0", method: "notifications/initialized" })).status).toBe(202);
    expect((await rawPost(server.url, INITIALIZE)).status).toBe(200);
    await stillServing();
  });

  it("refuses other content types and methods", async () => {
    const text = await fetch(server.url, {
      method: "POST",
      headers: { "content-type": "text/plain", accept: "application/json, text/event-stream" },
      body: "{}",
    });
    expect(text.status).toBe(415);
    expect((await fetch(server.url, { method: "PUT" })).status).toBe(405);
    expect((await fetch(server.url.replace("/mcp", "/other"))).status).toBe(404);
    await stillServing();
  });
});

describe("load and upstream faults over HTTP", () => {
  it("answers 200 concurrent tools/call with none lost and none mixed up", async () => {
    const clients = await Promise.all(Array.from({ length: 4 }, () => httpClient(server.url)));
    const calls = Array.from({ length: 200 }, (_, i) =>
      call(clients[i % clients.length]!, "get_order", {
        id: `order-${i}`,
        query_id: String(i),
        "X-Request-Id": `req-${i}`,
      }).then((result) => ({ i, result })),
    );
    const results = await Promise.all(calls);
    expect(results).toHaveLength(200);
    for (const { i, result } of results) expect(dataOf(result)).toEqual({ id: `order-${i}`, pet_id: i, quantity: 1 });
    const seen = upstream.requests.filter((request) => /^\/v1\/orders\/order-\d+$/.test(request.path));
    expect(seen).toHaveLength(200);
    for (const request of seen) expect(request.headers["x-request-id"]).toBe(`req-${request.path.split("-").pop()}`);
    await Promise.all(clients.map((client) => client.close()));
  });

  it("turns an upstream that is down, answers 5xx or 429 into guided errors and keeps serving", async () => {
    const client = await httpClient(server.url);
    const before = upstream.requests.filter((request) => request.path === "/v1/pets/429").length;
    const limited = errorOf(await call(client, "get_pet", { petId: 429 }));
    expect(limited).toMatchObject({ code: "RATE_LIMITED", details: { attempts: 3 } });
    expect(upstream.requests.filter((request) => request.path === "/v1/pets/429").length - before).toBe(3);
    expect(errorOf(await call(client, "get_pet", { petId: 500 }))).toMatchObject({
      code: "UPSTREAM_UNAVAILABLE",
      details: { status: 500 },
    });
    await client.close();

    const down = await httpSession(project.dir, {
      ...env,
      PETSTORE_BASE_URL: `http://127.0.0.1:${await closedPort()}/v1`,
    });
    try {
      const downClient = await httpClient(down.url);
      const results = await Promise.all(Array.from({ length: 20 }, () => call(downClient, "get_pet", { petId: 1 })));
      for (const result of results) expect(errorOf(result).code).toBe("UPSTREAM_UNREACHABLE");
      expect(down.process.exitCode).toBeNull();
      await downClient.close();
    } finally {
      await down.stop();
    }
    await stillServing();
  });
});

describe("memory", () => {
  /*
   * Over stdio (about four times faster per call than HTTP here). The server
   * runs with a capped V8 heap: otherwise V8 grows the heap lazily (garbage
   * piles up between major collections) and RSS measures that policy rather
   * than what is live. With the cap, live memory is what RSS shows, and a
   * leak either shows up in it or crashes the server.
   */
  it("stays flat over 10 000 sequential calls", async () => {
    const session = await stdioSession(project.dir, { ...env, NODE_OPTIONS: "--max-old-space-size=96" });
    const rss = () =>
      Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${session.pid()}/status`, "utf8"))![1]) / 1024;
    const once = async (i: number) => {
      const result = await call(session.client, "get_order", { id: `m-${i}`, query_id: String(i) });
      if ((dataOf(result) as { id: string }).id !== `m-${i}`)
        throw new Error(`call ${i} answered ${JSON.stringify(result)}`);
    };
    try {
      for (let i = 0; i < 2000; i++) await once(i); // warm-up: JIT, caches, connection pool, heap sizing
      await sleep(200);
      const warm = rss();
      const started = Date.now();
      for (let i = 2000; i < 12_000; i++) await once(i);
      await sleep(200);
      const end = rss();
      const growth = end - warm;
      console.log(
        `10 000 calls in ${Date.now() - started} ms; RSS ${warm.toFixed(1)} MB after warm-up, ${end.toFixed(1)} MB at the end (${growth >= 0 ? "+" : ""}${growth.toFixed(1)} MB)`,
      );
      expect(growth).toBeLessThan(30);
      expect(session.stderr()).not.toMatch(/heap out of memory|FATAL/i);
    } finally {
      await session.close();
    }
  }, 120_000);
});
