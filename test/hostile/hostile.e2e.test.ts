/**
 * Issue "Proven on real APIs, hostile specs": a spec whose every string tries
 * to escape the generated code (comments, strings, template literals,
 * <script>, JSON, Handlebars) or to run code at build or start-up is
 * generated, compiled with tsc and started under a real MCP client. Nothing
 * may run, and every string must reach tools/list byte for byte; names are
 * sanitised by design, so those must be valid, with the wire name kept.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { parse as parseYaml } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ARG_NAME_PATTERN, TOOL_NAME_PATTERN } from "../../src/model/names.js";
import type { ToolData, ToolsFile } from "../../templates/server/src/runtime/shared/tool-data.js";
import { generateAndBuild, type BuiltProject } from "../helpers/generated.js";
import { connectStdio } from "../helpers/mcp.js";
import { REPO_ROOT } from "../helpers/project.js";
import { json, startUpstream, type Upstream } from "../helpers/upstream.js";

const SPEC_PATH = join(REPO_ROOT, "test", "fixtures", "hostile.yaml");
type Spec = {
  info: { title: string; version: string; description: string };
  servers: Array<{ url: string }>;
  paths: Record<
    string,
    Record<
      string,
      {
        operationId: string;
        summary: string;
        description?: string;
        parameters?: Array<{ name: string; in: string; description?: string; schema: Record<string, unknown> }>;
      }
    >
  >;
  components: { schemas: { Hostile: { properties: Record<string, Record<string, unknown>> } } };
};
const spec = parseYaml(readFileSync(SPEC_PATH, "utf8")) as Spec;
const listOperation = spec.paths["/items/{id*/}"]!.get!;
const parameter = (name: string) => listOperation.parameters!.find((p) => p.name === name)!;

let project: BuiltProject;
let marker: string;
let upstream: Upstream;
let client: Client;
let toolsFile: ToolsFile;
let listed: Awaited<ReturnType<Client["listTools"]>>["tools"];

beforeAll(async () => {
  marker = join(mkdtempSync(join(tmpdir(), "cgm-hostile-")), "pwned");
  process.env.CGM_HOSTILE_MARKER = marker; // seen by tsc (the build) and the server, should anything run
  upstream = await startUpstream();
  upstream.route("GET", /^\/api\/items\//, (_req, res) =>
    json(res, 200, { constructor: "</script>", "na me*/": "ok" }),
  );
  project = await generateAndBuild(SPEC_PATH);
  toolsFile = JSON.parse(readFileSync(join(project.dir, "data", "tools.json"), "utf8")) as ToolsFile;
  client = await connectStdio(project.dir, {
    CGM_HOSTILE_MARKER: marker,
    [toolsFile.api.baseUrlEnv]: `${upstream.url}/api`,
  });
  listed = (await client.listTools()).tools;
}, 600_000);

afterAll(async () => {
  await client?.close();
  await upstream?.close();
  delete process.env.CGM_HOSTILE_MARKER;
});

function toolFor(method: string, path: string): { data: ToolData; wire: (typeof listed)[number] } {
  const data = toolsFile.tools.find((tool) => tool.operation?.method === method && tool.operation.path === path);
  if (!data) throw new Error(`no tool for ${method} ${path}`);
  const wire = listed.find((tool) => tool.name === data.name);
  if (!wire) throw new Error(`tools/list lacks ${data.name}`);
  return { data, wire };
}

describe("a hostile spec", () => {
  it("builds, starts and lists its tools without running any injected code", async () => {
    expect(listed.length).toBe(
      toolsFile.tools.length + listed.filter((tool) => !toolsFile.tools.some((t) => t.name === tool.name)).length,
    );
    expect(toolsFile.tools).toHaveLength(4);
    // The server is alive (no process.exit(7)) and no injected write happened, at build or start.
    expect((await client.listTools()).tools.length).toBe(listed.length);
    expect(existsSync(marker)).toBe(false);
    expect(existsSync(join(project.dir, "pwned"))).toBe(false);
  });

  it("writes files only inside the project, and package.json is intact JSON with the template's scripts", () => {
    for (const file of project.result.files) {
      expect(relative(project.dir, join(project.dir, file.path)).startsWith("..")).toBe(false);
    }
    const pkg = JSON.parse(readFileSync(join(project.dir, "package.json"), "utf8")) as {
      name: string;
      description: string;
      scripts: Record<string, string>;
    };
    expect(pkg.description).toBe(`MCP server for ${spec.info.title}`);
    expect(pkg.name).toMatch(/^[a-z0-9-]+$/);
    expect(Object.keys(pkg.scripts).sort()).toEqual([
      "build",
      "bundle",
      "format",
      "format:check",
      "start",
      "start:http",
      "test",
    ]); // bundle: the MCPB pack (--ship mcpb, the default)
    expect(Object.values(pkg.scripts).join(" ")).not.toMatch(/exit|pwned|script>/);
  });

  it("keeps .env.example to one line per variable, with values a shell cannot execute", () => {
    const lines = readFileSync(join(project.dir, ".env.example"), "utf8").trimEnd().split("\n");
    const assignments = lines.filter((line) => !line.startsWith("#"));
    expect(assignments.length).toBe(1 + toolsFile.api.securitySchemes.length);
    for (const line of assignments) {
      expect(line).toMatch(/^[A-Z0-9_]+=/);
      // Plain URL-safe text, or one single-quoted string (literal in sh and dotenv) with no quote inside.
      expect(line.slice(line.indexOf("=") + 1)).toMatch(/^([A-Za-z0-9:/?#@%._~+,=[\]-]*|'[^'\n]*')$/);
    }
    expect(lines.filter((line) => line.startsWith("#"))).toHaveLength(1);
    // Sourcing it in a shell runs nothing and yields the URL (its quote percent-encoded).
    const value = execFileSync("sh", ["-c", `set -a; . ./.env.example; printf %s "$${toolsFile.api.baseUrlEnv}"`], {
      cwd: project.dir,
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "", CGM_HOSTILE_MARKER: marker },
    });
    expect(value).toBe(spec.servers[0]!.url.replace(/'/g, "%27"));
    expect(existsSync(marker)).toBe(false);
  });

  it("emits TypeScript that carries spec strings only inside data files", () => {
    const sources: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir)) {
        const full = join(dir, entry);
        if (statSync(full).isDirectory()) walk(full);
        else if (/\.(ts|js)$/.test(entry)) sources.push(readFileSync(full, "utf8"));
      }
    };
    walk(join(project.dir, "src"));
    walk(join(project.dir, "dist"));
    for (const source of sources) expect(source).not.toContain("process.exit(7)");
  });

  it("gives every tool a valid name, and every argument a valid name with its wire name kept", () => {
    for (const tool of listed) expect(tool.name).toMatch(TOOL_NAME_PATTERN);
    for (const tool of toolsFile.tools) {
      for (const name of Object.keys(tool.inputSchema.properties as object)) {
        expect(name).toMatch(ARG_NAME_PATTERN);
        expect(Object.prototype).not.toHaveProperty(name);
      }
    }
    const { data, wire } = toolFor("get", "/items/{id*/}");
    const wireNames = data.operation!.parameters.map((binding) => binding.name).sort();
    expect(wireNames).toEqual(listOperation.parameters!.map((p) => p.name).sort());
    for (const binding of data.operation!.parameters) {
      expect(binding.arg).toMatch(ARG_NAME_PATTERN);
      expect(Object.keys(wire.inputSchema.properties ?? {})).toContain(binding.arg);
    }
    expect(data.operation!.path).toBe("/items/{id*/}");
    // operationId and tag survive as data, even though the tool name is sanitised.
    expect(toolsFile.tools.map((tool) => tool.category)).toContain(listOperation.tags?.[0] ?? "");
  });

  it("passes titles, descriptions, enums, defaults, examples and patterns through tools/list byte for byte", () => {
    const { data, wire } = toolFor("get", "/items/{id*/}");
    expect(wire.description).toContain(listOperation.summary);
    expect(wire.description).toContain(listOperation.description);
    expect(wire.title ?? wire.annotations?.title).toBe(listOperation.summary);
    const props = wire.inputSchema.properties as Record<string, Record<string, unknown>>;
    const argOf = (wireName: string) => data.operation!.parameters.find((binding) => binding.name === wireName)!.arg;

    const id = props[argOf("id*/")]!;
    expect(id.description).toBe(parameter("id*/").description);
    expect(id.pattern).toBe(parameter("id*/").schema.pattern);
    const ctor = props[argOf("constructor")]!;
    expect(ctor.enum).toEqual(parameter("constructor").schema.enum);
    expect(ctor.default).toBe(parameter("constructor").schema.default);
    expect(props[argOf("__proto__")]!.default).toBe(parameter("__proto__").schema.default);
    expect(props[argOf("toString")]!.examples).toEqual(parameter("toString").schema.examples);
    const header = props[argOf("X-Evil*/`${process.exit(7)}`")]!;
    expect(header.description).toBe(parameter("X-Evil*/`${process.exit(7)}`").description);
    expect(header.examples).toEqual([parameter("X-Evil*/`${process.exit(7)}`").schema.example]);

    // The response schema keeps its hostile property names and values (annotations such as `default`
    // are left out of it on purpose: clients compile every outputSchema, src/model/output-schema.ts).
    const hostile = spec.components.schemas.Hostile.properties;
    const output = (data.responseSchema ?? {}) as { properties?: Record<string, Record<string, unknown>> };
    expect(Object.hasOwn(output.properties ?? {}, "constructor")).toBe(true);
    expect(output.properties?.constructor?.enum).toEqual(hostile.constructor!.enum);
    expect(Object.keys(output.properties ?? {})).toContain("na me*/");
    expect(output.properties?.["na me*/"]).not.toHaveProperty("default");

    // A body argument keeps nested hostile values too.
    const post = toolFor("post", "/function");
    expect(post.wire.description).toContain(spec.paths["/function"]!.post!.summary);
    expect(post.wire.description).toContain(spec.paths["/function"]!.post!.description);
    const body = (
      post.wire.inputSchema.properties as Record<string, { properties: Record<string, Record<string, unknown>> }>
    ).body!;
    expect(body.properties.constructor!.enum).toEqual(hostile.constructor!.enum);
    expect(body.properties["na me*/"]!.default).toBe(hostile["na me*/"]!.default);

    // The API's own strings are data too.
    expect(toolsFile.api.title).toBe(spec.info.title);
    expect(toolsFile.api.version).toBe(spec.info.version);
    expect(toolsFile.api.description).toBe(spec.info.description);
    expect(toolsFile.api.baseUrl).toBe(spec.servers[0]!.url);
  });

  it("calls the upstream with the wire names, and never sends Object.prototype members for omitted arguments", async () => {
    const { data } = toolFor("get", "/items/{id*/}");
    const idArg = data.operation!.parameters.find((binding) => binding.name === "id*/")!.arg;
    // Matches the hostile pattern ^[*/`$]{0,5}(</script>)?[a-z\\]*$.
    const id = "*/`$</script>ab\\";
    const result = await client.callTool({ name: data.name, arguments: { [idArg]: id } });
    expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
    const request = upstream.requests.at(-1)!;
    expect(decodeURIComponent(request.path)).toBe(`/api/items/${id}`);
    // Defaults are documentation, not values the server invents; nothing inherited leaks in either.
    expect(request.rawUrl).not.toMatch(/function|native|object%20Object/i);
    expect(
      [...request.query.keys()].every((key) =>
        ["constructor", "__proto__", "class", "delete", "toString", "q\n*/process.exit(7)/*"].includes(key),
      ),
    ).toBe(true);
    expect(existsSync(marker)).toBe(false);
  });
});
