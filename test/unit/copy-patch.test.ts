/**
 * The key record's spec copy kept as an earlier spec and a patch (src/cache/copy-patch.ts, src/cache/key-table.ts):
 * a run of one-operation edits leaves the copy as it is and records the bytes that differ in keys.json; the record's
 * spec read back is the edited spec byte for byte; a patch that would grow too large rewrites the copy; and a copy or
 * record that does not hold together is no evidence.
 */
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  applyPatch,
  type CopyPatch,
  nextPatch,
  PATCH_LIMIT,
  patchedLength,
  readPatch,
  readPatched,
  type StoredPatch,
} from "../../src/cache/copy-patch.js";
import { CACHE_DIR } from "../../src/cache/index.js";
import { editSince, keysFilePath, readPreviousKeys, saveKeys, specEdit } from "../../src/cache/key-table.js";
import type { KeyRecord } from "../../src/cache/refs.js";
import { scanSkeleton } from "../../src/cache/sparse-document.js";
import { hashContent } from "../../src/write/hash.js";

type Document = Record<string, unknown> & { paths: Record<string, Record<string, Record<string, unknown>>> };

const GITHUB = createRequire(import.meta.url).resolve("@octokit/openapi/generated/api.github.com.json");
const operationAt = (document: Document, index: number) =>
  Object.values(document.paths).flatMap((item) => Object.values(item))[index] as Record<string, unknown>;
// saveKeys and readPreviousKeys carry the record without reading its keys.
const RECORD: KeyRecord = { prelude: "", preludeUnits: [], context: "", complete: true, operations: [], units: {} };

const copyFile = (project: string) => join(project, CACHE_DIR, "spec.copy");
const keysFile = (project: string) => join(project, CACHE_DIR, "keys.json");
/** `keys.json` with its spec and patch as its delta gives them, when there is one for it (see key-delta.ts). */
function storedKeys(project: string): Record<string, unknown> {
  const keys = JSON.parse(readFileSync(keysFile(project), "utf8")) as Record<string, unknown>;
  const deltaFile = join(project, CACHE_DIR, "keys.delta.json");
  const delta = existsSync(deltaFile) ? (JSON.parse(readFileSync(deltaFile, "utf8")) as Record<string, unknown>) : {};
  return delta["base"] === keys["id"] ? { ...keys, spec: delta["spec"], patch: delta["patch"] } : keys;
}

/** A run that records `bytes`: from nothing, or from the last run's record and the edit found against it. */
async function record(project: string, bytes: Buffer, since = true): Promise<void> {
  const previous = since ? readPreviousKeys(project, "salt", hashContent(bytes)) : undefined;
  const edit = previous && editSince(previous, bytes);
  if (since) expect(edit).toBeDefined();
  const history = previous && edit !== undefined ? { previous, edit } : undefined;
  await saveKeys(project, "salt", hashContent(bytes), RECORD, bytes, scanSkeleton(bytes), history);
}

/** The record's spec: the copy's bytes with the recorded patch applied, if its hash is the recorded one. */
function recordedSpec(project: string): Buffer | undefined {
  const keys = storedKeys(project) as { spec: string; patch?: StoredPatch };
  const copy = readFileSync(copyFile(project));
  const spec = applyPatch(copy, keys.patch && readPatch(keys.patch, copy.length));
  return hashContent(spec) === keys.spec ? spec : undefined;
}

describe("the spec copy and its patch", () => {
  it("stays as it is through one-operation edits, and the record's spec is each edited spec", async () => {
    const project = mkdtempSync(join(tmpdir(), "cgm-copy-patch-"));
    const document = JSON.parse(readFileSync(GITHUB, "utf8")) as Document;
    const original = Buffer.from(JSON.stringify(document));
    await record(project, original, false);
    const { ino } = statSync(copyFile(project));
    const edits: Array<(document: Document) => void> = [
      (d) => (operationAt(d, 0)["summary"] += " (edited — café 🚀)"),
      (d) => (operationAt(d, 0)["summary"] += " again"),
      (d) => (operationAt(d, 1)["description"] = 'a "quoted" } ] { [ text\\'),
      (d) => (operationAt(d, 0)["summary"] = ""),
      (d) => delete operationAt(d, 2)["parameters"],
    ];
    let before = original;
    for (const edit of edits) {
      edit(document);
      const after = Buffer.from(JSON.stringify(document));
      const previous = readPreviousKeys(project, "salt", hashContent(after))!;
      // The record's bytes read ahead (src/load/read-ahead.ts) give the same record as the file read here.
      const keysBytes = readFileSync(keysFilePath(project));
      expect(readPreviousKeys(project, "salt", hashContent(after), keysBytes)).toEqual(previous);
      // The edit found in the stamped, patched copy is the one the two texts show.
      expect(editSince(previous, after)).toEqual(specEdit(before, after, scanSkeleton(before)));
      await record(project, after);
      expect(statSync(copyFile(project)).ino).toBe(ino);
      expect(readFileSync(copyFile(project)).equals(original)).toBe(true);
      expect(storedKeys(project)["patch"]).toMatchObject({ copy: hashContent(original) });
      // Read back as a later run would: stamped (compared in pieces), and hashed.
      expect(editSince(readPreviousKeys(project, "salt", "another spec")!, after)).toBe("unchanged");
      expect(recordedSpec(project)?.equals(after)).toBe(true);
      before = after;
    }
    // Edits far apart would need most of the document in the patch: the copy is written anew, without one.
    operationAt(document, 1222)["summary"] += " (edited)";
    const far = Buffer.from(JSON.stringify(document));
    await record(project, far);
    expect(storedKeys(project)["patch"]).toBeUndefined();
    expect(readFileSync(copyFile(project)).equals(far)).toBe(true);
    expect(statSync(copyFile(project)).ino).not.toBe(ino);
    expect(readPreviousKeys(project, "salt", "another spec")?.copy).toBeDefined();
  });

  it("is no evidence when the copy, its hash or the patch do not hold together", async () => {
    const project = mkdtempSync(join(tmpdir(), "cgm-copy-patch-safe-"));
    const document = JSON.parse(readFileSync(GITHUB, "utf8")) as Document;
    const original = Buffer.from(JSON.stringify(document));
    await record(project, original, false);
    operationAt(document, 3)["summary"] += " (edited)";
    const after = Buffer.from(JSON.stringify(document));
    await record(project, after);
    const keys = storedKeys(project);
    expect(keys["patch"]).toBeDefined();
    // The record as one file, its delta folded in (see key-delta.ts): the patches tried below are the record's.
    writeFileSync(keysFile(project), JSON.stringify(keys));
    rmSync(join(project, CACHE_DIR, "keys.delta.json"));
    // The same bytes put back as another file: its stamps no longer hold, so it is hashed, then patched and checked.
    writeFileSync(`${copyFile(project)}.new`, original);
    renameSync(`${copyFile(project)}.new`, copyFile(project));
    expect(readPreviousKeys(project, "salt", "another spec")?.copy).toBeUndefined();
    expect(readPreviousKeys(project, "salt", "another spec")?.spec?.equals(after)).toBe(true);
    // Other bytes in the copy (another run's, a damaged file): not the copy the patch applies to.
    writeFileSync(copyFile(project), after);
    expect(readPreviousKeys(project, "salt", "another spec")).toBeUndefined();
    writeFileSync(copyFile(project), original);
    // A patch whose bytes are not what the record's hash names, one out of the copy's bounds, one not well formed.
    const patch = keys["patch"] as { start: number; end: number; bytes: string };
    const variants = [
      { ...patch, bytes: Buffer.from("{}").toString("base64") },
      { ...patch, end: original.length + 1 },
      { ...patch, start: patch.end + 1 },
      { ...patch, start: "0" },
    ];
    for (const variant of variants) {
      writeFileSync(keysFile(project), JSON.stringify({ ...keys, patch: variant }));
      expect(readPreviousKeys(project, "salt", "another spec")).toBeUndefined();
    }
    // The record of an earlier format is not read.
    writeFileSync(keysFile(project), JSON.stringify({ ...keys, format: 1 }));
    expect(readPreviousKeys(project, "salt", "another spec")).toBeUndefined();
  });

  it("reads the patched copy in pieces as its bytes, and stops growing a patch at its limit", () => {
    const copy = Buffer.from("0123456789abcdefghijklmnopqrstuvwxyz");
    const file = join(mkdtempSync(join(tmpdir(), "cgm-copy-patch-read-")), "copy");
    writeFileSync(file, copy);
    const patches: CopyPatch[] = [
      { start: 5, end: 9, bytes: Buffer.from("PATCHED-BYTES") },
      { start: 0, end: 36, bytes: Buffer.from("all") },
      { start: 10, end: 10, bytes: Buffer.from("inserted") },
      { start: 20, end: 30, bytes: Buffer.alloc(0) },
    ];
    const descriptor = openSync(file, "r");
    try {
      for (const patch of patches) {
        const whole = applyPatch(copy, patch);
        expect(whole.length).toBe(patchedLength(copy.length, patch));
        for (let position = 0; position <= whole.length; position++)
          for (const length of [1, 3, 7, whole.length]) {
            const buffer = Buffer.alloc(length);
            const read = readPatched(descriptor, patch, buffer, length, position);
            expect(buffer.subarray(0, read)).toEqual(whole.subarray(position, position + length));
          }
      }
    } finally {
      closeSync(descriptor);
    }
    // Each later edit is folded into one patch against the same copy.
    let before = copy;
    let patch: CopyPatch | undefined;
    for (const [start, end, text] of [
      [3, 6, "xx"],
      [30, 31, "YYYY"],
      [4, 5, ""],
    ] as const) {
      const after = Buffer.concat([before.subarray(0, start), Buffer.from(text), before.subarray(end)]);
      patch = nextPatch(patch, before.length, after, { start, end: start + text.length });
      expect(applyPatch(copy, patch)).toEqual(after);
      expect(
        readPatch(
          { copy: "", start: patch!.start, end: patch!.end, bytes: patch!.bytes.toString("base64") },
          copy.length,
        ),
      ).toEqual(patch);
      before = after;
    }
    const large = Buffer.alloc(PATCH_LIMIT + 2, 97);
    expect(nextPatch(undefined, large.length, large, { start: 0, end: PATCH_LIMIT })).toBeDefined();
    expect(nextPatch(undefined, large.length, large, { start: 0, end: PATCH_LIMIT + 1 })).toBeUndefined();
  });
});
