import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/project.js";

// Node's fetch implementation (undici) is a lazy global costing 20–60 ms to load; a spec whose
// references all stay in the document never needs the $ref resolver, which would touch it.
describe("what a small generation loads", () => {
  it("a spec with internal references only does not load Node's fetch implementation", () => {
    const dir = mkdtempSync(join(tmpdir(), "cgm-fetch-"));
    const preload = join(dir, "record.cjs");
    const record = join(dir, "modules.json");
    // Counts the Intl.Segmenters made: the first loads ICU's break data (≈ 10 ms), needed only to lay out help text.
    writeFileSync(
      preload,
      [
        "let segmenters = 0;",
        "const Segmenter = Intl.Segmenter;",
        "Intl.Segmenter = class extends Segmenter { constructor(...args) { super(...args); segmenters++; } };",
        `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(record)}, JSON.stringify({ builtins: process.moduleLoadList, files: Object.keys(require.cache), segmenters })));`,
      ].join("\n"),
    );
    const cli = join(REPO_ROOT, "bin", "create-guided-mcp.js");
    const spec = join(REPO_ROOT, "samples", "petstore.yaml");
    const run = spawnSync(
      process.execPath,
      ["-r", preload, cli, "--quiet", "--from", spec, "--out", join(dir, "out")],
      {
        encoding: "utf8",
      },
    );
    expect(run.status, run.stderr).toBe(0);
    const loaded = JSON.parse(readFileSync(record, "utf8")) as {
      builtins: string[];
      files: string[];
      segmenters: number;
    };
    expect(loaded.segmenters).toBe(0);
    const modules = loaded.builtins;
    expect(modules.some((name) => name.includes("zlib"))).toBe(true);
    expect(modules.filter((name) => name.includes("undici"))).toEqual([]);
    // Ajv comes from the code-cached bundle (rolldown.config.mjs), not as ≈ 80 files from node_modules.
    expect(loaded.files.filter((file) => /node_modules[\\/]ajv(-formats)?[\\/]/.test(file))).toEqual([]);
    // The ReDoS analysis (src/model/regex-safety.ts) loads only for a pattern that repeats a group around a choice.
    expect(loaded.files.filter((file) => /node_modules[\\/](scslre|refa)[\\/]/.test(file))).toEqual([]);
  });
});
