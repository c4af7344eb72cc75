/**
 * The regeneration story end to end: generate and build; the user edits the
 * hooks, overrides a handler, hand-edits generated files (two TypeScript
 * files and a tool description in data/tools.json) and adds a file of their
 * own; the spec changes (an operation added, one removed, a required
 * parameter added, one renamed) and so does the generator (a templates
 * override stands in for a new generator version); regeneration merges the
 * user's edits three ways (clean where they do not overlap, conflict markers
 * and a report line where they do), reports each change with the right
 * breaking label, and the rebuilt server answers the new tool through a real
 * MCP client.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generate } from "../../src/generate.js";
import { connectStdio } from "../helpers/mcp.js";
import { SAMPLES } from "../helpers/pipeline.js";
import { runCli } from "../helpers/cli.js";
import { buildProject, installDeps, REPO_ROOT } from "../helpers/project.js";
import { json, startUpstream, type Upstream } from "../helpers/upstream.js";

const HOOKS = `import { defineHooks } from "./runtime/hook-types.js";
import { ownerFromCache } from "./my-cache.js";

export const hooks = defineHooks({
  beforeRequest(request) {
    return { ...request, headers: { ...request.headers, "x-from-hooks": "yes" } };
  },
  handlers: {
    fetch_owner: async (args) => ownerFromCache(String(args["ownerId"])),
  },
});
`;
const MY_FILE = `export function ownerFromCache(id: string) {\n  return { id, name: "cached owner" };\n}\n`;

const cli = (args: string[]) => runCli(args, { quiet: true });

let upstream: Upstream;
let dir: string;
let spec: string;
let out: string;

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.route("GET", /^\/v1\/health$/, (_req, res) => json(res, 200, { ok: true }));
  upstream.route("GET", /^\/v1\/pets\/\d+$/, (_req, res) => json(res, 200, { id: 1, name: "Rex" }));
  dir = mkdtempSync(join(tmpdir(), "cgm-story-"));
  spec = join(dir, "petstore.yaml");
  out = join(dir, "petstore-mcp");
  copyFileSync(join(SAMPLES, "petstore.yaml"), spec);
  await generate({ from: spec, out });
  await installDeps(out);
  buildProject(out);
}, 600_000);

afterAll(async () => {
  await upstream?.close();
});

describe("regeneration keeps the user's work", () => {
  it("survives a spec change end to end", async () => {
    // 2. The user's work.
    writeFileSync(join(out, "src", "hooks.ts"), HOOKS);
    writeFileSync(join(out, "src", "my-cache.ts"), MY_FILE);
    const editedPath = join(out, "src", "runtime", "config", "config.ts");
    const edited = readFileSync(editedPath, "utf8") + "\n// my local tweak\n";
    writeFileSync(editedPath, edited);
    const conflictingPath = join(out, "src", "runtime", "call", "audit.ts");
    writeFileSync(
      conflictingPath,
      readFileSync(conflictingPath, "utf8").replace(
        " * Credential hygiene and the opt-in audit trail (design pattern 10).",
        " * Credential hygiene and the audit trail: my wording.",
      ),
    );
    const toolsPath = join(out, "data", "tools.json");
    const toolsData = JSON.parse(readFileSync(toolsPath, "utf8")) as {
      tools: Array<{ name: string; description: string }>;
    };
    toolsData.tools.find((tool) => tool.name === "list_pets")!.description =
      "List the pets, newest first (our wording).";
    writeFileSync(toolsPath, JSON.stringify(toolsData, null, 2) + "\n");
    writeFileSync(join(out, ".env"), "PETSTORE_API_KEY=secret\n");

    // The generator changes too: a templates override stands in for a new generator version.
    const templates = join(dir, "templates");
    mkdirSync(join(templates, "server", "src", "runtime", "config"), { recursive: true });
    mkdirSync(join(templates, "server", "src", "runtime", "call"), { recursive: true });
    const templateRuntime = join(REPO_ROOT, "templates", "server", "src", "runtime");
    writeFileSync(
      join(templates, "server", "src", "runtime", "config", "config.ts"),
      readFileSync(join(templateRuntime, "config", "config.ts"), "utf8").replace(
        " * Runtime configuration: command-line",
        " * Runtime configuration (generator v2): command-line",
      ),
    );
    writeFileSync(
      join(templates, "server", "src", "runtime", "call", "audit.ts"),
      readFileSync(join(templateRuntime, "call", "audit.ts"), "utf8").replace(
        "(design pattern 10).",
        "(design pattern 10, generator v2).",
      ),
    );

    // 3. The spec changes.
    writeFileSync(
      spec,
      readFileSync(spec, "utf8")
        .replace("operationId: getOwner", "operationId: fetchOwner")
        .replace(/  \/search:\n[\s\S]*?(?=components:)/, "")
        .replace(
          "  /pets/{petId}:\n    parameters:\n",
          "  /pets/{petId}:\n    parameters:\n      - name: tenant\n        in: query\n        required: true\n        schema: { type: string }\n",
        )
        .replace(
          "paths:\n",
          'paths:\n  /health:\n    get:\n      operationId: getHealth\n      summary: Health check\n      responses:\n        "200":\n          description: ok\n          content:\n            application/json:\n              schema: { type: object, properties: { ok: { type: boolean } } }\n',
        ),
    );

    // 5a. --check fails while the project is stale.
    expect(cli(["regenerate", out, "--check"]).code).toBe(1);

    // 4. Regenerate.
    const regenerated = cli(["regenerate", out, "--templates", templates]);
    expect(regenerated.code).toBe(0);
    // Deliberate change: edited generated files used to be kept with the new version parked beside them as .new.
    expect(regenerated.stdout).toContain("merged your edits of src/runtime/config/config.ts with the new generation");
    expect(regenerated.stdout).toContain("merged your edits of data/tools.json with the new generation");
    expect(regenerated.stdout).toMatch(
      /CONFLICT in src\/runtime\/call\/audit\.ts:\n {4}1 place\(s\) where you and the generator changed the same lines/,
    );
    expect(regenerated.stdout).toContain("- BREAKING removed: `search_pets`");
    expect(regenerated.stdout).toContain("- BREAKING renamed: `get_owner` → `fetch_owner`");
    expect(regenerated.stdout).toMatch(/BREAKING changed: `get_pet`\n  - BREAKING: new required parameter `tenant`/);
    expect(regenerated.stdout).toContain("- added: `get_health`");
    expect(regenerated.stdout).not.toContain("changed: `list_pets`"); // the user's own description edit is not an API change
    expect(readFileSync(join(out, "CHANGELOG.md"), "utf8")).toContain(
      "- BREAKING renamed: `get_owner` → `fetch_owner`",
    );

    expect(readFileSync(join(out, "src", "hooks.ts"), "utf8")).toBe(HOOKS);
    expect(readFileSync(join(out, "src", "my-cache.ts"), "utf8")).toBe(MY_FILE);
    // The TypeScript edit survives and the file gets the generator's change; no .new file.
    const merged = readFileSync(editedPath, "utf8");
    expect(merged).toContain("// my local tweak");
    expect(merged).toContain(" * Runtime configuration (generator v2): command-line");
    expect(merged).toBe(
      edited.replace(" * Runtime configuration: command-line", " * Runtime configuration (generator v2): command-line"),
    );
    expect(existsSync(`${editedPath}.new`)).toBe(false);
    // The conflicting edit: markers around that line only.
    const conflicted = readFileSync(conflictingPath, "utf8");
    expect(conflicted).toContain(
      "<<<<<<< yours\n * Credential hygiene and the audit trail: my wording.\n=======\n * Credential hygiene and the opt-in audit trail (design pattern 10, generator v2).\n>>>>>>> generated\n",
    );
    expect(conflicted.match(/^<<<<<<< /gm)).toHaveLength(1);
    // The edited description survives the spec change that added get_health.
    const regeneratedTools = (
      JSON.parse(readFileSync(toolsPath, "utf8")) as { tools: Array<{ name: string; description: string }> }
    ).tools;
    expect(regeneratedTools.find((tool) => tool.name === "list_pets")!.description).toBe(
      "List the pets, newest first (our wording).",
    );
    expect(regeneratedTools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["get_health", "fetch_owner"]));
    expect(regeneratedTools.map((tool) => tool.name)).not.toContain("search_pets");
    expect(readFileSync(join(out, ".env"), "utf8")).toBe("PETSTORE_API_KEY=secret\n");

    // 5b. --check fails while conflict markers remain, and passes once they are resolved.
    const unresolved = cli(["regenerate", out, "--check"]);
    expect(unresolved.code).toBe(1);
    expect(unresolved.stdout).toMatch(/src\/runtime\/call\/audit\.ts has unresolved conflict markers/);
    writeFileSync(conflictingPath, conflicted.replace(/<<<<<<< yours\n(.*\n)=======\n.*\n>>>>>>> generated\n/, "$1"));
    expect(cli(["regenerate", out, "--check"]).code).toBe(0);

    // The project still builds, and the new and renamed tools answer.
    buildProject(out);
    const client = await connectStdio(out, { PETSTORE_BASE_URL: `${upstream.url}/v1`, PETSTORE_API_KEY: "k" });
    try {
      const listed = (await client.listTools()).tools;
      expect(listed.find((tool) => tool.name === "list_pets")!.description).toMatch(
        /^List the pets, newest first \(our wording\)\./,
      );
      const names = listed.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(["get_health", "fetch_owner"]));
      expect(names).not.toContain("search_pets");
      const health = await client.callTool({ name: "get_health", arguments: {} });
      expect(health.isError).toBeFalsy();
      expect((health.structuredContent as { data: unknown }).data).toEqual({ ok: true });
      expect(upstream.requests.at(-1)!.headers["x-from-hooks"]).toBe("yes");
      const owner = await client.callTool({ name: "fetch_owner", arguments: { ownerId: "own_1" } });
      expect((owner.structuredContent as { data: unknown }).data).toEqual({ id: "own_1", name: "cached owner" });
      const missing = await client.callTool({ name: "get_pet", arguments: { petId: 1 } });
      expect(missing.isError).toBe(true); // tenant is now required
    } finally {
      await client.close();
    }
  });
});
