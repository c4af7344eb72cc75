import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, runCliRecording } from "../helpers/cli.js";
import { REPO_ROOT } from "../helpers/project.js";

// Node's fetch implementation (undici) is a lazy global costing 20–60 ms to load; a spec whose
// references all stay in the document never needs the $ref resolver, which would touch it.
describe("what a small generation loads", () => {
  it("a spec with internal references only does not load Node's fetch implementation", () => {
    const out = join(mkdtempSync(join(tmpdir(), "cgm-fetch-")), "out");
    // Counts the Intl.Segmenters made: the first loads ICU's break data (≈ 10 ms), needed only to lay out help text.
    const { record: loaded } = runCliRecording<{ builtins: string[]; files: string[]; segmenters: number }>(
      (file) =>
        [
          "let segmenters = 0;",
          "const Segmenter = Intl.Segmenter;",
          "Intl.Segmenter = class extends Segmenter { constructor(...args) { super(...args); segmenters++; } };",
          `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(file)}, JSON.stringify({ builtins: process.moduleLoadList, files: Object.keys(require.cache), segmenters })));`,
        ].join("\n"),
      ["--quiet", "--from", join(REPO_ROOT, "samples", "petstore.yaml"), "--out", out],
    );
    expect(loaded.segmenters).toBe(0);
    const modules = loaded.builtins;
    expect(modules.some((name) => name.includes("zlib"))).toBe(true);
    expect(modules.filter((name) => name.includes("undici"))).toEqual([]);
    // Spawning (--install), worker threads and V8's flags (large APIs), the file system's promises (a JSON spec's key
    // record) and yargs' assert (only to fail) load at first use (rolldown.config.mjs); the stage timings need no perf_hooks.
    for (const unused of ["child_process", "worker_threads", "v8", "fs/promises", "assert", "perf_hooks"])
      expect(modules, unused).not.toContain(`NativeModule ${unused}`);
    // Ajv comes from the code-cached bundle (rolldown.config.mjs), not as ≈ 80 files from node_modules.
    expect(loaded.files.filter((file) => /node_modules[\\/]ajv(-formats)?[\\/]/.test(file))).toEqual([]);
    // The ReDoS analysis (src/model/regex-safety.ts) loads only for a pattern that repeats a group around a choice.
    expect(loaded.files.filter((file) => /node_modules[\\/](scslre|refa)[\\/]/.test(file))).toEqual([]);
    // A cold run searches for examples: the bundle's example-search chunk (json-schema-faker, faker) is loaded.
    expect(loaded.files.filter((file) => EXAMPLE_CHUNK.test(file))).toHaveLength(1);
    // A YAML spec: the parser is the bundle's own code-cached script, not the package's files.
    expect(loaded.files.filter((file) => YAML_SCRIPT.test(file))).toHaveLength(1);
    expect(loaded.files.filter((file) => /node_modules[\\/]yaml[\\/]/.test(file))).toEqual([]);
  });

  // src/load/yaml.ts: JSON.parse reads a JSON spec; the YAML parser is neither evaluated nor read from the code cache.
  it("a JSON spec does not load the YAML parser", () => {
    const out = join(mkdtempSync(join(tmpdir(), "cgm-json-")), "out");
    const { record: files } = runCliRecording<string[]>(
      (file) =>
        `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(file)}, JSON.stringify(Object.keys(require.cache))));`,
      ["--quiet", "--from", join(REPO_ROOT, "samples", "inventory-swagger2.json"), "--out", out],
    );
    expect(files.some((file) => /dist[\\/]bin[\\/]cli\.js$/.test(file))).toBe(true);
    expect(files.filter((file) => YAML_SCRIPT.test(file) || /node_modules[\\/]yaml[\\/]/.test(file))).toEqual([]);
  });

  // src/guidance/guide.ts: a regeneration whose every example outcome is cached never evaluates the example search.
  it("a regeneration after a summary edit, every example cached, does not load the example search", () => {
    const dir = mkdtempSync(join(tmpdir(), "cgm-regen-loads-"));
    const out = join(dir, "out");
    const spec = join(dir, "petstore.yaml");
    const original = readFileSync(join(REPO_ROOT, "samples", "petstore.yaml"), "utf8");
    writeFileSync(spec, original);
    const cold = runCli(["--quiet", "--from", spec, "--out", out]);
    expect(cold.code, cold.stderr).toBe(0);
    const edited = original.replace(/summary: (.+)/, "summary: $1 (edited)");
    expect(edited).not.toBe(original);
    writeFileSync(spec, edited);
    const regen = runCliRecording<string[]>(
      (file) =>
        `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(file)}, JSON.stringify(Object.keys(require.cache))));`,
      ["regenerate", out, "--from", spec],
    );
    expect(regen.stdout).toContain("1 change(s)");
    const files = regen.record;
    expect(files.some((file) => /dist[\\/]bin[\\/]cli\.js$/.test(file))).toBe(true);
    expect(files.filter((file) => EXAMPLE_CHUNK.test(file))).toEqual([]);
    expect(readFileSync(join(out, "data", "tools.json"), "utf8")).toContain("(edited)");
  });
});

/** The CLI bundle's chunk holding src/guidance/examples (rolldown names it after that module). */
const EXAMPLE_CHUNK = /dist[\\/]bin[\\/]examples-[\w-]+\.js$/;
/** The CLI bundle's script holding the YAML parser (an entry of its own: rolldown.config.mjs). */
const YAML_SCRIPT = /dist[\\/]bin[\\/]yaml\.js$/;
