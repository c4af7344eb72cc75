/**
 * The server's own tests, generated with it and regenerated with it, like the
 * rest of src/runtime/ (add your own tests under test/, which stays yours;
 * `npm test` runs both). Not part of the build: tsconfig.json excludes it.
 *
 * - every tool's example passes its validator, and produces exactly the HTTP
 *   request derived at generation time (src/runtime/test/expectations.json);
 * - a corrupted call comes back as a guided error the model can act on;
 * - a real MCP client, in memory, lists the tools and calls each safe (GET) tool.
 *
 * Everything runs offline against a local mock upstream that this file starts.
 * The calls go through the runtime's ToolRuntime (src/runtime/server/runtime.ts);
 * the last block goes through the MCP layer (src/runtime/mcp/).
 */
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { hooks } from "../../hooks.js";
import { handlers } from "../handlers.js";
import { createServerFromRuntime } from "../mcp/server.js";
import { createToolRuntime, type ToolRuntime } from "../server/runtime.js";
import type { TestExpectations as Expectations } from "../shared/test-expectations.js";
import type { ToolsFile } from "../shared/tool-data.js";

interface Received {
  method: string;
  url: URL;
  headers: IncomingMessage["headers"];
  body: string;
}

const toolsFile = JSON.parse(readFileSync(new URL("../../../data/tools.json", import.meta.url), "utf8")) as ToolsFile;
const expectations = JSON.parse(readFileSync(new URL("./expectations.json", import.meta.url), "utf8")) as Expectations;
const { api } = toolsFile;
const scope = expectations.sampled
  ? `a sample of ${expectations.tools.length} of the ${expectations.totalTools} tools`
  : `all ${expectations.tools.length} tools with an example`;
const httpTools = expectations.tools.filter((tool) => !tool.handler && tool.request);
const credentialQueryNames = new Set(
  api.securitySchemes.flatMap((scheme) =>
    scheme.kind === "apiKey" && scheme.in === "query" ? [scheme.parameterName] : [],
  ),
);

let upstream: HttpServer;
let received: Received[] = [];
let runtime: ToolRuntime;
let basePath = "";

beforeAll(async () => {
  upstream = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("end", () => {
      received.push({
        method: req.method ?? "",
        url: new URL(req.url ?? "/", "http://upstream.test"),
        headers: req.headers,
        body,
      });
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  const { port } = upstream.address() as AddressInfo;
  basePath = api.baseUrl.startsWith("http")
    ? new URL(api.baseUrl).pathname.replace(/\/$/, "")
    : api.baseUrl.replace(/\/$/, "");
  const env: Record<string, string> = { [api.baseUrlEnv]: `http://127.0.0.1:${port}${basePath}` };
  for (const scheme of api.securitySchemes) {
    if (scheme.kind === "basic")
      Object.assign(env, { [scheme.usernameEnv]: "test-user", [scheme.passwordEnv]: "test-password" });
    else env[scheme.env] = "test-credential";
  }
  runtime = createToolRuntime(toolsFile, { env, hooks, handlers, toolMode: "per-operation", log: () => {} });
});

afterAll(async () => {
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
});

beforeEach(() => {
  received = [];
});

describe(`examples (${scope})`, () => {
  it.each(expectations.tools.map((tool) => [tool.name, tool] as const))(
    "%s: the example passes the tool's validator",
    (_name, expected) => {
      const tool = toolsFile.tools.find((candidate) => candidate.name === expected.name);
      expect(tool, `tool ${expected.name} is in data/tools.json`).toBeDefined();
      expect(runtime.validators.validateArguments(tool!, expected.args)).toEqual({ valid: true });
    },
  );

  it.skipIf(httpTools.length === 0).each(httpTools.map((tool) => [tool.name, tool] as const))(
    "%s: the example builds the expected HTTP request",
    async (_name, expected) => {
      const request = expected.request!;
      const result = await runtime.callTool(expected.name, { ...expected.args, _confirm: true });
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      expect(received).toHaveLength(1);
      const actual = received[0]!;
      expect(actual.method).toBe(request.method);
      if (!request.unchecked.some((part) => part.startsWith("path parameter")))
        expect(actual.url.pathname).toBe(`${basePath}${request.path}`);
      // Query parameters whose serialisation was not derived (e.g. deepObject) are left out on both sides, as are credentials.
      const uncheckedQuery = new Set(
        request.unchecked
          .filter((part) => part.startsWith("query parameter "))
          .map((part) => part.slice("query parameter ".length)),
      );
      const query = [...actual.url.searchParams.entries()].filter(
        ([name]) =>
          !credentialQueryNames.has(name) &&
          ![...uncheckedQuery].some((unchecked) => name === unchecked || name.startsWith(`${unchecked}[`)),
      );
      expect(sortPairs(query)).toEqual(sortPairs(request.query));
      for (const [name, value] of Object.entries(request.headers)) expect(actual.headers[name]).toBe(value);
      if (request.body !== undefined) expect(JSON.parse(actual.body)).toEqual(request.body);
    },
  );
});

describe("guided errors", () => {
  const target = expectations.tools.find((tool) => Object.keys(tool.args).length > 0) ?? expectations.tools[0];

  it.skipIf(!target)("a corrupted call returns a guided error naming the problem and a fix", async () => {
    const corrupted = {
      ...Object.fromEntries(
        Object.entries(target!.args).map(([key, value]) => [
          key,
          typeof value === "string" ? 12345 : "not-a-valid-value",
        ]),
      ),
      surely_not_a_parameter: true,
    };
    const result = await runtime.callTool(target!.name, corrupted);
    expect(result.isError).toBe(true);
    const error = (
      result.structuredContent as {
        error: { code: string; message: string; issues: Array<{ field: string; fix: string }> };
      }
    ).error;
    expect(error.code).toMatch(/^[A-Z_]+$/);
    expect(error.issues.length).toBeGreaterThan(0);
    expect(error.issues.every((issue) => issue.fix.length > 0)).toBe(true);
    expect(received).toHaveLength(0); // nothing reached the upstream
  });
});

describe("through a real MCP client (in memory)", () => {
  const safeTools = httpTools.filter((tool) => tool.safe);

  it("lists the tools and calls each safe tool, receiving the envelope", async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const server = createServerFromRuntime(runtime);
    const client = new Client({ name: "generated-test", version: "1.0.0" });
    await server.connect(serverSide);
    await client.connect(clientSide);
    try {
      const listed = (await client.listTools()).tools.map((tool) => tool.name);
      for (const tool of expectations.tools) expect(listed).toContain(tool.name);
      for (const tool of safeTools) {
        const result = await client.callTool({ name: tool.name, arguments: tool.args });
        expect(result.isError, `${tool.name}: ${JSON.stringify(result.content)}`).toBeFalsy();
        // The envelope: the body (as `data`, or `unvalidated_data` when the mock's `{}` does not match the response schema) and guidance.
        const envelope = result.structuredContent as Record<string, unknown>;
        expect("data" in envelope || "unvalidated_data" in envelope, JSON.stringify(envelope)).toBe(true);
        expect(Array.isArray(envelope.next_actions)).toBe(true);
        expect(typeof envelope.suggestion).toBe("string");
      }
      expect(received).toHaveLength(safeTools.length);
    } finally {
      await client.close();
    }
  });
});

function sortPairs(pairs: Array<[string, string]>): Array<[string, string]> {
  return [...pairs].sort(([a, x], [b, y]) => (a === b ? x.localeCompare(y) : a.localeCompare(b)));
}
