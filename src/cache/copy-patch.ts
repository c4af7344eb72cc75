/**
 * The spec copy of the key record (src/cache/key-table.ts) as the bytes of an
 * earlier spec and one patch. A regeneration after a one-operation edit used to
 * rewrite the whole copy (GitHub: 7 MB written, and the old 7 MB file freed,
 * which on ext4 waits for its blocks' writeback: ≈ 5 ms of the write stage)
 * for a few bytes changed. Now `keys.json`, which every such run rewrites
 * anyway, records the span of the copy that differs from the record's spec and
 * that spec's bytes there; the copy is rewritten only when the patch would grow
 * past `PATCH_LIMIT` (edits spread over the document).
 */
import { readSync } from "node:fs";
import { commonPrefix, commonSuffix } from "../report/text.js";

/** The record's spec is `copy[0, start)`, then `bytes`, then `copy[end, …)`. */
export interface CopyPatch {
  start: number;
  end: number;
  bytes: Buffer;
}

/** A patch as `keys.json` holds it: with the hash of the copy it applies to (base64: the bytes exactly). */
export interface StoredPatch {
  copy: string;
  start: number;
  end: number;
  bytes: string;
}

/** Past this many bytes, the copy is rewritten whole instead (and holds no patch). */
export const PATCH_LIMIT = 256 << 10;

export function storedPatch(copyHash: string, patch: CopyPatch): StoredPatch {
  return { copy: copyHash, start: patch.start, end: patch.end, bytes: patch.bytes.toString("base64") };
}

/** The patch `keys.json` holds, if it is well formed for a copy of `size` bytes. */
export function readPatch(stored: Partial<StoredPatch>, size: number): CopyPatch | undefined {
  const { start, end, bytes } = stored;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || typeof bytes !== "string") return undefined;
  if (start! < 0 || start! > end! || end! > size) return undefined;
  return { start: start!, end: end!, bytes: Buffer.from(bytes, "base64") };
}

/** The length of the record's spec, from a copy of `size` bytes. */
export function patchedLength(size: number, patch: CopyPatch | undefined): number {
  return patch ? size - (patch.end - patch.start) + patch.bytes.length : size;
}

/** The record's spec, from the copy's bytes. */
export function applyPatch(copy: Buffer, patch: CopyPatch | undefined): Buffer {
  if (!patch) return copy;
  return Buffer.concat([copy.subarray(0, patch.start), patch.bytes, copy.subarray(patch.end)]);
}

/**
 * Reads up to `length` bytes of the record's spec at `position` into the start of `buffer`, from the copy open on
 * `descriptor`; returns how many were read.
 */
export function readPatched(
  descriptor: number,
  patch: CopyPatch | undefined,
  buffer: Buffer,
  length: number,
  position: number,
): number {
  if (!patch) return readSync(descriptor, buffer, 0, length, position);
  const patchEnd = patch.start + patch.bytes.length;
  const shift = patch.end - patchEnd;
  let done = 0;
  while (done < length) {
    const at = position + done;
    let read: number;
    if (at < patch.start) read = readSync(descriptor, buffer, done, Math.min(length - done, patch.start - at), at);
    else if (at < patchEnd)
      read = patch.bytes.copy(
        buffer,
        done,
        at - patch.start,
        Math.min(patch.bytes.length, at - patch.start + length - done),
      );
    else read = readSync(descriptor, buffer, done, length - done, at + shift);
    if (read <= 0) break;
    done += read;
  }
  return done;
}

/**
 * The patch that makes the copy into `after`, from the one (if any) that made it into `before`, where `after` is
 * `before` with bytes `start` to `end - (after.length - before.length)` replaced by `after`'s `start` to `end` (an
 * edited operation's object, src/cache/key-table.ts `specEdit`). Undefined past `PATCH_LIMIT`.
 */
export function nextPatch(
  previous: CopyPatch | undefined,
  beforeLength: number,
  after: Buffer,
  edit: { start: number; end: number },
): CopyPatch | undefined {
  const editEnd = edit.end - (after.length - beforeLength);
  // The span of `before` that differs from the copy, or that this edit replaced: the union of the two.
  const low = previous ? Math.min(edit.start, previous.start) : edit.start;
  const high = previous ? Math.max(editEnd, previous.start + previous.bytes.length) : editEnd;
  // Past the previous patch, `before` is the copy shifted by the patch's change in length.
  const end = previous ? high - (previous.bytes.length - (previous.end - previous.start)) : high;
  const bytes = after.subarray(low, after.length - (beforeLength - high));
  return bytes.length > PATCH_LIMIT ? undefined : { start: low, end, bytes: Buffer.from(bytes) };
}

const CHUNK = 256 << 10;

/** The copy open on `descriptor`, read as the record's spec (`size`: its patched length) through one 256 KB buffer. */
export function openedCopy(descriptor: number, patch: CopyPatch | undefined, size: number): OpenCopy {
  return { descriptor, patch, size, buffer: Buffer.allocUnsafe(CHUNK) };
}

/** The copy open for reading, as the record's spec: `size` is the patched length. */
export interface OpenCopy {
  descriptor: number;
  patch: CopyPatch | undefined;
  size: number;
  buffer: Buffer;
}

/** `commonPrefix` of the record's spec and `after`. */
export function prefixInFile(file: OpenCopy, after: Buffer): number {
  const limit = Math.min(file.size, after.length);
  let at = 0;
  while (at < limit) {
    const read = readPatched(file.descriptor, file.patch, file.buffer, Math.min(file.buffer.length, limit - at), at);
    if (read <= 0) break;
    const same = commonPrefix(file.buffer.subarray(0, read), after.subarray(at, at + read));
    at += same;
    if (same < read) break;
  }
  return at;
}

/** `commonSuffix` of the record's spec and `after`, up to `limit` bytes. */
export function suffixInFile(file: OpenCopy, after: Buffer, limit: number): number {
  let shared = 0;
  while (shared < limit) {
    const size = Math.min(file.buffer.length, limit - shared);
    if (readPatched(file.descriptor, file.patch, file.buffer, size, file.size - shared - size) !== size) break;
    const afterEnd = after.length - shared;
    const same = commonSuffix(file.buffer.subarray(0, size), after.subarray(afterEnd - size, afterEnd), size);
    shared += same;
    if (same < size) break;
  }
  return shared;
}
