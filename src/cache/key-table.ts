/**
 * A regeneration's cache keys without hashing the whole document again.
 *
 * Keying a document (src/cache/refs.ts) stringifies and hashes every operation
 * and every component: on GitHub ≈ 0.1 s, the largest fixed cost of a
 * regeneration. So each run that keys a local spec also records its keys
 * (`keys.json`) and a copy of the spec's bytes (`spec.copy`) in the project's
 * cache folder. The next run compares its spec's bytes with the copy: when all
 * that differs lies inside one operation's object (an edited summary,
 * description, parameter…), every other part of the document is the same, so
 * every other key and every component's hashes are the recorded ones, and only
 * that operation is keyed again (`keysAfterEdit`).
 *
 * It fails safe: the record is used only with the copy whose SHA-256 it names
 * (hashed again, or vouched for by the stamps its writer left: `copyStamps`),
 * patched as the record says (src/cache/copy-patch.ts), and the same salt
 * (code fingerprint, location, name); the changed bytes must
 * lie strictly inside one operation object of the copy, under
 * `paths/<path>/<method>`, and the new bytes there must parse on their own as
 * one JSON object, so that the new document is the old one with that object
 * replaced. Anything else (YAML, several edits far apart, an edit to a path
 * item's shared fields, a component or the top level, a missing or damaged
 * file) keys the whole document as before.
 */
import { randomBytes } from "node:crypto";
import { closeSync, existsSync, fstatSync, openSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { HTTP_METHODS, type HttpMethod } from "../model/openapi.js";
import { commonPrefix, commonSuffix } from "../report/text.js";
import { hashContent } from "../write/hash.js";
import type { KeyRecord } from "./refs.js";
import { replaceFileSync, settleAll } from "./replace-file.js";
import { stringEnd } from "../json-bytes.js";
import { operationInSkeleton, type Skeleton, type SkeletonEdit } from "./sparse-document.js";
import { copyStamps, recordedStamps, saveCopy, specCopyPath } from "./key-copy.js";
import {
  deltaAfter,
  type KeysDelta,
  readDelta,
  type ReadRecord,
  type RecordParts,
  saveDelta,
  withDelta,
} from "./key-delta.js";
import {
  applyPatch,
  type CopyPatch,
  nextPatch,
  openedCopy,
  patchedLength,
  prefixInFile,
  readPatch,
  readPatched,
  storedPatch,
  type StoredPatch,
  suffixInFile,
} from "./copy-patch.js";

const KEYS_FILE = ".guided-mcp/cache/keys.json";
/** Bump when the file layout changes (2: `patch`; 3: `id`, and deltas beside it: see key-delta.ts). */
const FORMAT = 3;

/** Where the project's key record is (read ahead by a regeneration: see src/write/previous.ts). */
export function keysFilePath(projectDir: string): string {
  return join(projectDir, KEYS_FILE);
}

interface KeysFile {
  format: number;
  /** Names this record for its deltas (see key-delta.ts). */
  id: string;
  salt: string;
  /** SHA-256 of the document the record was made for: the spec copy's bytes, with `patch` applied if any. */
  spec: string;
  /** What the record's spec differs from the copy in, and the hash of the copy's own bytes. */
  patch?: StoredPatch;
  record: KeyRecord;
  /** Where the spec's members lie (src/cache/sparse-document.ts), when this run had them at hand. */
  skeleton?: Skeleton;
}

export interface PreviousKeys {
  record: KeyRecord;
  /**
   * The bytes of the spec the record was made for, read to check their hash: not read when this run's spec has
   * their hash (the same bytes), nor when the copy's stamps vouch for it (`copy`).
   */
  spec?: Buffer;
  /** The copy as its stamps vouch for it: read only where it is compared with this run's spec (see `editInCopy`). */
  copy?: StampedCopy;
  skeleton?: Skeleton;
  /** The whole record this was read from, and the delta applied to it (see key-delta.ts). */
  read?: ReadRecord;
}

interface StampedCopy {
  file: string;
  stamps: string;
  size: number;
  /** The hash of the copy's bytes, and what the record's spec differs from them in (see copy-patch.ts). */
  hash: string;
  patch?: CopyPatch;
}

/**
 * The record an earlier run of this code made for this salt, with its spec's bytes; undefined if there is none to
 * trust. `specHash`: this run's spec's hash; when the record names it, the spec is the one recorded, and its copy
 * is not read. `keysBytes`: the record file's bytes when this run read them ahead (src/load/read-ahead.ts).
 */
export function readPreviousKeys(
  projectDir: string,
  salt: string,
  specHash?: string,
  keysBytes?: Buffer,
): PreviousKeys | undefined {
  const recorded = readKeyRecord(projectDir, salt, keysBytes);
  return recorded && previousKeysFor(recorded, specHash);
}

/** The record file as read (its delta applied), before this run's spec is known: see `readKeyRecord`. */
export interface RecordedKeys {
  projectDir: string;
  file: RecordParts;
  /** The skeleton where the record has one, and the record as read for `saveKeys` (see `PreviousKeys`). */
  skeleton: Pick<PreviousKeys, "skeleton" | "read">;
}

/**
 * The first half of `readPreviousKeys`, which needs nothing of this run's spec: the record file read and parsed
 * (GitHub: 830 KB, ≈ 4 ms) and its delta applied; undefined if there is none for this salt.
 */
export function readKeyRecord(projectDir: string, salt: string, keysBytes?: Buffer): RecordedKeys | undefined {
  const keysFile = keysFilePath(projectDir);
  if (!existsSync(keysFile) || !existsSync(specCopyPath(projectDir))) return undefined;
  try {
    const whole = JSON.parse(keysBytes?.toString("utf8") ?? readFileSync(keysFile, "utf8")) as Partial<KeysFile>;
    if (whole.format !== FORMAT || whole.salt !== salt || typeof whole.spec !== "string" || !whole.record)
      return undefined;
    if (typeof whole.id !== "string") return undefined;
    const delta = whole.skeleton ? readDelta(projectDir, whole.id) : undefined;
    const file = delta ? withDelta(whole as RecordParts, delta) : (whole as RecordParts);
    if (!file) return undefined;
    const read: ReadRecord = { base: whole.id, record: file.record, ...(delta ? { delta } : {}) };
    const skeleton = Array.isArray(file.skeleton) ? { skeleton: file.skeleton, read } : {};
    return { projectDir, file, skeleton };
  } catch {
    return undefined;
  }
}

/**
 * The second half of `readPreviousKeys`: the record read by `readKeyRecord` if it is for the spec whose hash is
 * `specHash`, or for the spec copy its stamps or its hash vouch for; with that copy.
 */
export function previousKeysFor(
  { projectDir, file, skeleton }: RecordedKeys,
  specHash: string | undefined,
): PreviousKeys | undefined {
  const copyFile = specCopyPath(projectDir);
  try {
    if (file.spec === specHash) return { record: file.record, ...skeleton };
    const stats = statSync(copyFile);
    const stamps = copyStamps(stats);
    const copyHash = file.patch ? file.patch.copy : file.spec;
    const patch = file.patch && readPatch(file.patch, stats.size);
    if (typeof copyHash !== "string" || (file.patch && !patch)) return undefined;
    const copy = { file: copyFile, stamps, size: stats.size, hash: copyHash, ...(patch ? { patch } : {}) };
    if (recordedStamps(projectDir) === `${copyHash} ${stamps}`) return { record: file.record, copy, ...skeleton };
    const bytes = readFileSync(copyFile);
    if (hashContent(bytes) !== copyHash) return undefined;
    const spec = applyPatch(bytes, patch);
    return !patch || hashContent(spec) === file.spec ? { record: file.record, spec, ...skeleton } : undefined;
  } catch {
    return undefined;
  }
}

/** The last run's record, and where this run's spec differs from the spec it was made for. */
export interface KeysSince {
  previous: PreviousKeys;
  edit: SpecEdit;
}

/**
 * Records this run's keys and a copy of its spec: the bytes this run read, which hash to `specHash`. Once the copy
 * is in place, its stamps go beside it with that hash (see `copyStamps`), so they vouch for those bytes whichever
 * run's keys are beside them; should another run replace the copy before they are taken, none are recorded and the
 * next run checks the copy's hash. `since`: the last run's record and where this spec differs from it; when it was
 * read with a stamped copy where this run writes, the copy stays and the keys record a patch (see copy-patch.ts).
 */
export async function saveKeys(
  projectDir: string,
  salt: string,
  specHash: string,
  record: KeyRecord,
  spec: Buffer,
  skeleton?: Skeleton,
  since?: KeysSince,
): Promise<void> {
  const patch = patchSince(projectDir, spec, since);
  // A recorded skeleton moved by one operation's edit: only what changed is written (see key-delta.ts).
  const delta = patch && skeleton && since && deltaSince(since, record, specHash, spec.length, patch);
  if (delta) return saveDelta(projectDir, delta);
  const file: KeysFile = {
    format: FORMAT,
    id: randomBytes(8).toString("hex"),
    salt,
    spec: specHash,
    record,
    ...(patch ? { patch } : {}),
    ...(skeleton ? { skeleton } : {}),
  };
  const copy = patch ? undefined : saveCopy(projectDir, specHash, spec);
  // At once (GitHub's 830 KB: well under a millisecond): through the lowest-priority pool, a busy machine kept the
  // end of a regeneration waiting for it (190 ms seen at load 5). (Async: a failure waits for the copy's write.)
  const keys = (async () => replaceFileSync(keysFilePath(projectDir), JSON.stringify(file)))();
  await settleAll([copy, keys]);
}

/** The delta from the record `since` was read with to `record`, when there is one to write (see key-delta.ts). */
function deltaSince(
  { previous, edit }: KeysSince,
  record: KeyRecord,
  specHash: string,
  length: number,
  patch: StoredPatch,
): KeysDelta | undefined {
  const before = previousLength(previous);
  if (!previous.read || edit === "unchanged" || before === undefined) return undefined;
  const moved: SkeletonEdit = [edit.start, edit.end - (length - before), edit.end - edit.start];
  return deltaAfter(previous.read, record, { spec: specHash, patch, edit: moved });
}

/**
 * The patch that makes the stamped copy the last record was read with into `spec`, when that copy is the one this
 * run would replace and the patch stays small (else undefined: the copy is written whole).
 */
function patchSince(projectDir: string, spec: Buffer, since: KeysSince | undefined): StoredPatch | undefined {
  const copy = since?.previous.copy;
  if (!copy || copy.file !== specCopyPath(projectDir)) return undefined;
  const { edit } = since!;
  const patch =
    edit === "unchanged"
      ? (copy.patch ?? { start: 0, end: 0, bytes: Buffer.alloc(0) })
      : nextPatch(copy.patch, patchedLength(copy.size, copy.patch), spec, edit);
  // (By construction the patched copy is `spec`; its length is a last check of that arithmetic.)
  return patch && patchedLength(copy.size, patch) === spec.length ? storedPatch(copy.hash, patch) : undefined;
}

/**
 * Where two texts of a spec differ: nowhere, or inside the object of one operation (whose object spans bytes `start`
 * to `end` of the second text).
 */
export type SpecEdit = "unchanged" | { path: string; method: HttpMethod; start: number; end: number };

/** Where `bytes` differ from the spec the record was made for (see `specEdit`). */
export function editSince(previous: PreviousKeys, bytes: Buffer): SpecEdit | undefined {
  if (previous.spec) return specEdit(previous.spec, bytes, previous.skeleton);
  return previous.copy ? editInCopy(previous.copy, bytes, previous.skeleton) : "unchanged";
}

/** The length in bytes of the spec the record was made for, when this run read or stamped its copy. */
export function previousLength(previous: PreviousKeys): number | undefined {
  return previous.spec?.length ?? (previous.copy && patchedLength(previous.copy.size, previous.copy.patch));
}

/**
 * The one operation whose object holds every byte that differs between two JSON texts of a spec ("unchanged" when
 * none does), or undefined when the difference is not inside one operation object (see the module comment).
 */
export function specEdit(before: Buffer, after: Buffer, skeleton?: Skeleton): SpecEdit | undefined {
  const prefix = commonPrefix(before, after);
  if (prefix === before.length && prefix === after.length) return "unchanged";
  const suffix = commonSuffix(before, after, Math.min(before.length, after.length) - prefix);
  let found: ReturnType<typeof operationAround>;
  try {
    // `before`'s skeleton, when the record has it, says where its operations lie without a scan.
    found = skeleton
      ? operationInSkeleton(skeleton, prefix, before.length - suffix)
      : operationAround(before, prefix, before.length - suffix);
  } catch {
    // A key that does not decode: the bytes the record was made from are no JSON this reads.
    return undefined;
  }
  if (!found) return undefined;
  // Both braces of the operation object are outside the difference; the bytes between them must be one object in
  // either text, so that each text is the other with that object replaced (and both are JSON).
  const end = found.end + after.length - before.length;
  return isJsonObject(before, found.start, found.end) && isJsonObject(after, found.start, end)
    ? { path: found.path, method: found.method, start: found.start, end }
    : undefined;
}

/**
 * `specEdit` against the stamped copy (patched as the record says), read through one small buffer: from the front
 * to the first difference, from the back to the last, and the operation object found between (a 7 MB buffer of its
 * own cost ≈ 2 ms more, mostly faulting in fresh memory). The stamps are checked again on the file read: a copy
 * replaced since is no evidence.
 */
function editInCopy(copy: StampedCopy, after: Buffer, skeleton: Skeleton | undefined): SpecEdit | undefined {
  const descriptor = openSync(copy.file, "r");
  try {
    if (copyStamps(fstatSync(descriptor)) !== copy.stamps) return undefined;
    // Without a skeleton the operation is found by scanning the copy from its start (see `operationAround`).
    if (!skeleton) return specEdit(applyPatch(readFileSync(descriptor), copy.patch), after);
    const size = patchedLength(copy.size, copy.patch);
    const file = openedCopy(descriptor, copy.patch, size);
    const prefix = prefixInFile(file, after);
    if (prefix === size && prefix === after.length) return "unchanged";
    const suffix = suffixInFile(file, after, Math.min(size, after.length) - prefix);
    const found = operationInSkeleton(skeleton, prefix, size - suffix);
    if (!found) return undefined;
    const object = Buffer.allocUnsafe(found.end - found.start);
    if (readPatched(descriptor, copy.patch, object, object.length, found.start) !== object.length) return undefined;
    const end = found.end + after.length - size;
    return isJsonObject(object, 0, object.length) && isJsonObject(after, found.start, end)
      ? { path: found.path, method: found.method, start: found.start, end }
      : undefined;
  } catch {
    // A key that does not decode (see `specEdit`), or the copy cut short under this run.
    return undefined;
  } finally {
    closeSync(descriptor);
  }
}

function isJsonObject(text: Buffer, start: number, end: number): boolean {
  try {
    const value: unknown = JSON.parse(text.toString("utf8", start, end));
    return typeof value === "object" && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

const QUOTE = 34;
const BACKSLASH = 92;
const COLON = 58;

/**
 * The object at `paths/<path>/<method>` of a JSON text whose braces enclose bytes `from` to `to` (the closing brace
 * at or after `to`), scanning from the start only as far as that object's end. Undefined when the bytes are in no
 * such object, or the text is not one JSON object.
 */
function operationAround(
  text: Buffer,
  from: number,
  to: number,
): { path: string; method: HttpMethod; start: number; end: number } | undefined {
  // keys[d]: the last key read in the object at depth d (1 = the document); objects[d]: whether depth d is an object.
  const keys: Array<string | undefined> = [];
  const objects: boolean[] = [];
  let depth = 0;
  let start = -1;
  for (let index = 0; index < text.length; index++) {
    const byte = text[index]!;
    if (byte === QUOTE) {
      const end = stringEnd(text, index);
      if (end < 0) return undefined;
      if (depth <= 3 && objects[depth] && text[nextToken(text, end)] === COLON)
        keys[depth] = JSON.parse(text.toString("utf8", index, end)) as string;
      index = end - 1;
    } else if (byte === 123 /* { */ || byte === 91 /* [ */) {
      if (depth === 0 && byte !== 123) return undefined;
      depth++;
      objects[depth] = byte === 123;
      keys[depth] = undefined;
      if (depth === 4 && byte === 123 && objects[3] && objects[2] && keys[1] === "paths") start = index;
    } else if (byte === 125 /* } */ || byte === 93 /* ] */) {
      if (depth === 4 && start >= 0) {
        const method = keys[3] as HttpMethod;
        if (start < from && to <= index && (HTTP_METHODS as readonly string[]).includes(method))
          return { path: keys[2]!, method, start, end: index + 1 };
        start = -1;
      }
      depth--;
      if (depth === 0 || (index >= from && depth < 4)) return undefined;
    }
    if (index >= from && depth < 4 && start < 0) return undefined;
  }
  return undefined;
}

/** The index of the first byte at or after `from` that is not JSON whitespace. */
function nextToken(text: Buffer, from: number): number {
  let index = from;
  while (text[index] === 32 || text[index] === 10 || text[index] === 13 || text[index] === 9) index++;
  return index;
}
