/**
 * End to end through the real entry point: the template is compiled with tsc
 * into a scratch project under .cache/ (so Node resolves packages from the
 * repository's node_modules), the fixture becomes its data/tools.json, and
 * the process is driven over stdio and over HTTP exactly as a client would.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ListToolsResultSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ToolsFile } from "../../templates/server/src/runtime/shared/tool-data.js";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
// Under node_modules/.cache, not .cache: .cache may be a symlink to a shared cache, and Node resolves packages from the real path.
const scratch = join(repoRoot, "node_modules", ".cache", `runtime-e2e-${process.pid}`);
const fixture = JSON.parse(
  readFileSync(new URL("../fixtures/runtime-tools.json", import.meta.url), "utf8"),
) as ToolsFile;

let upstream: HttpServer;
let upstreamBase: string;
const seenHeaders: IncomingHttpHeaders[] = [];
const children: ChildProcess[] = [];

function makeProject(dir: string, toolsFile: ToolsFile): string {
  mkdirSync(join(dir, "data"), { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
  writeFileSync(join(dir, "data", "tools.json"), JSON.stringify(toolsFile));
  return join(dir, "dist", "index.js");
}

beforeAll(async () => {
  rmSync(scratch, { recursive: true, force: true });
  makeProject(scratch, fixture);
  const tsc = join(repoRoot, "node_modules", "typescript", "bin", "tsc");
  const compiled = spawnSync(
    process.execPath,
    [tsc, "-p", join(repoRoot, "templates/server/tsconfig.json"), "--outDir", join(scratch, "dist")],
    {
      encoding: "utf8",
    },
  );
  // Type errors elsewhere in the template (work in progress) still emit JS; the typecheck is its own gate.
  if (!existsSync(join(scratch, "dist", "index.js")))
    throw new Error(`tsc emitted nothing:\n${compiled.stdout}${compiled.stderr}`);
  // The generator renders the handler registry from a template; this fixture has no handler-backed tools.
  mkdirSync(join(scratch, "dist", "runtime"), { recursive: true });
  writeFileSync(join(scratch, "dist", "runtime", "handlers.js"), "export const handlers = {};\n");

  upstream = createServer((req, res) => {
    seenHeaders.push(req.headers);
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (path === "/v1/pets")
      return res.writeHead(200, { "content-type": "application/json" }).end('[{"id":1,"name":"Rex"}]');
    if (path === "/v1/motd") return res.writeHead(200, { "content-type": "text/plain" }).end("hello from upstream");
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  upstreamBase = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;
}, 120_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
  upstream.closeAllConnections();
  await new Promise((resolve) => upstream.close(resolve));
  rmSync(scratch, { recursive: true, force: true });
});

function serverEnv(): Record<string, string> {
  return { PATH: process.env["PATH"] ?? "", PETS_BASE_URL: upstreamBase, PETS_TOKEN: "tok-e2e" };
}

/** One JSON-RPC request to a fresh stdio server process; the first line it answers (stdin stays open until then). */
async function oneRequest(
  env: Record<string, string>,
  message: object,
  entry = join(scratch, "dist", "index.js"),
): Promise<unknown> {
  const child = spawn(process.execPath, [entry], {
    env,
    stdio: ["pipe", "pipe", "ignore"],
  });
  children.push(child);
  let stdout = "";
  const line = await new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
      if (stdout.includes("\n")) resolve(stdout.slice(0, stdout.indexOf("\n")));
    });
    child.once("exit", (code) => reject(new Error(`exited ${code} before answering`)));
    child.stdin!.write(`${JSON.stringify(message)}\n`);
  });
  child.kill();
  return JSON.parse(line);
}

describe("compiled entry point", () => {
  it("serves over stdio, keeping stdout for the protocol", async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(scratch, "dist", "index.js")],
      env: serverEnv(),
      stderr: "pipe",
    });
    const client = new Client({ name: "e2e-stdio", version: "1.0.0" });
    await client.connect(transport);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("list_pets");
    const result = (await client.callTool({ name: "get_motd", arguments: {} })) as CallToolResult;
    expect(result.structuredContent).toMatchObject({ data: "hello from upstream", resolved_inputs: {} });
    await client.close();
  });

  it("answers a stdio server/discover probe (2026-07-28) without touching anything: the audit log opens at the first call", async () => {
    const audit = join(scratch, "probe-audit.log");
    rmSync(audit, { force: true });
    const env = { ...serverEnv(), PETS_AUDIT_LOG: audit };
    const meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
    };
    const answer = (await oneRequest(env, {
      jsonrpc: "2.0",
      id: 1,
      method: "server/discover",
      params: { _meta: meta },
    })) as { result: Record<string, unknown> };
    expect(answer.result).toMatchObject({
      supportedVersions: ["2026-07-28"],
      capabilities: { tools: {} },
      ttlMs: 3_600_000,
      cacheScope: "public",
    });
    expect(existsSync(audit)).toBe(false);

    expect(
      await oneRequest(env, {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "get_motd", arguments: {}, _meta: meta },
      }),
    ).toMatchObject({ result: { structuredContent: { data: "hello from upstream" } } });
    expect(readFileSync(audit, "utf8")).toContain('"tool":"get_motd"');
  });

  it("answers server/discover in per-operation mode without parsing the operations (the 2026-07-28 probe)", async () => {
    const meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
    };
    const discover = { jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: meta } };
    const env = { ...serverEnv(), PETS_TOOLS: "per-operation" };
    const healthy = (await oneRequest(env, discover)) as { result: { instructions?: string } };
    expect(healthy.result.instructions).toContain(fixture.api.instructions);

    // The same project with its operations cut off mid-file: only a process that parses them can notice.
    const cutProject = join(scratch, "cut");
    const entry = makeProject(cutProject, fixture);
    const dataFile = join(cutProject, "data", "tools.json");
    const text = readFileSync(dataFile, "utf8");
    writeFileSync(dataFile, text.slice(0, text.indexOf('"tools":') + 20));
    cpSync(join(scratch, "dist"), join(cutProject, "dist"), { recursive: true });
    const probed = (await oneRequest(env, discover, entry)) as { result: { instructions?: string } };
    expect(probed.result.instructions).toBe(healthy.result.instructions);
    // Where the instructions depend on the operations (`auto`), a damaged file still stops the server at start.
    await expect(oneRequest({ ...env, PETS_TOOLS: "auto" }, discover, entry)).rejects.toThrow(/exited 1/);
    // tools/list needs the operations: there the cut file is an error.
    const listed = await oneRequest(
      env,
      { jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: meta } },
      entry,
    );
    expect(listed).toMatchObject({
      id: 2,
      error: { message: expect.stringMatching(/tools\.json: not valid JSON .* — .*regenerate/) },
    });
  });

  it("serves Streamable HTTP on the requested port and shuts down on SIGTERM", async () => {
    const child = spawn(process.execPath, [join(scratch, "dist", "index.js"), "--transport", "http", "--port", "0"], {
      env: serverEnv(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(child);
    let stdout = "";
    child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    const endpoint = await new Promise<URL>((resolve, reject) => {
      let stderr = "";
      child.stderr!.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
        const match = /listening on (\S+)/.exec(stderr);
        if (match) resolve(new URL(match[1]!));
      });
      child.once("exit", (code) => reject(new Error(`exited ${code}: ${stderr}`)));
    });

    expect((await fetch(new URL("/healthz", endpoint))).status).toBe(200);
    const client = new Client({ name: "e2e-http", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(endpoint));
    seenHeaders.length = 0;
    const result = (await client.callTool({ name: "list_pets", arguments: { limit: 1 } })) as CallToolResult;
    expect(result.structuredContent).toMatchObject({ data: [{ id: 1, name: "Rex" }], resolved_inputs: { limit: 1 } });
    expect(seenHeaders[0]!["authorization"]).toBe("Bearer tok-e2e");
    await client.close();

    const exitCode = await new Promise<number | null>((resolve) => {
      child.once("exit", resolve);
      child.kill("SIGTERM");
    });
    expect(exitCode).toBe(0);
    expect(stdout).toBe("");
  });

  it("exits with code 2 and a clear message on a bad flag", () => {
    const run = spawnSync(process.execPath, [join(scratch, "dist", "index.js"), "--transport", "carrier-pigeon"], {
      env: serverEnv(),
      encoding: "utf8",
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('--transport must be "stdio" or "http"');
    expect(run.stdout).toBe("");
  });

  it("serves tools/list for 1000 tools (start-up time is measured by npm run bench)", async () => {
    const bigProject = join(scratch, "big");
    const tools = Array.from({ length: 1000 }, (_, index) => ({
      ...fixture.tools[index % fixture.tools.length]!,
      name: `tool_${index}`,
    }));
    const entry = makeProject(bigProject, { api: fixture.api, tools });
    cpSync(join(scratch, "dist"), join(bigProject, "dist"), { recursive: true });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [entry, "--tools", "per-operation"],
      env: serverEnv(),
      stderr: "pipe",
    });
    const client = new Client({ name: "e2e-big", version: "1.0.0" });
    await client.connect(transport);
    const { tools: listed } = await client.request({ method: "tools/list", params: {} }, ListToolsResultSchema);
    expect(listed).toHaveLength(1003); // + info, read_response, operation_status
    await client.close();
  });
});
