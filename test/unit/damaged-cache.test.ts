/**
 * A damaged cache costs a full run, never a failed one (src/cache/damaged.ts): a cache entry is parsed only when
 * first used, so one edited or corrupted in the file is found late; the run then starts again without reading the
 * caches, writes what a cold run writes, and rewrites the caches.
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { CACHE_DIR } from "../../src/cache/index.js";
import { MODEL_CACHE_FILE } from "../../src/cache/model-cache.js";
import { generate } from "../../src/generate.js";
import { SAMPLES } from "../helpers/pipeline.js";

/** Every file of the project but its caches, by path. */
function projectFiles(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    if (entry.isFile() && !relative(dir, path).startsWith(CACHE_DIR))
      files[relative(dir, path)] = readFileSync(path, "latin1");
  }
  return files;
}

async function run(out: string) {
  const lines: string[] = [];
  const result = await generate({ from: join(SAMPLES, "catalogue.yaml"), out, onProgress: (line) => lines.push(line) });
  return { result, lines };
}

describe("a damaged cache", () => {
  it("is ignored and rewritten: the run writes what a cold run writes, and the next run reuses the new caches", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "cgm-damaged-cache-")), "catalogue");
    await run(out);
    const cold = projectFiles(out);
    // Every tool's cached guidance broken inside its JSON, the lines otherwise whole (as a hand edit leaves them).
    const modelFile = join(out, MODEL_CACHE_FILE);
    const damaged = readFileSync(modelFile, "latin1").replace(/^(guidance\t\w+\t\{"guidance":\{)/gm, "$1 oops ");
    expect(damaged).not.toBe(readFileSync(modelFile, "latin1"));
    writeFileSync(modelFile, damaged);

    const again = await run(out);
    expect(again.lines.join("\n")).toMatch(
      /model\.json: a tool's cached guidance does not parse \(the file was edited or damaged\) — generating again without reading the caches, which this run rewrites/,
    );
    expect(again.result.guidanceCache).toEqual({ hits: 0, misses: again.result.model.tools.length });
    expect(projectFiles(out)).toEqual(cold);
    expect(readFileSync(modelFile, "latin1")).not.toMatch(/ oops /);

    const next = await run(out);
    expect(next.lines.join("\n")).not.toMatch(/does not parse/);
    expect(next.result.guidanceCache).toEqual({ hits: next.result.model.tools.length, misses: 0 });
    expect(projectFiles(out)).toEqual(cold);
  });
});
