/**
 * The regeneration story end to end: generate and build; the user edits the
 * hooks, overrides a handler, hand-edits a generated file and adds a file of
 * their own; the spec changes (an operation added, one removed, a required
 * parameter added, one renamed); regeneration keeps all the user's work,
 * reports each change with the right breaking label, and the rebuilt server
 * answers the new tool through a real MCP client.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generate } from "../../src/generate.js";
import { connectStdio } from "../helpers/mcp.js";
import { SAMPLES } from "../helpers/pipeline.js";
import { runCli } from "../helpers/cli.js";
import { buildProject, installDeps } from "../helpers/project.js";
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
    writeFileSync(join(out, ".env"), "PETSTORE_API_KEY=secret\n");

    // 3. The spec changes.
    writeFileSync(
      spec,
      readFileSync(spec, "utf8")
        .replace("operationId: getOwner", "operationId: fetchOwner")
        .replace(/  \/search:\n[\s\S]*?(?=components:)/, "")
        .replace("  /pets/{petId}:\n    parameters:\n", "  /pets/{petId}:\n    parameters:\n      - name: tenant\n        in: query\n        required: true\n        schema: { type: string }\n")
        .replace("paths:\n", "paths:\n  /health:\n    get:\n      operationId: getHealth\n      summary: Health check\n      responses:\n        \"200\":\n          description: ok\n          content:\n            application/json:\n              schema: { type: object, properties: { ok: { type: boolean } } }\n"),
    );

    // 5a. --check fails while the project is stale.
    expect(cli(["regenerate", out, "--check"]).code).toBe(1);

    // 4. Regenerate.
    const regenerated = cli(["regenerate", out]);
    expect(regenerated.code).toBe(0);
    expect(regenerated.stdout).toContain(`kept your edit of src/runtime/config/config.ts; the new version is src/runtime/config/config.ts.new`);
    expect(regenerated.stdout).toContain("- BREAKING removed: `search_pets`");
    expect(regenerated.stdout).toContain("- BREAKING renamed: `get_owner` → `fetch_owner`");
    expect(regenerated.stdout).toMatch(/BREAKING changed: `get_pet`\n  - BREAKING: new required parameter `tenant`/);
    expect(regenerated.stdout).toContain("- added: `get_health`");
    expect(readFileSync(join(out, "CHANGELOG.md"), "utf8")).toContain("- BREAKING renamed: `get_owner` → `fetch_owner`");

    expect(readFileSync(join(out, "src", "hooks.ts"), "utf8")).toBe(HOOKS);
    expect(readFileSync(join(out, "src", "my-cache.ts"), "utf8")).toBe(MY_FILE);
    expect(readFileSync(editedPath, "utf8")).toBe(edited);
    expect(existsSync(`${editedPath}.new`)).toBe(true);
    expect(readFileSync(join(out, ".env"), "utf8")).toBe("PETSTORE_API_KEY=secret\n");

    // 5b. --check passes afterwards.
    expect(cli(["regenerate", out, "--check"]).code).toBe(0);

    // The project still builds, and the new and renamed tools answer.
    buildProject(out);
    const client = await connectStdio(out, { PETSTORE_BASE_URL: `${upstream.url}/v1`, PETSTORE_API_KEY: "k" });
    try {
      const names = (await client.listTools()).tools.map((tool) => tool.name);
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
