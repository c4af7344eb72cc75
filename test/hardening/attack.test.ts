/**
 * Issue "The generated server under attack and fault", parts 1, 2 and 6,
 * through real parts: the Petstore sample generated and compiled, driven by
 * the SDK's Client over stdio and Streamable HTTP against real local upstreams.
 *
 * 1. Argument values cannot change the request's target: path values stay
 *    encoded inside their segment, CR/LF in a header is refused, and nothing
 *    (absolute URLs, `//host`, extra arguments, a cross-origin redirect)
 *    makes the server talk to another host.
 * 2. Credentials never appear in tool results, errors, stderr or the audit
 *    trail, even when the upstream echoes them back on 200/401/403/500.
 * 6. The opt-in audit trail: one JSON line per call, arguments redacted.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateAndBuild, type BuiltProject } from "../helpers/generated.js";
import { SAMPLES } from "../helpers/pipeline.js";
import { json, startUpstream, type RecordedRequest, type Upstream } from "../helpers/upstream.js";
import {
  call,
  dataOf,
  errorOf,
  httpClient,
  httpSession,
  stdioSession,
  type StdioSession,
  closedPort,
} from "./support.js";

const API_KEY = "sk-live-HARDEN-apikey-7f3a9c1e";
const BEARER = "bearer-HARDEN-token-c0ffee42";
const MCP_TOKEN = "mcp-HARDEN-endpoint-5ec2e7a1";
const SECRETS = [API_KEY, BEARER, MCP_TOKEN];

let project: BuiltProject;
let upstream: Upstream;
let evil: Upstream;
let env: Record<string, string>;
const scratch = mkdtempSync(join(tmpdir(), "cgm-attack-"));

/** What an upstream that echoes credentials back would answer. */
const echo = (req: RecordedRequest) => ({
  message: "echo",
  api_key: req.headers["x-api-key"],
  authorization: req.headers["authorization"],
  raw: JSON.stringify(req.headers),
});

beforeAll(async () => {
  upstream = await startUpstream();
  evil = await startUpstream();
  evil.route("GET", /.*/, (_req, res) => json(res, 200, { stolen: true }));
  upstream.route("GET", /^\/v1\/orders\/redirect$/, (_req, res) => {
    res.writeHead(302, { location: `${evil.url}/steal` }).end();
  });
  upstream.route("GET", /^\/v1\/orders\/[^/]+$/, (req, res) =>
    json(res, 200, { id: decodeURIComponent(req.path.split("/").pop()!), pet_id: 1, quantity: 1 }),
  );
  upstream.route("GET", /^\/v1\/pets$/, (_req, res) => json(res, 200, []));
  upstream.route("GET", /^\/v1\/pets\/\d+$/, (req, res) => {
    const status = Number(req.path.split("/").pop());
    json(
      res,
      [401, 403, 500].includes(status) ? status : 200,
      status === 200 ? { id: 200, name: "Echo", ...echo(req) } : echo(req),
    );
  });
  upstream.route("DELETE", /^\/v1\/pets\/\d+$/, (req, res) => json(res, 401, echo(req)));
  upstream.route("POST", /^\/v1\/payments$/, (req, res) =>
    json(res, 200, { id: "pay_1", amount: 1, currency: "usd", metadata: {}, echo: req.body }),
  );
  project = await generateAndBuild(join(SAMPLES, "petstore.yaml"));
  env = { PETSTORE_BASE_URL: `${upstream.url}/v1`, PETSTORE_API_KEY: API_KEY, PETSTORE_BEARER_AUTH_TOKEN: BEARER };
}, 600_000);

afterAll(async () => {
  await upstream?.close();
  await evil?.close();
});

describe("argument values cannot change the request's target", () => {
  let session: StdioSession;
  beforeAll(async () => {
    session = await stdioSession(project.dir, env);
  });
  afterAll(async () => {
    await session?.close();
  });

  const sent = async (args: Record<string, unknown>, tool = "get_order"): Promise<RecordedRequest> => {
    const before = upstream.requests.length;
    const result = await call(session.client, tool, args);
    expect(result.isError, JSON.stringify(result.structuredContent).slice(0, 400)).toBeFalsy();
    expect(upstream.requests.length).toBe(before + 1);
    return upstream.requests.at(-1)!;
  };

  it.each([
    ["../admin", "/v1/orders/..%2Fadmin"],
    ["..%2Fadmin", "/v1/orders/..%252Fadmin"],
    ["a/b", "/v1/orders/a%2Fb"],
    ["%2F", "/v1/orders/%252F"],
    ["//evil.example/x", "/v1/orders/%2F%2Fevil.example%2Fx"],
    ["http://evil.example/steal?x=1#f", "/v1/orders/http%3A%2F%2Fevil.example%2Fsteal%3Fx%3D1%23f"],
    ["?admin=1", "/v1/orders/%3Fadmin%3D1"],
    ["%2e%2e", "/v1/orders/%252e%252e"],
  ])("path value %j stays encoded in its segment", async (id, path) => {
    const request = await sent({ id });
    expect(request.rawUrl).toBe(path);
    expect(request.headers.host).toBe(new URL(upstream.url).host);
  });

  it.each([".", "..", ""])("refuses a path value that would address another resource: %j", async (id) => {
    const before = upstream.requests.length;
    const result = await call(session.client, "get_order", { id });
    expect(["INVALID_REQUEST", "INVALID_ARGUMENTS"]).toContain(errorOf(result).code);
    expect(upstream.requests.length).toBe(before);
  });

  it("keeps absolute and scheme-relative URLs in query values inside the query", async () => {
    const evilUrl = `${evil.url}/steal`;
    const request = await sent({ id: "o1", query_id: evilUrl });
    expect(request.path).toBe("/v1/orders/o1");
    expect(request.query.get("id")).toBe(evilUrl);
    expect(request.rawUrl).toContain(`id=${encodeURIComponent(evilUrl)}`);
    const list = await sent({ tags: ["//evil.example", evilUrl], filter: { species: "@evil.example" } }, "list_pets");
    expect(list.path).toBe("/v1/pets");
    expect(list.query.getAll("tags")).toEqual(["//evil.example", evilUrl]);
  });

  it.each(["a\r\nX-Injected: 1", "a\nX-Injected: 1", "a\rb", "a\u0000b"])(
    "rejects CR/LF/NUL in a header value: %j",
    async (value) => {
      const before = upstream.requests.length;
      const error = errorOf(await call(session.client, "get_order", { id: "o1", "X-Request-Id": value }));
      expect(error.code).toBe("INVALID_REQUEST");
      expect(error.details).toMatchObject({ reason: "header_injection" });
      expect(upstream.requests.length).toBe(before);
    },
  );

  it("sends a header value byte for byte when it is single-line", async () => {
    const request = await sent({ id: "o1", "X-Request-Id": "trace: http://evil.example/; a=b" });
    expect(request.headers["x-request-id"]).toBe("trace: http://evil.example/; a=b");
  });

  it("takes the base URL only from the spec or the environment, never from arguments", async () => {
    for (const extra of [
      { base_url: evil.url },
      { PETSTORE_BASE_URL: evil.url },
      { url: `${evil.url}/x` },
      { _base_url: evil.url, host: new URL(evil.url).host },
    ]) {
      await call(session.client, "get_order", { id: "o1", ...extra });
    }
    expect(evil.requests).toEqual([]);
  });

  it("does not follow a redirect to another origin (credentials would go with it)", async () => {
    const result = await call(session.client, "get_order", { id: "redirect" });
    expect(result.isError).toBe(true);
    expect(evil.requests).toEqual([]);
  });

  it("never contacted the other host at all", () => {
    expect(evil.requests).toEqual([]);
    for (const request of upstream.requests) expect(request.headers.host).toBe(new URL(upstream.url).host);
  });
});

describe("credentials never appear in results, errors, stderr or the audit trail", () => {
  const leaks = (text: string) =>
    SECRETS.filter((secret) => text.includes(secret) || text.includes(Buffer.from(secret).toString("base64")));

  /** Provokes every path where an upstream's echo of the credentials could come back. */
  async function provoke(
    run: (name: string, args: Record<string, unknown>) => Promise<CallToolResult>,
  ): Promise<CallToolResult[]> {
    const results: CallToolResult[] = [];
    for (const petId of [401, 403, 500, 200]) results.push(await run("get_pet", { petId }));
    results.push(await run("delete_pet", { petId: 401, _confirm: true }));
    results.push(
      await run("create_payment", {
        amount: 1,
        currency: "usd",
        description: `my key is ${API_KEY}`,
        metadata: { token: BEARER },
      }),
    );
    results.push(await run("get_pet", { petId: "not-a-number", api_key: API_KEY }));
    results.push(await run("no_such_tool", { token: BEARER }));
    return results;
  }

  function checkResults(results: CallToolResult[]): void {
    expect(results.map((result) => result.isError ?? false)).toEqual([
      true,
      true,
      true,
      false,
      true,
      false,
      true,
      true,
    ]);
    expect(errorOf(results[0]!).code).toBe("UPSTREAM_UNAUTHORIZED");
    expect(errorOf(results[1]!).code).toBe("UPSTREAM_FORBIDDEN");
    expect(errorOf(results[2]!).code).toBe("UPSTREAM_UNAVAILABLE");
    expect(errorOf(results[4]!).code).toBe("UPSTREAM_UNAUTHORIZED");
    // The echo came back, minus the secrets.
    expect(JSON.stringify(errorOf(results[0]!).details)).toContain("[redacted PETSTORE_API_KEY]");
    expect(JSON.stringify(errorOf(results[4]!).details)).toContain("[redacted PETSTORE_BEARER_AUTH_TOKEN]");
    expect(JSON.stringify(dataOf(results[3]!))).toContain("[redacted PETSTORE_API_KEY]");
    expect(leaks(JSON.stringify(results))).toEqual([]);
  }

  it("over stdio", async () => {
    const audit = join(scratch, "stdio-audit.jsonl");
    const session = await stdioSession(project.dir, {
      ...env,
      PETSTORE_AUDIT_LOG: audit,
      PETSTORE_MCP_TOKEN: MCP_TOKEN,
    });
    const before = upstream.requests.length;
    const results = await provoke((name, args) => call(session.client, name, args));
    await session.close();
    checkResults(results);
    // The upstream really received (and echoed) the credentials.
    const seen = upstream.requests.slice(before);
    expect(seen.some((request) => request.headers["x-api-key"] === API_KEY)).toBe(true);
    expect(seen.some((request) => request.headers["authorization"] === `Bearer ${BEARER}`)).toBe(true);
    expect(session.stderr().length).toBeGreaterThan(0);
    expect(leaks(session.stderr())).toEqual([]);
    const trail = readFileSync(audit, "utf8");
    expect(trail.trim().split("\n")).toHaveLength(results.length);
    expect(leaks(trail)).toEqual([]);
  });

  it("over Streamable HTTP with an MCP token", async () => {
    const audit = join(scratch, "http-audit.jsonl");
    const server = await httpSession(project.dir, { ...env, PETSTORE_AUDIT_LOG: audit, PETSTORE_MCP_TOKEN: MCP_TOKEN });
    try {
      const client = await httpClient(server.url, { authorization: `Bearer ${MCP_TOKEN}` });
      const results = await provoke((name, args) => call(client, name, args));
      await client.close();
      checkResults(results);
      // A wrong token is refused without echoing either token.
      const refused = await fetch(server.url, {
        method: "POST",
        headers: { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" },
        body: "{}",
      });
      expect(refused.status).toBe(401);
      expect(leaks(await refused.text())).toEqual([]);
      expect(leaks(server.stderr())).toEqual([]);
      expect(leaks(readFileSync(audit, "utf8"))).toEqual([]);
    } finally {
      await server.stop();
    }
  });

  it("in network errors and unreachable-upstream messages", async () => {
    const session = await stdioSession(project.dir, {
      ...env,
      PETSTORE_BASE_URL: `http://127.0.0.1:${await closedPort()}/v1?key=${API_KEY}`,
      PETSTORE_RETRIES: "0",
    });
    const result = await call(session.client, "get_pet", { petId: 1 });
    await session.close();
    expect(errorOf(result).code).toBe("UPSTREAM_UNREACHABLE");
    expect(leaks(JSON.stringify(result))).toEqual([]);
    expect(leaks(session.stderr())).toEqual([]);
  });
});

describe("the audit trail", () => {
  it("records one JSON line per call: tool, redacted arguments, status, duration, timestamp", async () => {
    const audit = join(scratch, "audit.jsonl");
    const session = await stdioSession(project.dir, { ...env, PETSTORE_AUDIT_LOG: audit });
    await call(session.client, "list_pets", { limit: 5 });
    await call(session.client, "get_pet", { petId: 401 });
    await call(session.client, "create_payment", {
      amount: 7,
      currency: "usd",
      description: `note ${API_KEY} inline`,
      metadata: { password: "hunter2-pass", api_token: "tok-visible?", apiKey: "k-123456", customer: "cus_42" },
    });
    await call(session.client, "get_pet", { petId: 1, authorization: "Basic abcdef" });
    await call(session.client, "search_pets", { body: { name: "x".repeat(5000) } });
    await call(session.client, "info", {});
    await session.close();

    const lines = readFileSync(audit, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.map((line) => line["tool"])).toEqual([
      "list_pets",
      "get_pet",
      "create_payment",
      "get_pet",
      "search_pets",
      "info",
    ]);
    for (const line of lines) {
      expect(Number.isNaN(Date.parse(line["ts"] as string))).toBe(false);
      expect(line["ts"]).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(typeof line["duration_ms"]).toBe("number");
      expect(["ok", "error"]).toContain(line["status"]);
    }
    expect(lines[0]).toMatchObject({ status: "ok", arguments: { limit: 5 } });
    expect(lines[1]).toMatchObject({ status: "error", error_code: "UPSTREAM_UNAUTHORIZED", arguments: { petId: 401 } });
    expect(lines[2]).toMatchObject({
      status: "ok",
      arguments: {
        amount: 7,
        description: "note [redacted PETSTORE_API_KEY] inline",
        metadata: { password: "[redacted]", api_token: "[redacted]", apiKey: "[redacted]", customer: "cus_42" },
      },
    });
    expect(lines[3]).toMatchObject({
      status: "error",
      error_code: "UNKNOWN_PARAMETER",
      arguments: { petId: 1, authorization: "[redacted]" },
    });
    // Long values are cut: one huge call cannot flood the trail.
    expect(JSON.stringify(lines[4]).length).toBeLessThan(1000);
    expect(JSON.stringify(lines)).not.toContain("hunter2");
  });
});
