/** Incremental regeneration: cached example outcomes equal fresh ones, and anything they depend on invalidates them. */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CACHE_DIR, openExampleCache } from "../../src/cache/index.js";
import { MODEL_CACHE_FILE } from "../../src/cache/model-cache.js";
import { generate, generatorVersion } from "../../src/generate.js";
import { toolSeed } from "../../src/guidance/index.js";
import { runCli } from "../helpers/cli.js";
import { SAMPLES } from "../helpers/pipeline.js";
import { projectFiles, REPO_ROOT, withoutSaveIds } from "../helpers/project.js";

const CLI = join(REPO_ROOT, "bin", "create-guided-mcp.js");

/** Compared files leave out the cache. */
const PROJECT_EXCEPT = [CACHE_DIR];

function specCopy(): { dir: string; spec: string } {
  const dir = mkdtempSync(join(tmpdir(), "cgm-cache-"));
  const spec = join(dir, "petstore.yaml");
  copyFileSync(join(SAMPLES, "petstore.yaml"), spec);
  return { dir, spec };
}

describe("example cache", () => {
  it("regenerates from the cache exactly what a fresh run generates, and recomputes only the changed operation", async () => {
    const { dir, spec } = specCopy();
    const out = join(dir, "cached-mcp");
    const first = await generate({ from: spec, out });
    expect(first.exampleCache).toEqual({ hits: 0, misses: first.model.tools.length });

    const again = await generate({ from: spec, out });
    expect(again.exampleCache).toEqual({ hits: first.model.tools.length, misses: 0 });
    expect(again.write.plan.every((file) => file.action === "unchanged" || file.action === "keep-user")).toBe(true);

    // A summary edit changes no input schema: every outcome is reused.
    writeFileSync(spec, readFileSync(spec, "utf8").replace("summary: List pets", "summary: List the pets"));
    const summaryEdit = await generate({ from: spec, out });
    expect(summaryEdit.exampleCache).toEqual({ hits: first.model.tools.length, misses: 0 });

    // A changed parameter of one operation: only that tool is recomputed.
    writeFileSync(
      spec,
      readFileSync(spec, "utf8").replace(
        "minimum: 1, maximum: 100, default: 20",
        "minimum: 1, maximum: 50, default: 20",
      ),
    );
    const changed = await generate({ from: spec, out });
    expect(changed.exampleCache).toEqual({ hits: first.model.tools.length - 1, misses: 1 });

    // Cached == fresh: the same spec generated into a new folder, without any cache.
    const fresh = join(dir, "fresh-mcp");
    await generate({ from: spec, out: fresh });
    const cachedFiles = projectFiles(out, PROJECT_EXCEPT);
    const freshFiles = projectFiles(fresh, PROJECT_EXCEPT);
    delete cachedFiles[".guided-mcp/manifest.json"];
    delete freshFiles[".guided-mcp/manifest.json"];
    delete cachedFiles["CHANGELOG.md"];
    expect(cachedFiles).toEqual(freshFiles);
  });

  it("is used read-only by --check", async () => {
    const { dir, spec } = specCopy();
    const out = join(dir, "checked-mcp");
    const first = await generate({ from: spec, out });
    const cacheFile = join(out, CACHE_DIR, "examples.json");
    const before = readFileSync(cacheFile, "utf8");
    const check = await generate({ from: spec, out, check: true });
    expect(check.stale).toEqual([]);
    expect(check.exampleCache.hits).toBe(first.model.tools.length);
    expect(readFileSync(cacheFile, "utf8")).toBe(before);
  });

  it("keys entries by schema, seed and generator, and ignores a corrupt cache file", async () => {
    const { dir, spec } = specCopy();
    const out = join(dir, "versioned-mcp");
    const first = await generate({ from: spec, out });
    const version = generatorVersion();
    const tool = first.model.tools[0]!;
    const seed = toolSeed(1, tool.name);

    expect(openExampleCache(out, version).has(tool.inputSchema, seed)).toBe(true);
    expect(openExampleCache(out, version).has(tool.inputSchema, seed + 1)).toBe(false);
    expect(openExampleCache(out, version).has({ ...tool.inputSchema, description: "changed" }, seed)).toBe(false);
    // A new generator version (or any edit to the guidance code, hashed as installed) misses everything.
    expect(openExampleCache(out, `${version}-next`).has(tool.inputSchema, seed)).toBe(false);

    writeFileSync(join(out, CACHE_DIR, "examples.json"), "{ not json");
    const afterCorruption = await generate({ from: spec, out });
    expect(afterCorruption.exampleCache.hits).toBe(0);
    expect(afterCorruption.write.plan.every((file) => file.action === "unchanged" || file.action === "keep-user")).toBe(
      true,
    );
  });
});

describe("example cache file: one line per entry, parsed when used", () => {
  const version = generatorVersion();
  const schema = (name: string) => ({ type: "object", properties: { [name]: { type: "string" } } });
  const outcome = (name: string) => ({ examples: { minimal: { [name]: "é" }, full: { [name]: "x" } }, problems: [] });

  /** A project folder whose example cache holds entries for `a`, `b` and `c` (seed 1). */
  async function saved() {
    const dir = mkdtempSync(join(tmpdir(), "cgm-example-lines-"));
    const cache = openExampleCache(dir, version);
    for (const name of ["a", "b", "c"]) cache.store(schema(name), 1, outcome(name));
    await cache.save();
    return { dir, file: join(dir, CACHE_DIR, "examples.json") };
  }

  it("stores a copy unless the outcome is handed over, and hands out copies of what it stores", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cgm-example-store-"));
    const cache = openExampleCache(dir, version);
    const kept = outcome("a");
    cache.store(schema("a"), 1, kept);
    kept.examples.minimal = { a: "changed by the caller" };
    expect(cache.lookup(schema("a"), 1)).toEqual(outcome("a"));
    const handed = outcome("b");
    cache.store(schema("b"), 1, handed, true);
    const looked = cache.lookup(schema("b"), 1)!;
    expect(looked).toEqual(outcome("b"));
    expect(looked).not.toBe(handed);
    // A caller changing what it got changes neither the entry nor the file.
    looked.examples!.minimal = { b: "changed by a tool" };
    await cache.save();
    const reopened = openExampleCache(dir, version);
    expect(reopened.lookup(schema("a"), 1)).toEqual(outcome("a"));
    expect(reopened.lookup(schema("b"), 1)).toEqual(outcome("b"));
  });

  it("keeps an entry without parsing it, writes it back as it was, and parses it when looked up", async () => {
    const { dir, file } = await saved();
    const lines = readFileSync(file, "utf8").split("\n");
    expect(lines).toHaveLength(5);
    expect(lines.at(-1)).toBe("");
    const cache = openExampleCache(dir, version);
    cache.keep(schema("a"), 1);
    expect(cache.lookup(schema("b"), 1)).toEqual(outcome("b"));
    cache.store(schema("d"), 1, outcome("d"));
    expect(cache.stats()).toEqual({ hits: 2, misses: 1 });
    await cache.save();
    // The kept line as it was; `c` was not used, so it is dropped.
    const again = readFileSync(file, "utf8").split("\n");
    expect(again.slice(1, 3)).toEqual([lines[1], lines[2]]);
    expect(again).toHaveLength(5);
    expect(openExampleCache(dir, version).lookup(schema("d"), 1)).toEqual(outcome("d"));
  });

  it("leaves out a last line cut short, and names the file when an edited entry does not parse", async () => {
    const { dir, file } = await saved();
    const text = readFileSync(file, "utf8");
    writeFileSync(file, text.slice(0, -10));
    const cut = openExampleCache(dir, version);
    expect(cut.has(schema("b"), 1)).toBe(true);
    expect(cut.has(schema("c"), 1)).toBe(false);

    writeFileSync(file, text.replace('"minimal"', '"minimal" oops'));
    const edited = openExampleCache(dir, version);
    expect(edited.has(schema("a"), 1)).toBe(true);
    expect(() => edited.lookup(schema("a"), 1)).toThrow(/examples\.json.*does not parse.*delete/);

    // Another layout (the format before lines, or another generator's) is no cache at all.
    writeFileSync(file, JSON.stringify({ format: 1, code: "x", entries: {} }));
    expect(openExampleCache(dir, version).has(schema("a"), 1)).toBe(false);
  });
});

describe("two threads (large APIs)", () => {
  const withWorkers = <T>(setting: string, run: () => T): T => {
    const before = process.env["GUIDED_MCP_WORKERS"];
    process.env["GUIDED_MCP_WORKERS"] = setting;
    try {
      return run();
    } finally {
      if (before === undefined) delete process.env["GUIDED_MCP_WORKERS"];
      else process.env["GUIDED_MCP_WORKERS"] = before;
    }
  };

  it("generates byte for byte what one thread generates", () => {
    const { dir, spec } = specCopy();
    const one = join(dir, "one-mcp");
    const two = join(dir, "two-mcp");
    expect(withWorkers("0", () => runCli(["--from", spec, "--out", one, "--quiet"])).code).toBe(0);
    const threaded = withWorkers("1", () => runCli(["--from", spec, "--out", two]));
    expect(threaded.code).toBe(0);
    expect(threaded.stderr).toContain("validate+examples (2 threads)");
    expect(projectFiles(two, PROJECT_EXCEPT)).toEqual(projectFiles(one, PROJECT_EXCEPT));
    // The model cache too: the guidance entries are kept as the examples arrive, whichever thread computed them.
    const models = [one, two].map((project) => withoutSaveIds(readFileSync(join(project, MODEL_CACHE_FILE), "latin1")));
    expect(models[1]).toBe(models[0]);
    expect(models[0]).toMatch(/^guidance\t/m);
  });

  it("ends a run that fails after the worker was started, without waiting for it", () => {
    const dir = mkdtempSync(join(tmpdir(), "cgm-cache-early-"));
    const spec = join(dir, "api.yaml");
    const operations = ["alpha", "bravo", "charlie"].map(
      (name) =>
        `  /${name}:\n    get:\n      operationId: ${name}\n      responses: {'200': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/Missing'}}}}}\n`,
    );
    writeFileSync(spec, `openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n${operations.join("")}`);
    // The worker starts right after loading; the dereference error must end the run without waiting for it
    // (a process held open by it would be killed at the timeout, and have no exit code).
    const result = spawnSync(process.execPath, [CLI, "--from", spec, "--out", join(dir, "out"), "--quiet"], {
      encoding: "utf8",
      timeout: 60_000,
      env: { ...process.env, GUIDED_MCP_WORKERS: "1" },
    });
    expect(result.status, result.stderr).toBe(1);
    expect(result.stderr).toContain("Missing");
  });

  it("still fails closed, naming the first uncompilable tool in spec order", () => {
    const dir = mkdtempSync(join(tmpdir(), "cgm-cache-closed-"));
    const spec = join(dir, "api.yaml");
    const operations = ["alpha", "bravo", "charlie", "delta"].map(
      (name, index) =>
        `  /${name}:\n    get:\n      operationId: ${name}\n      parameters:\n        - {name: kind, in: query, schema: {type: ${index >= 2 ? "strnig" : "string"}${index === 3 ? ", maxLength: 3" : ""}}}\n      responses: {'200': {description: ok}}\n`,
    );
    writeFileSync(spec, `openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths:\n${operations.join("")}`);
    const result = withWorkers("1", () => runCli(["--from", spec, "--out", join(dir, "out"), "--quiet"]));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /#\/paths\/~1charlie\/get: the input schema of tool charlie cannot be compiled .* — fix the schema at that location/,
    );
  });
});
