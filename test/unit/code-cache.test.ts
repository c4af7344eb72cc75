import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultCodeCacheDir } from "../../src/code-cache.js";
import { MAX_IDLE_DAYS } from "../../src/code-cache-prune.js";
import { REPO_ROOT } from "../helpers/project.js";

const CLI = join(REPO_ROOT, "bin", "create-guided-mcp.js");
const SPEC = join(REPO_ROOT, "samples", "petstore.yaml");

/**
 * Generates Petstore with the real bin, its code cache under `cacheHome`; returns the README as generated.
 * `named`: without `--out`, into the folder named after the API (a run without the project's caches).
 */
function generate(cacheHome: string, env: Record<string, string> = {}, named = false): string {
  const cwd = mkdtempSync(join(tmpdir(), "cgm-code-cache-out-"));
  const out = join(cwd, named ? "petstore-mcp" : "petstore");
  const args = [CLI, "--quiet", "--from", SPEC, ...(named ? [] : ["--out", out])];
  const run = spawnSync(process.execPath, args, {
    cwd,
    encoding: "utf8",
    env: { ...process.env, XDG_CACHE_HOME: cacheHome, ...env },
  });
  expect(run.status, run.stderr).toBe(0);
  return readFileSync(join(out, "README.md"), "utf8") + readFileSync(join(out, "data", "tools.json"), "utf8");
}

/**
 * The folder's V8 entries and runs record. Not the code fingerprint's digest record beside them
 * (test/unit/fingerprint.test.ts): a run writes that only once the code's files are 2 s old, so a test starting
 * right after `npm run build` would see a later run add it.
 */
function entries(cacheHome: string): Map<string, { bytes: Buffer; mtime: number }> {
  const dir = defaultCodeCacheDir({ XDG_CACHE_HOME: cacheHome })!;
  return new Map(
    readdirSync(dir)
      .filter((name) => !name.endsWith("-code-digest.txt"))
      .map((name) => [name, { bytes: readFileSync(join(dir, name)), mtime: statSync(join(dir, name)).mtimeMs }]),
  );
}

describe("the CLI's V8 code cache", () => {
  it("is made by the first run and used as it is by the next, which generates the same project", () => {
    const home = mkdtempSync(join(tmpdir(), "cgm-code-cache-"));
    const first = generate(home);
    const made = entries(home);
    // One entry per bundle script the run loaded (the CLI and its chunks), each its script's hash then V8's data.
    expect(made.size).toBeGreaterThanOrEqual(3);
    for (const { bytes } of made.values()) expect(bytes.length).toBeGreaterThan(32 + 100);
    // The build's precompiled templates (src/emit/templates.ts) are read compiled too.
    expect([...made.keys()].filter((name) => name.endsWith("-precompiled-templates.cjs.bin"))).toHaveLength(1);
    expect(generate(home)).toBe(first);
    // Accepted: nothing rewritten.
    expect(entries(home)).toEqual(made);
  });

  it("grows once with what a new kind of run compiles, and the runs are unaffected", () => {
    const home = mkdtempSync(join(tmpdir(), "cgm-code-cache-"));
    const dir = mkdtempSync(join(tmpdir(), "cgm-code-cache-kinds-"));
    const spec = join(dir, "petstore.yaml");
    const original = readFileSync(SPEC, "utf8");
    writeFileSync(spec, original);
    const out = join(dir, "petstore");
    const run = (args: string[]) => {
      const result = spawnSync(process.execPath, [CLI, ...args, "--quiet"], {
        encoding: "utf8",
        env: { ...process.env, XDG_CACHE_HOME: home },
      });
      expect(result.status, result.stderr).toBe(0);
    };
    run(["--from", spec, "--out", out]);
    const cold = entries(home);
    const record = [...cold.keys()].find((name) => name.endsWith("-runs.txt"))!;
    // The build, then the scripts the cold run loaded.
    expect(cold.get(record)!.bytes.toString().trim().split("\n")).toHaveLength(2);
    // A regeneration (a kind of run the entries have not seen) loads fewer scripts and calls other functions.
    const regenerate = (suffix: string) => {
      writeFileSync(spec, original.replace(/summary: (.+)/, `summary: $1 ${suffix}`));
      run(["regenerate", out, "--from", spec]);
      expect(readFileSync(join(out, "data", "tools.json"), "utf8")).toContain(suffix);
    };
    regenerate("(edited)");
    const grown = entries(home);
    expect(grown.get(record)!.bytes.toString().trim().split("\n")).toHaveLength(3);
    const cli = [...cold.keys()].find((name) => name.endsWith("-cli.bin"))!;
    expect(grown.get(cli)!.bytes.length).toBeGreaterThan(cold.get(cli)!.bytes.length);
    // Same script hash: only V8's data grew.
    expect(grown.get(cli)!.bytes.subarray(0, 32)).toEqual(cold.get(cli)!.bytes.subarray(0, 32));
    // A second regeneration is of a kind seen: nothing is rewritten.
    regenerate("(edited again)");
    expect(entries(home)).toEqual(grown);
  });

  it("is used as it is by runs with the example worker, which starts under another V8 flag", () => {
    const home = mkdtempSync(join(tmpdir(), "cgm-code-cache-"));
    const worker = { GUIDED_MCP_WORKERS: "1" };
    const expected = generate(home, worker);
    expect(generate(home)).toBe(expected);
    // The scripts compiled after the worker's start, as a run without it left them: accepted again, so nothing
    // rewrites them (data V8 refused under the worker's flag would be made and written again at the end of the run).
    const later = (all: ReturnType<typeof entries>) =>
      [...all].filter(([name]) => /-(dereference|model)\.bin$/.test(name));
    const before = later(entries(home));
    expect(before).toHaveLength(2);
    expect(generate(home, worker)).toBe(expected);
    expect(later(entries(home))).toEqual(before);
    // Without `--out` the run has no project caches, and loads those chunks right after the worker's start.
    generate(home, worker, true);
    const named = entries(home);
    generate(home, worker, true);
    expect(entries(home)).toEqual(named);
  });

  it("replaces corrupt, cut-short and foreign entries, and the run is unaffected", () => {
    const home = mkdtempSync(join(tmpdir(), "cgm-code-cache-"));
    const first = generate(home);
    const dir = defaultCodeCacheDir({ XDG_CACHE_HOME: home })!;
    const names = [...entries(home).keys()].sort();
    const damaged = new Map<string, Buffer>();
    names.forEach((name, index) => {
      const bytes = readFileSync(join(dir, name));
      const replacement = [
        Buffer.from("not a code cache"),
        bytes.subarray(0, bytes.length >> 1),
        // Right script hash, other data: V8 itself must reject it.
        Buffer.concat([bytes.subarray(0, 32), Buffer.alloc(bytes.length - 32, 7)]),
      ][index % 3]!;
      writeFileSync(join(dir, name), replacement);
      damaged.set(name, replacement);
    });
    expect(generate(home)).toBe(first);
    for (const [name, { bytes }] of entries(home)) expect(bytes.equals(damaged.get(name)!), name).toBe(false);
  });

  it("writes nothing when turned off, or when its folder cannot be made", () => {
    const home = mkdtempSync(join(tmpdir(), "cgm-code-cache-"));
    const expected = generate(home);
    const off = mkdtempSync(join(tmpdir(), "cgm-code-cache-"));
    expect(generate(off, { GUIDED_MCP_CODE_CACHE: "0" })).toBe(expected);
    expect(readdirSync(off)).toEqual([]);
    const file = join(mkdtempSync(join(tmpdir(), "cgm-code-cache-")), "a-file");
    writeFileSync(file, "");
    expect(generate(file)).toBe(expected);
  });

  it("removes what installations unused for a month left there, and nothing else", () => {
    const home = mkdtempSync(join(tmpdir(), "cgm-code-cache-"));
    const dir = defaultCodeCacheDir({ XDG_CACHE_HOME: home })!;
    mkdirSync(dir, { recursive: true });
    const now = Date.now() / 1000;
    const day = 24 * 60 * 60;
    const idle = (MAX_IDLE_DAYS + 1) * day;
    const plant = (name: string, accessedAgo: number, modifiedAgo = accessedAgo) => {
      writeFileSync(join(dir, name), "planted");
      utimesSync(join(dir, name), now - accessedAgo, now - modifiedAgo);
    };
    // Gone: every file of the installation idle for longer than a month, and a temporary file hours old.
    plant("0123456789abcdef-cli.bin", idle);
    plant("0123456789abcdef-runs.txt", idle);
    plant("fedcba9876543210-code-digest.txt", idle);
    plant("2222222222222222-cli.bin.4242-0a1b2c3d.tmp", 2 * 60 * 60);
    // Kept: an installation read yesterday, one with a file written a week ago, a temporary file being written, and
    // a file this folder does not hold.
    plant("1111111111111111-cli.bin", day, idle);
    plant("3333333333333333-cli.bin", idle);
    plant("3333333333333333-write.bin", 7 * day);
    plant("4444444444444444-cli.bin.4343-0a1b2c3d.tmp", 10);
    plant("notes.txt", idle);
    generate(home);
    const left = readdirSync(dir);
    for (const gone of ["0123456789abcdef-cli.bin", "0123456789abcdef-runs.txt", "fedcba9876543210-code-digest.txt"])
      expect(left).not.toContain(gone);
    expect(left).not.toContain("2222222222222222-cli.bin.4242-0a1b2c3d.tmp");
    for (const kept of [
      "1111111111111111-cli.bin",
      "3333333333333333-cli.bin",
      "3333333333333333-write.bin",
      "4444444444444444-cli.bin.4343-0a1b2c3d.tmp",
      "notes.txt",
    ])
      expect(left).toContain(kept);
    // This run's own entries and record are there.
    expect(left.filter((name) => name.endsWith("-runs.txt"))).toHaveLength(1);
    expect(left.filter((name) => name.endsWith("-cli.bin"))).toHaveLength(3);
  });
});
