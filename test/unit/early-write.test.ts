import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { emitProject, type EmittedFile } from "../../src/emit/index.js";
import { staticOutput } from "../../src/emit/static-files.js";
import { readTemplates } from "../../src/emit/template-files.js";
import { addGuidance } from "../../src/guidance/index.js";
import { basePath } from "../../src/write/bases.js";
import {
  EarlyFiles,
  freshStagingPath,
  writeEarlyFiles,
  type EarlyAnswer,
  type EarlyJob,
} from "../../src/write/early.js";
import { writeProject } from "../../src/write/index.js";
import { modelFrom, SAMPLES } from "../helpers/pipeline.js";

const manifestBase = {
  generator: { name: "create-guided-mcp", version: "test" },
  spec: { source: "spec.yaml", hash: "h" },
  options: {},
};

const emitted = async (): Promise<EmittedFile[]> =>
  emitProject(addGuidance(await modelFrom(join(SAMPLES, "petstore.yaml")), { seed: 1 }), {
    generatorVersion: "0.0.0-test",
  });

/** Every file under `root` with its bytes, by relative path. */
function tree(root: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else files.set(relative(root, full), readFileSync(full));
    }
  };
  walk(root);
  return files;
}

/** The folders under `root`, relative. */
function folders(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }))
      if (entry.isDirectory()) {
        found.push(relative(root, join(dir, entry.name)));
        walk(join(dir, entry.name));
      }
  };
  walk(root);
  return found.sort();
}

/** A fresh project's files written ahead as the example worker would (its answer given when `answer` resolves). */
/** Writes `files` as a fresh project with the files written ahead, checks it equals a write without them, and returns its folder. */
async function writtenAsWithout(files: EmittedFile[]): Promise<string> {
  const plain = join(mkdtempSync(join(tmpdir(), "cgm-early-")), "project");
  await writeProject(plain, files, manifestBase);
  const out = join(mkdtempSync(join(tmpdir(), "cgm-early-")), "project");
  const { early } = ahead(out);
  await writeProject(out, files, manifestBase, { early });
  expect(tree(out)).toEqual(tree(plain));
  expect(folders(out)).toEqual(folders(plain));
  return out;
}

function ahead(outDir: string, skip: string[] = [], answer?: Promise<EarlyAnswer | undefined>) {
  const job: EarlyJob = { staging: freshStagingPath(outDir), skip };
  const written = answer ?? Promise.resolve(writeEarlyFiles(job));
  return { job, early: new EarlyFiles(outDir, job.staging, written) };
}

describe("a fresh project's files written ahead (src/write/early.ts)", () => {
  it("writes the runtime copied as it is and its bases, leaving out what it is told to", () => {
    const parent = mkdtempSync(join(tmpdir(), "cgm-early-"));
    const staging = join(parent, ".project.tmp-00000000");
    const answer = writeEarlyFiles({ staging, skip: ["src/runtime/ship/bundle.ts"] });
    if (!("written" in answer)) throw new Error(answer.failed);
    const expected = [...readTemplates().values()].flatMap((template) => staticOutput(template) ?? []);
    expect(answer.written.map((file) => file.path)).toEqual(
      expected.map((file) => file.path).filter((path) => path !== "src/runtime/ship/bundle.ts"),
    );
    expect(expected.length).toBeGreaterThan(50);
    for (const { path, bytes } of expected) {
      if (path === "src/runtime/ship/bundle.ts") {
        expect(existsSync(join(staging, path))).toBe(false);
        continue;
      }
      expect(readFileSync(join(staging, path)).equals(bytes)).toBe(true);
    }
    for (const file of answer.written) expect(existsSync(basePath(staging, file.path, file.size))).toBe(file.base);
  });

  it("gives the project a write without it gives, and leaves no staging folder", async () => {
    const out = await writtenAsWithout(await emitted());
    expect(readdirSync(join(out, ".."))).toEqual(["project"]);
  });

  it("writes again a file written ahead with other bytes, and removes one the run does not write, with its base and folder", async () => {
    const files = await emitted();
    // The run does not write the bundle script (as with --ship leaving out mcpb), and writes another version of one file.
    const changed = files.find((file) => file.path === "src/runtime/shared/ajv.ts")!;
    const run = files
      .filter((file) => file.path !== "src/runtime/ship/bundle.ts")
      .map((file) => (file === changed ? { ...file, content: `${file.content}// changed\n` } : file));
    const out = await writtenAsWithout(run);
    expect(folders(out)).not.toContain(join("src", "runtime", "ship"));
  });

  it("is not used when the worker failed: its folder goes, and the run writes everything itself", async () => {
    const files = await emitted();
    const out = join(mkdtempSync(join(tmpdir(), "cgm-early-")), "project");
    const staging = freshStagingPath(out);
    writeEarlyFiles({ staging, skip: [] });
    writeFileSync(join(staging, "src", "half"), "a write cut short");
    const early = new EarlyFiles(out, staging, Promise.resolve({ failed: "disk full" }));
    await writeProject(out, files, manifestBase, { early });
    expect(readdirSync(join(out, ".."))).toEqual(["project"]);
    expect(existsSync(join(out, "src", "half"))).toBe(false);
    expect(statSync(join(out, "src", "runtime")).isDirectory()).toBe(true);
  });

  it("is removed, once the worker no longer writes, when the run fails or the folder is no longer empty", async () => {
    const files = await emitted();
    const parent = mkdtempSync(join(tmpdir(), "cgm-early-"));
    const out = join(parent, "project");
    let answer!: (value: EarlyAnswer | undefined) => void;
    const { job, early } = ahead(out, [], new Promise((resolve) => (answer = resolve)));
    let discarded = false;
    const discarding = early.discard().then(() => (discarded = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    // Still writing: nothing is removed under it.
    expect(discarded).toBe(false);
    const written = writeEarlyFiles(job);
    answer(written);
    await discarding;
    expect(readdirSync(parent)).toEqual([]);

    // Someone else's file appeared in the folder meanwhile: not a fresh project any more.
    const second = ahead(out);
    mkdirSync(out);
    writeFileSync(join(out, "mine.txt"), "");
    await expect(writeProject(out, files, manifestBase, { early: second.early })).rejects.toThrow(/not empty/);
    expect(readdirSync(parent)).toEqual(["project"]);
  });
});
