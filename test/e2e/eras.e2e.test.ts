/**
 * Both protocol generations against every sample's generated server, over stdio and Streamable HTTP:
 * the v1 SDK `Client` (2025-11-25, initialize handshake) and the v2 `Client` pinned to 2026-07-28
 * (server/discover probe, per-request `_meta`). Each lists the tools, makes a valid call against a
 * real local upstream, gets a guided error (issues + corrective_params, never pre-empted by the SDK),
 * and meets the destructive gate where the API has a destructive operation.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolsFile } from "../../templates/server/src/runtime/shared/tool-data.js";
import { generateAndBuild, type BuiltProject } from "../helpers/generated.js";
import {
  connectHttp,
  connectModernHttp,
  modernStdioSession,
  startHttpServer,
  stdioSession,
  type HttpServerProcess,
} from "../helpers/mcp.js";
import { SAMPLES } from "../helpers/pipeline.js";
import { json, startUpstream, type Upstream } from "../helpers/upstream.js";

/** What the tests need from either client generation. */
interface AnyClient {
  listTools(): Promise<{ tools: { name: string; annotations?: { destructiveHint?: boolean } }[] }>;
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

// Every sample document (library-components.yaml is only the components file library-openapi31.yaml references).
const SAMPLE_FILES = ["petstore.yaml", "inventory-swagger2.json", "library-openapi31.yaml", "notes-tools.schema.json"];

let upstream: Upstream;

beforeAll(async () => {
  upstream = await startUpstream();
  // Any request succeeds with an empty object: the calls here test the protocol path, not the API.
  upstream.route("GET", /.*/, (_req, res) => json(res, 200, {}));
  upstream.route("POST", /.*/, (_req, res) => json(res, 200, {}));
  upstream.route("DELETE", /.*/, (_req, res) => void res.writeHead(204).end());
});

afterAll(async () => {
  await upstream?.close();
});

/** The base URL override and a value for every credential env var the data file names. */
function envFor(toolsFile: ToolsFile): Record<string, string> {
  const env: Record<string, string> = { [toolsFile.api.baseUrlEnv]: upstream.url };
  for (const scheme of toolsFile.api.securitySchemes) {
    if (scheme.kind === "basic") Object.assign(env, { [scheme.usernameEnv]: "user", [scheme.passwordEnv]: "pass" });
    else env[scheme.env] = "test-credential";
  }
  return env;
}

/** The tool's minimal valid arguments, as the `info` tool gives them. */
async function minimalExample(client: AnyClient, tool: string): Promise<Record<string, unknown>> {
  const described = (await client.callTool({ name: "info", arguments: { tool, level: "full" } })) as CallToolResult;
  return (described.structuredContent as { examples?: { minimal?: Record<string, unknown> } }).examples?.minimal ?? {};
}

describe.each(SAMPLE_FILES)("%s: both client generations", (sample) => {
  let project: BuiltProject;
  let toolsFile: ToolsFile;
  let env: Record<string, string>;
  let http: HttpServerProcess;

  beforeAll(async () => {
    project = await generateAndBuild(join(SAMPLES, sample));
    toolsFile = JSON.parse(readFileSync(join(project.dir, "data", "tools.json"), "utf8")) as ToolsFile;
    env = envFor(toolsFile);
    http = await startHttpServer(project.dir, env);
  }, 600_000);

  afterAll(async () => {
    await http?.stop();
  });

  it.each([
    [
      "stdio",
      async () =>
        (await modernStdioSession(project.dir, env, [], { elicitation: "accept" })).client as unknown as AnyClient,
    ],
    ["HTTP", async () => (await connectModernHttp(http.url, { elicitation: "accept" })) as unknown as AnyClient],
  ] as const)(
    "v2 Client (2026-07-28) over %s confirms a destructive call through input_required, then it runs",
    async (_label, connect) => {
      const destructive = toolsFile.tools.find((tool) => tool.annotations.destructiveHint);
      if (!destructive) return; // this API has no destructive operation
      const client = await connect();
      try {
        const before = upstream.requests.length;
        const confirmed = (await client.callTool({
          name: destructive.name,
          arguments: await minimalExample(client, destructive.name),
        })) as CallToolResult;
        expect(confirmed.isError, JSON.stringify(confirmed.structuredContent)).toBeFalsy();
        expect(upstream.requests.length).toBe(before + 1);
      } finally {
        await client.close();
      }
    },
  );

  const connections: [string, () => Promise<AnyClient>][] = [
    [
      "v1 Client (2025-11-25) over stdio",
      async () => (await stdioSession(project.dir, env)).client as unknown as AnyClient,
    ],
    [
      "v2 Client (2026-07-28) over stdio",
      async () => (await modernStdioSession(project.dir, env)).client as unknown as AnyClient,
    ],
    ["v1 Client (2025-11-25) over HTTP", async () => (await connectHttp(http.url)) as unknown as AnyClient],
    ["v2 Client (2026-07-28) over HTTP", async () => (await connectModernHttp(http.url)) as unknown as AnyClient],
  ];

  it.each(connections)("%s: lists, calls, gets a guided error, meets the destructive gate", async (_label, connect) => {
    const client = await connect();
    try {
      const { tools } = await client.listTools();
      const operations = tools.filter((tool) => toolsFile.tools.some((data) => data.name === tool.name));
      expect(operations.length).toBe(toolsFile.tools.length);

      // A valid call: the tool's own minimal example, as `info` gives it.
      const target =
        toolsFile.tools.find((tool) => !tool.annotations.destructiveHint && tool.operation) ?? toolsFile.tools[0]!;
      const valid = (await client.callTool({
        name: target.name,
        arguments: await minimalExample(client, target.name),
      })) as CallToolResult;
      if (target.operation) expect(valid.isError, JSON.stringify(valid.structuredContent)).toBeFalsy();
      else expect(JSON.stringify(valid.content)).toMatch(/not implemented yet/); // JSON Schema sample: stub handlers

      // A guided error from our validation, not the SDK's: an unknown key and a misspelt enum on `info`.
      const invalid = (await client.callTool({
        name: "info",
        arguments: { tool: target.name, level: "ful" },
      })) as CallToolResult;
      expect(invalid.isError).toBe(true);
      expect(invalid.structuredContent).toMatchObject({
        error: {
          code: "INVALID_ENUM",
          issues: [expect.objectContaining({ field: "level" })],
          corrective_params: { tool: target.name, level: "full" },
        },
      });

      const destructive = toolsFile.tools.find((tool) => tool.annotations.destructiveHint);
      if (destructive) {
        const before = upstream.requests.length;
        const gated = (await client.callTool({
          name: destructive.name,
          arguments: await minimalExample(client, destructive.name),
        })) as CallToolResult;
        expect(gated.isError).toBe(true);
        expect(gated.structuredContent).toMatchObject({ error: { code: "CONFIRMATION_REQUIRED" } });
        expect(upstream.requests.length).toBe(before);
      }
    } finally {
      await client.close();
    }
  });
});
