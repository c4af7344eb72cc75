/**
 * OAuth2 client credentials, end to end: a spec with a clientCredentials flow goes through the real generator, the
 * generated data file drives the runtime behind a real MCP client, and a local upstream serves both the API and its
 * token endpoint. Checks: the token is fetched with the flow's scopes, shared (one token request for many calls,
 * concurrent ones included), refreshed once after a 401, and neither the secret nor a token reaches results or logs.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { generate } from "../../src/generate.js";
import { createServer as createMcpServer } from "../../templates/server/src/runtime/mcp/server.js";
import type { ToolsFile } from "../../templates/server/src/runtime/shared/tool-data.js";
import { json, startUpstream, type RecordedRequest, type Upstream } from "../helpers/upstream.js";

const CLIENT_ID = "client-id-7f3a";
const CLIENT_SECRET = "s3cret-value-9b1c-do-not-leak";

const spec = {
  openapi: "3.0.3",
  info: { title: "Vault", version: "1.0.0" },
  servers: [{ url: "https://vault.invalid/v1" }],
  components: {
    securitySchemes: {
      machine: {
        type: "oauth2",
        flows: {
          clientCredentials: {
            tokenUrl: "/oauth/token",
            scopes: { "read:items": "Read items", "write:items": "Write items" },
          },
        },
      },
    },
  },
  security: [{ machine: ["read:items"] }],
  paths: {
    "/items": {
      get: {
        operationId: "listItems",
        summary: "List items",
        responses: { "200": { description: "ok", content: { "application/json": { schema: { type: "array" } } } } },
      },
    },
  },
};

let upstream: Upstream;
let toolsFile: ToolsFile;
/** Tokens the endpoint has issued, in order; the API accepts only those in `valid`. */
let issued: string[];
let valid: Set<string>;
let tokenBehaviour: "ok" | "basic-refused" | "invalid-client";
/** The API refuses every token. */
let rejectAll: boolean;

function tokenRequests(): RecordedRequest[] {
  return upstream.requests.filter((request) => request.path === "/oauth/token");
}

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.route("POST", /^\/oauth\/token$/, (req, res) => {
    const form = new URLSearchParams(req.body);
    const basic = req.headers.authorization?.replace(/^Basic /, "");
    const [id, secret] = basic
      ? Buffer.from(basic, "base64").toString("utf8").split(":").map(decodeURIComponent)
      : [form.get("client_id"), form.get("client_secret")];
    const refuse = tokenBehaviour === "invalid-client" || (tokenBehaviour === "basic-refused" && basic !== undefined);
    if (refuse || id !== CLIENT_ID || secret !== CLIENT_SECRET || form.get("grant_type") !== "client_credentials")
      return json(res, 401, { error: "invalid_client", error_description: `bad client ${secret ?? ""}` });
    const token = `at-${issued.length + 1}-${Math.random().toString(36).slice(2)}`;
    issued.push(token);
    valid.add(token);
    // A slow endpoint, so concurrent calls overlap the fetch in flight.
    setTimeout(() => json(res, 200, { access_token: token, token_type: "Bearer", expires_in: 3600 }), 50);
  });
  upstream.route("GET", /^\/v1\/items$/, (req, res) => {
    const token = req.headers.authorization?.replace(/^Bearer /, "") ?? "";
    if (rejectAll || !valid.has(token)) return json(res, 401, { message: `token ${token} is not valid` });
    // An upstream that echoes the credential back: it must not reach the agent.
    json(res, 200, [{ id: 1, seen_authorization: req.headers.authorization }]);
  });

  const dir = mkdtempSync(join(tmpdir(), "cgm-oauth-"));
  const specPath = join(dir, "vault.json");
  writeFileSync(specPath, JSON.stringify(spec));
  await generate({ from: specPath, out: join(dir, "project"), ship: [] });
  toolsFile = JSON.parse(readFileSync(join(dir, "project", "data", "tools.json"), "utf8")) as ToolsFile;
});

afterAll(async () => {
  await upstream.close();
});

beforeEach(() => {
  upstream.requests.length = 0;
  issued = [];
  valid = new Set();
  tokenBehaviour = "ok";
  rejectAll = false;
});

async function connect(env: Record<string, string>, logs: string[]): Promise<Client> {
  const server = createMcpServer(toolsFile, { env, log: (line) => logs.push(line), toolMode: "per-operation" });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: "oauth-test", version: "1.0.0" });
  await client.connect(clientTransport);
  await client.listTools();
  return client;
}

const env = (): Record<string, string> => ({
  VAULT_BASE_URL: `${upstream.url}/v1`,
  VAULT_MACHINE_CLIENT_ID: CLIENT_ID,
  VAULT_MACHINE_CLIENT_SECRET: CLIENT_SECRET,
});

async function listItems(client: Client): Promise<CallToolResult> {
  return (await client.callTool({ name: "list_items", arguments: {} })) as CallToolResult;
}

function assertNoSecrets(texts: string[]): void {
  for (const text of texts) {
    expect(text).not.toContain(CLIENT_SECRET);
    for (const token of issued) expect(text).not.toContain(token);
  }
}

describe("OAuth2 client credentials", () => {
  it("generates the client id and secret env vars from the scheme and records the flow", () => {
    const scheme = toolsFile.api.securitySchemes[0]!;
    expect(scheme).toMatchObject({
      kind: "bearer",
      env: "VAULT_MACHINE_TOKEN",
      clientCredentials: {
        tokenUrl: "/oauth/token",
        scopes: ["read:items", "write:items"],
        clientIdEnv: "VAULT_MACHINE_CLIENT_ID",
        clientSecretEnv: "VAULT_MACHINE_CLIENT_SECRET",
      },
    });
  });

  it("fetches one token with the flow's scopes and shares it across sequential and concurrent calls", async () => {
    const logs: string[] = [];
    const client = await connect(env(), logs);
    const results = await Promise.all(Array.from({ length: 5 }, () => listItems(client)));
    for (let i = 0; i < 3; i++) results.push(await listItems(client));
    for (const result of results) expect(result.isError, JSON.stringify(result)).toBeFalsy();

    const requests = tokenRequests();
    expect(requests).toHaveLength(1);
    const form = new URLSearchParams(requests[0]!.body);
    expect(form.get("grant_type")).toBe("client_credentials");
    expect(form.get("scope")).toBe("read:items write:items");
    const apiCalls = upstream.requests.filter((request) => request.path === "/v1/items");
    expect(apiCalls).toHaveLength(8);
    for (const call of apiCalls) expect(call.headers.authorization).toBe(`Bearer ${issued[0]}`);

    // The upstream echoed the token; the agent sees it redacted.
    const text = JSON.stringify(results);
    expect(text).toContain("[redacted");
    assertNoSecrets([text, ...logs]);
  });

  it("after a 401 fetches a fresh token once and retries, then reports UPSTREAM_UNAUTHORIZED if refused again", async () => {
    const logs: string[] = [];
    const client = await connect(env(), logs);
    expect((await listItems(client)).isError).toBeFalsy();
    valid.clear(); // the API revokes the token
    const recovered = await listItems(client);
    expect(recovered.isError, JSON.stringify(recovered)).toBeFalsy();
    expect(tokenRequests()).toHaveLength(2);
    const lastCall = upstream.requests.filter((request) => request.path === "/v1/items").at(-1)!;
    expect(lastCall.headers.authorization).toBe(`Bearer ${issued[1]}`);

    // Every token the endpoint issues is refused by the API: one refresh, then the guided error.
    rejectAll = true;
    const before = tokenRequests().length;
    const refused = await listItems(client);
    expect(refused.isError).toBe(true);
    expect((refused.structuredContent as { error: { code: string } }).error.code).toBe("UPSTREAM_UNAUTHORIZED");
    expect(tokenRequests().length - before).toBe(1);
    const message = (refused.structuredContent as { error: { message: string } }).error.message;
    expect(message).toContain("VAULT_MACHINE_CLIENT_ID and VAULT_MACHINE_CLIENT_SECRET");
    assertNoSecrets([JSON.stringify(recovered), JSON.stringify(refused), ...logs]);
  });

  it("falls back to client_secret_post when the endpoint refuses HTTP Basic", async () => {
    tokenBehaviour = "basic-refused";
    const client = await connect(env(), []);
    expect((await listItems(client)).isError).toBeFalsy();
    const [basic, post] = tokenRequests();
    expect(basic!.headers.authorization).toMatch(/^Basic /);
    expect(post!.headers.authorization).toBeUndefined();
    expect(new URLSearchParams(post!.body).get("client_id")).toBe(CLIENT_ID);
  });

  it("a refused client is a configuration error naming the env vars, never the secret or the endpoint's echo", async () => {
    tokenBehaviour = "invalid-client";
    const logs: string[] = [];
    const client = await connect(env(), logs);
    const result = await listItems(client);
    expect(result.isError).toBe(true);
    const error = (result.structuredContent as { error: { code: string; message: string } }).error;
    expect(error.code).toBe("CONFIGURATION_ERROR");
    expect(error.message).toContain("invalid_client");
    expect(error.message).toContain("VAULT_MACHINE_CLIENT_SECRET");
    expect(upstream.requests.some((request) => request.path === "/v1/items")).toBe(false);
    assertNoSecrets([JSON.stringify(result), ...logs]);
  });

  it("without a token or client credentials, names the client id and secret as what to set", async () => {
    const client = await connect({ VAULT_BASE_URL: `${upstream.url}/v1` }, []);
    const result = await listItems(client);
    const error = (result.structuredContent as { error: { code: string; details: { missing_env: string[] } } }).error;
    expect(error.code).toBe("UPSTREAM_UNAUTHORIZED");
    expect(error.details.missing_env).toEqual(["VAULT_MACHINE_CLIENT_ID", "VAULT_MACHINE_CLIENT_SECRET"]);
    expect(upstream.requests).toHaveLength(0);
  });

  it("a static token in VAULT_MACHINE_TOKEN wins: no token request", async () => {
    valid.add("static-token-123");
    const client = await connect({ ...env(), VAULT_MACHINE_TOKEN: "static-token-123" }, []);
    expect((await listItems(client)).isError).toBeFalsy();
    expect(tokenRequests()).toHaveLength(0);
  });
});
