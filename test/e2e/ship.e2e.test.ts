/**
 * Ship it: every sample gets an MCPB manifest that passes @anthropic-ai/mcpb's
 * own validator, a registry server.json consistent with package.json, and a
 * Dockerfile; the built package starts through its `bin` as `npx` would run it
 * once published; `--ship` leaves any of them out.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { unpackExtension, validateManifest } from "@anthropic-ai/mcpb";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { generate } from "../../src/generate.js";
import { runCli } from "../helpers/cli.js";
import { SAMPLES } from "../helpers/pipeline.js";
import { buildProject, installDeps } from "../helpers/project.js";

const scratch = () => mkdtempSync(join(tmpdir(), "cgm-ship-"));
const readJson = (path: string) => JSON.parse(readFileSync(path, "utf8"));
// Every sample except library-components.yaml, which is the $ref target of library-openapi31.yaml, not a spec.
const SAMPLE_FILES = readdirSync(SAMPLES).filter(
  (file) => /\.(ya?ml|json)$/.test(file) && file !== "library-components.yaml",
);

interface EnvVar {
  name: string;
  isSecret: boolean;
}

describe.each(SAMPLE_FILES)("ship files for %s", (sample) => {
  it("has an MCPB manifest the MCPB validator accepts, and a server.json matching package.json", async () => {
    const out = join(scratch(), "project");
    const { model } = await generate({ from: join(SAMPLES, sample), out });
    const pkg = readJson(join(out, "package.json"));
    expect(pkg.bin).toEqual({ [pkg.name]: "dist/index.js" });
    expect(readFileSync(join(out, "src", "index.ts"), "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true);

    expect(validateManifest(join(out, "manifest.json"))).toBe(true);
    const manifest = readJson(join(out, "manifest.json"));
    expect(manifest).toMatchObject({
      name: pkg.name,
      version: pkg.version,
      server: { type: "node", entry_point: "dist/index.js" },
    });
    const envs = model.api.securitySchemes.flatMap((scheme) =>
      scheme.kind === "basic" ? [scheme.usernameEnv, scheme.passwordEnv] : [scheme.env],
    );
    for (const env of envs) {
      const key = env.toLowerCase();
      expect(manifest.user_config[key]).toMatchObject({ type: "string", sensitive: true });
      expect(manifest.server.mcp_config.env[env]).toBe(`\${user_config.${key}}`);
    }
    expect(manifest.server.mcp_config.env[model.api.baseUrlEnv]).toBe("${user_config.base_url}");
    expect(manifest.user_config.base_url.sensitive).toBeUndefined();

    const server = readJson(join(out, "server.json"));
    expect(server.name).toBe(pkg.mcpName);
    expect(server.name).toMatch(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/);
    expect(server.description.length).toBeLessThanOrEqual(100);
    expect(server.version).toBe(pkg.version);
    expect(server.packages).toEqual([
      expect.objectContaining({
        registryType: "npm",
        identifier: pkg.name,
        version: pkg.version,
        transport: { type: "stdio" },
      }),
    ]);
    const declared = server.packages[0].environmentVariables as EnvVar[];
    for (const env of envs) expect(declared.find((variable) => variable.name === env)?.isSecret).toBe(true);
    expect(declared.find((variable) => variable.name === model.api.baseUrlEnv)?.isSecret).toBe(false);
    expect(server.remotes).toEqual([
      expect.objectContaining({ type: "streamable-http", url: expect.stringMatching(/^https:\/\/.*\/mcp$/) }),
    ]);

    const dockerfile = readFileSync(join(out, "Dockerfile"), "utf8");
    expect(dockerfile.match(/^FROM /gm)).toHaveLength(2); // multi-stage
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(dockerfile).toContain(`${model.api.envPrefix}_HOST=0.0.0.0`);
    expect(dockerfile).toMatch(/^HEALTHCHECK .*\n.*\/healthz/m);
    expect(dockerfile).toContain(`if [ -z \\"$${model.api.envPrefix}_MCP_TOKEN\\" ]`);
    expect(readFileSync(join(out, ".dockerignore"), "utf8")).toMatch(/^node_modules$/m);
  });
});

// No npm package ships the registry's server.schema.json (it is published only at static.modelcontextprotocol.io,
// which this environment cannot reach, and fetched copies are not committed). Point CGM_REGISTRY_SCHEMA at a
// downloaded copy to run this check; the structural checks above run everywhere.
const REGISTRY_SCHEMA_FILE = process.env.CGM_REGISTRY_SCHEMA;

describe("the registry's published server.json schema", () => {
  it.skipIf(!REGISTRY_SCHEMA_FILE)(
    `accepts every sample's server.json (${REGISTRY_SCHEMA_FILE ? `schema ${REGISTRY_SCHEMA_FILE}` : "skipped: no npm package ships the registry's server.schema.json; set CGM_REGISTRY_SCHEMA=<path to a downloaded copy> to run it"})`,
    async () => {
      const ajv = new Ajv2020({ strict: false, allErrors: true });
      addFormats(ajv);
      const validate = ajv.compile(readJson(REGISTRY_SCHEMA_FILE ?? ""));
      for (const sample of SAMPLE_FILES) {
        const out = join(scratch(), "project");
        await generate({ from: join(SAMPLES, sample), out });
        const server = readJson(join(out, "server.json"));
        expect(validate(server), `${sample}: ${JSON.stringify(validate.errors)}`).toBe(true);
      }
    },
  );
});

describe("--ship chooses the distribution files", () => {
  it("leaves out what is not listed, in package.json too, and regeneration remembers it", async () => {
    const out = join(scratch(), "project");
    await generate({ from: join(SAMPLES, "petstore.yaml"), out, ship: ["docker"] });
    expect(existsSync(join(out, "Dockerfile"))).toBe(true);
    expect(existsSync(join(out, "manifest.json"))).toBe(false);
    expect(existsSync(join(out, ".mcpbignore"))).toBe(false);
    expect(existsSync(join(out, "server.json"))).toBe(false);
    const pkg = readJson(join(out, "package.json"));
    expect(pkg.mcpName).toBeUndefined();
    expect(pkg.scripts.bundle).toBeUndefined();
    expect(pkg.devDependencies["@anthropic-ai/mcpb"]).toBeUndefined();
    expect(readJson(join(out, ".guided-mcp", "manifest.json")).options.ship).toEqual(["docker"]);
  });
});

describe("--mcp-name", () => {
  it("names the server in server.json and package.json alike, is kept by regenerate, and refuses a malformed name", async () => {
    const out = join(scratch(), "project");
    const first = runCli([join(SAMPLES, "petstore.yaml"), "--out", out, "--mcp-name", "io.github.acme/petstore"], {
      quiet: true,
    });
    expect(first.code, first.stderr).toBe(0);
    expect(readJson(join(out, "server.json")).name).toBe("io.github.acme/petstore");
    expect(readJson(join(out, "package.json")).mcpName).toBe("io.github.acme/petstore");
    expect(runCli(["regenerate", out, "--check"], { quiet: true }).code).toBe(0);
    const bad = runCli([join(SAMPLES, "petstore.yaml"), "--out", join(scratch(), "x"), "--mcp-name", "no-namespace"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--mcp-name no-namespace is not a registry name: use <reverse-DNS namespace>\/<name>/);
  });
});

describe("npx-style start through the bin", () => {
  it("installs as a dependency and answers an MCP client through node_modules/.bin; npm run bundle packs it", async () => {
    const out = join(scratch(), "petstore-mcp");
    await generate({ from: join(SAMPLES, "petstore.yaml"), out });
    await installDeps(out);
    buildProject(out);
    // What `npx petstore-mcp` does once published: install the package, run its bin.
    const consumer = join(scratch(), "consumer");
    mkdirSync(consumer);
    writeFileSync(
      join(consumer, "package.json"),
      JSON.stringify({ name: "consumer", private: true, dependencies: { "petstore-mcp": `file:${out}` } }),
    );
    execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", "--loglevel=error"], {
      cwd: consumer,
      stdio: "pipe",
    });
    const help = spawnSync("npx", ["--offline", "petstore-mcp", "--help"], { cwd: consumer, encoding: "utf8" });
    expect(help.status).toBe(0);
    expect(help.stdout + help.stderr).toMatch(/Usage: petstore-mcp/);

    const transport = new StdioClientTransport({
      command: join(consumer, "node_modules", ".bin", "petstore-mcp"),
      env: { PATH: process.env.PATH ?? "" },
      stderr: "pipe",
    });
    const client = new Client({ name: "npx-test", version: "1.0.0" });
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain("list_pets");
    } finally {
      await client.close();
    }

    // The same built project packs into an MCP bundle with its own `npm run bundle`, after a version bump.
    execFileSync("npm", ["version", "0.2.0", "--no-git-tag-version"], { cwd: out, stdio: "pipe" });
    execFileSync("npm", ["run", "bundle", "--silent"], { cwd: out, stdio: "pipe" });
    expect(readJson(join(out, "manifest.json")).version).toBe("0.2.0");
    expect(readJson(join(out, "server.json")).version).toBe("0.2.0");
    expect(readJson(join(out, "server.json")).packages[0].version).toBe("0.2.0");
    const unpacked = join(scratch(), "unpacked");
    expect(await unpackExtension({ mcpbPath: join(out, "server.mcpb"), outputDir: unpacked, silent: true })).toBe(true);
    expect(readJson(join(unpacked, "manifest.json")).version).toBe("0.2.0");
    expect(existsSync(join(unpacked, "src"))).toBe(false);
    // Production dependencies only: no test runner, formatter, compiler or the bundler itself.
    const packed = readdirSync(join(unpacked, "node_modules"));
    expect(packed).toEqual(expect.arrayContaining(["ajv", "@modelcontextprotocol"]));
    for (const devOnly of ["vitest", "prettier", "typescript", "@anthropic-ai", "@types"])
      expect(packed).not.toContain(devOnly);
    // A host runs what the manifest says, from the unpacked bundle alone.
    const bundled = new StdioClientTransport({
      command: process.execPath,
      args: [join(unpacked, "dist", "index.js")],
      env: { PATH: process.env.PATH ?? "" },
      stderr: "pipe",
    });
    const host = new Client({ name: "mcpb-host-test", version: "1.0.0" });
    await host.connect(bundled);
    try {
      expect((await host.listTools()).tools.map((tool) => tool.name)).toContain("list_pets");
    } finally {
      await host.close();
    }

    // Regeneration keeps the owner's version in package.json, manifest.json and server.json.
    expect(runCli(["regenerate", out], { quiet: true }).code).toBe(0);
    for (const file of ["package.json", "manifest.json", "server.json"])
      expect(readJson(join(out, file)).version).toBe("0.2.0");
  });
});

const HAS_DOCKER = spawnSync("docker", ["image", "inspect", "node:20-slim"], { encoding: "utf8" }).status === 0;

describe("Docker image", () => {
  it.skipIf(!HAS_DOCKER)(
    `builds (${HAS_DOCKER ? "docker and node:20-slim are here" : "skipped: no docker with a local node:20-slim image here, and base images cannot be pulled in this environment"})`,
    async () => {
      const out = join(scratch(), "petstore-mcp");
      await generate({ from: join(SAMPLES, "petstore.yaml"), out });
      const build = spawnSync("docker", ["build", "--pull=false", "-t", "cgm-ship-test", out], { encoding: "utf8" });
      expect(build.status, build.stderr).toBe(0);
    },
  );
});
