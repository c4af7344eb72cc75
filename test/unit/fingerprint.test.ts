import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { digestOfCode } from "../../src/cache/fingerprint.js";
import { REPO_ROOT } from "../helpers/project.js";

/** A folder of code files; returns the folder. */
function codeTree(): string {
  const root = mkdtempSync(join(tmpdir(), "cgm-fingerprint-"));
  mkdirSync(join(root, "lib"));
  writeFileSync(join(root, "a.js"), "export const a = 1;\n");
  writeFileSync(join(root, "lib", "b.js"), "export const b = 2;\n");
  writeFileSync(join(root, "notes.txt"), "not code\n");
  return root;
}

const LATER = () => Date.now() + 10_000;

describe("the code digest's record", () => {
  it("is written once the files have settled, and gives the same digest as hashing", () => {
    const root = codeTree();
    const record = join(mkdtempSync(join(tmpdir(), "cgm-fingerprint-record-")), "digest.txt");
    const hashed = digestOfCode([root], undefined);
    // Files changed within the last seconds are not recorded: a change in the same clock tick would not show.
    expect(digestOfCode([root], record)).toBe(hashed);
    expect(() => statSync(record)).toThrow();
    expect(digestOfCode([root], record, LATER())).toBe(hashed);
    expect(readFileSync(record, "latin1").split("\n")[0]).toBe(hashed);
    expect(digestOfCode([root], record, LATER())).toBe(hashed);
  });

  it("is what a run takes while the files are as recorded", () => {
    const root = codeTree();
    const record = join(mkdtempSync(join(tmpdir(), "cgm-fingerprint-record-")), "digest.txt");
    digestOfCode([root], record, LATER());
    const other = "f".repeat(64);
    const text = readFileSync(record, "latin1");
    writeFileSync(record, other + text.slice(text.indexOf("\n")), "latin1");
    // The record's hash is used as it is (so it must only ever be trusted for the stamps it holds).
    expect(digestOfCode([root], record, LATER())).toBe(other);
  });

  it("no longer holds once a file changes, even with its size and modification time put back", () => {
    const root = codeTree();
    const record = join(mkdtempSync(join(tmpdir(), "cgm-fingerprint-record-")), "digest.txt");
    const before = digestOfCode([root], record, LATER());
    const file = join(root, "lib", "b.js");
    const { atime, mtime } = statSync(file);
    writeFileSync(file, "export const b = 3;\n");
    utimesSync(file, atime, mtime);
    const after = digestOfCode([root], record, LATER());
    expect(after).not.toBe(before);
    expect(after).toBe(digestOfCode([root], undefined));
  });

  it("no longer holds when a code file is added or removed", () => {
    const root = codeTree();
    const record = join(mkdtempSync(join(tmpdir(), "cgm-fingerprint-record-")), "digest.txt");
    const before = digestOfCode([root], record, LATER());
    writeFileSync(join(root, "c.js"), "");
    const added = digestOfCode([root], record, LATER());
    expect(added).not.toBe(before);
    expect(added).toBe(digestOfCode([root], undefined));
  });

  it("is ignored when damaged", () => {
    const root = codeTree();
    const record = join(mkdtempSync(join(tmpdir(), "cgm-fingerprint-record-")), "digest.txt");
    const hashed = digestOfCode([root], record, LATER());
    for (const damage of ["", "xyz\n", readFileSync(record, "latin1").slice(0, 90), "not hex".padEnd(64, "!")]) {
      writeFileSync(record, damage, "latin1");
      expect(digestOfCode([root], record)).toBe(hashed);
    }
  });
});

describe("the CLI's code digest record", () => {
  it("is written by a run from the bundle, beside the code cache, once dist/bin has settled", () => {
    const cacheHome = mkdtempSync(join(tmpdir(), "cgm-fingerprint-home-"));
    const out = join(mkdtempSync(join(tmpdir(), "cgm-fingerprint-out-")), "petstore");
    const bundle = join(REPO_ROOT, "dist", "bin");
    const settled = readdirSync(bundle).every((name) => statSync(join(bundle, name)).ctimeMs < Date.now() - 2000);
    const run = spawnSync(
      process.execPath,
      [join(REPO_ROOT, "bin", "create-guided-mcp.js"), "--quiet", "--from", "samples/petstore.yaml", "--out", out],
      { cwd: REPO_ROOT, encoding: "utf8", env: { ...process.env, XDG_CACHE_HOME: cacheHome } },
    );
    expect(run.status, run.stderr).toBe(0);
    const dir = join(cacheHome, "create-guided-mcp", "code-cache", `${process.version}-${process.arch}`);
    const records = readdirSync(dir).filter((name) => name.endsWith("-code-digest.txt"));
    expect(records).toHaveLength(settled ? 1 : 0);
    const files = readdirSync(bundle).filter((name) => name.endsWith(".js"));
    for (const name of records) {
      const lines = readFileSync(join(dir, name), "latin1").split("\n");
      expect(lines[0]).toMatch(/^[0-9a-f]{64}$/);
      expect(lines.slice(1, -1).map((line) => line.split("\t")[0])).toEqual(files.sort().map((file) => `/${file}`));
    }
  });
});
