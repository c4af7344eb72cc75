/**
 * The key record written as a delta beside the last whole one (src/cache/key-delta.ts): read back, base and delta
 * are exactly the record and skeleton the run saved, through successive one-operation edits; a delta for another
 * base is ignored, and past its limit the record is written whole again.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CACHE_DIR } from "../../src/cache/index.js";
import { editSince, previousLength, readPreviousKeys, saveKeys } from "../../src/cache/key-table.js";
import { documentKeys, keysAfterEdit, type DocumentKeys } from "../../src/cache/refs.js";
import { scanSkeleton } from "../../src/cache/sparse-document.js";
import { moveSkeletonBy } from "../../src/cache/sparse-moves.js";
import { hashContent } from "../../src/write/hash.js";

type Document = Record<string, unknown> & { paths: Record<string, Record<string, Record<string, unknown>>> };

const GITHUB = createRequire(import.meta.url).resolve("@octokit/openapi/generated/api.github.com.json");
const SALT = "salt";
const operationAt = (document: Document, index: number) =>
  Object.values(document.paths).flatMap((item) => Object.values(item))[index] as Record<string, unknown>;
const keysView = (keys: DocumentKeys | undefined) =>
  keys && { prelude: keys.prelude, preludeUnits: keys.preludeUnits, operations: keys.operations };
const keysFile = (project: string) => join(project, CACHE_DIR, "keys.json");
const deltaFile = (project: string) => join(project, CACHE_DIR, "keys.delta.json");

/** A sparse regeneration's use of the record: the edit, the moved skeleton, the keys, then the save. */
async function regenerate(project: string, after: Buffer) {
  const previous = readPreviousKeys(project, SALT, hashContent(after))!;
  const edit = editSince(previous, after);
  if (typeof edit !== "object") throw new Error(`no one-operation edit: ${edit}`);
  const before = previousLength(previous)!;
  const skeleton = moveSkeletonBy(previous.skeleton!, [
    [edit.start, edit.end - (after.length - before), edit.end - edit.start],
  ]);
  const keys = keysAfterEdit(JSON.parse(after.toString()) as Document, previous.record, edit, true)!;
  const record = keys.record();
  await saveKeys(project, SALT, hashContent(after), record, after, skeleton, { previous, edit });
  return { keys, record, skeleton };
}

/** A project folder whose key record is GitHub's, keyed in full and saved whole; and the document it is of. */
async function keyedProject(prefix: string) {
  const project = mkdtempSync(join(tmpdir(), prefix));
  const document = JSON.parse(readFileSync(GITHUB, "utf8")) as Document;
  const original = Buffer.from(JSON.stringify(document));
  const full = documentKeys(JSON.parse(original.toString()) as Document, SALT)!;
  await saveKeys(project, SALT, hashContent(original), full.record(), original, scanSkeleton(original));
  return { project, document, full };
}

describe("the key record's delta", () => {
  it("reads back as the record and skeleton saved, through successive edits, and equals a full keying", async () => {
    const { project, document } = await keyedProject("cgm-key-delta-");
    const base = readFileSync(keysFile(project));
    // (Near each other: edits far apart rewrite the spec copy, and the record with it; see copy-patch.ts.)
    const edits: Array<(document: Document) => void> = [
      (d) => (operationAt(d, 0)["summary"] += " (edited — café 🚀)"),
      (d) => (operationAt(d, 7)["description"] = 'a "quoted" } ] { [ text\\'),
      // A reference to a component nothing used: a unit the base does not hold.
      (d) => (operationAt(d, 3)["x-extra"] = { $ref: "#/components/schemas/actions-secret" }),
      (d) => (operationAt(d, 0)["summary"] += " again"),
      (d) => delete operationAt(d, 5)["parameters"],
      (d) => (operationAt(d, 9)["summary"] = ""),
    ];
    for (const edit of edits) {
      edit(document);
      const after = Buffer.from(JSON.stringify(document));
      const saved = await regenerate(project, after);
      expect(keysView(saved.keys)).toEqual(keysView(documentKeys(JSON.parse(after.toString()) as Document, SALT)));
      expect(saved.skeleton).toEqual(scanSkeleton(after));
      // keys.json stays; what changed is beside it.
      expect(readFileSync(keysFile(project)).equals(base)).toBe(true);
      expect(existsSync(deltaFile(project))).toBe(true);
      const read = readPreviousKeys(project, SALT, hashContent(after))!;
      expect(read.record).toEqual(saved.record);
      expect(read.skeleton).toEqual(scanSkeleton(after));
      expect(editSince(readPreviousKeys(project, SALT, "another spec")!, after)).toBe("unchanged");
    }
    expect(readPreviousKeys(project, SALT, "another spec")?.record.units).toHaveProperty([
      "#/components/schemas/actions-secret",
    ]);
  });

  it("is ignored beside another base, and gives way to a whole record past its limit", async () => {
    const { project, document, full } = await keyedProject("cgm-key-delta-limit-");
    operationAt(document, 2)["summary"] += " (1)";
    const first = Buffer.from(JSON.stringify(document));
    await regenerate(project, first);
    // A delta naming another base: the base alone is read, and is no record of the edited spec.
    const delta = JSON.parse(readFileSync(deltaFile(project), "utf8")) as Record<string, unknown>;
    writeFileSync(deltaFile(project), JSON.stringify({ ...delta, base: "another" }));
    expect(readPreviousKeys(project, SALT, hashContent(first))?.record.operations[2]?.key).toBe(
      full.operations[2]!.key,
    );
    writeFileSync(deltaFile(project), JSON.stringify(delta));
    const ids = new Set<unknown>();
    for (let round = 0; round < 40; round++) {
      operationAt(document, 2)["summary"] += "!";
      const after = Buffer.from(JSON.stringify(document));
      const saved = await regenerate(project, after);
      expect(readPreviousKeys(project, SALT, hashContent(after))!.record).toEqual(saved.record);
      ids.add((JSON.parse(readFileSync(keysFile(project), "utf8")) as { id: unknown }).id);
    }
    // Written whole once the delta held 32 edits, then deltas again on that base.
    expect(ids.size).toBe(2);
  });
});
