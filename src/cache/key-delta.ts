/**
 * A regeneration's key record written as what changed since the last whole one.
 *
 * After a one-operation edit the record (src/cache/key-table.ts) differs from the last one in that operation's
 * key, the spec's hash and patch, and where the members after the edit lie; yet writing it meant serialising and
 * replacing all of `keys.json` (GitHub: 830 KB, ≈ 5–8 ms of every regeneration's write stage, and the disk's
 * writeback of the file it replaced). So such a run leaves `keys.json` as it is and writes `keys.delta.json`: the
 * base's `id`, the spec's hash and patch, the edits since the base (each an operation object's bytes replaced,
 * which moves the skeleton's members after it), the operations' keys and the units that changed since. The next
 * run reads the base and applies its delta. A delta names its base, so one left beside another run's base is
 * ignored; past `MAX_EDITS`, or for anything but a recorded one-operation edit, the record is written whole again
 * (with a new `id`).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { StoredPatch } from "./copy-patch.js";
import type { KeyRecord, OperationKey, UnitRecord } from "./refs.js";
import { replaceFileSync } from "./replace-file.js";
import type { Skeleton, SkeletonEdit } from "./sparse-document.js";
import { moveSkeletonBy } from "./sparse-moves.js";

const KEYS_DELTA_FILE = ".guided-mcp/cache/keys.delta.json";
/** Bump when the layout changes. */
const DELTA_FORMAT = 1;
/** Past this many edits since the base, the record is written whole (each edit is one more move of the skeleton). */
const MAX_EDITS = 32;

export interface KeysDelta {
  format: number;
  /** The `id` of the `keys.json` this applies to. */
  base: string;
  /** The hash of the spec the record is now for, and what it differs from the copy in. */
  spec: string;
  patch: StoredPatch;
  complete: boolean;
  /** The base's spec to this one, in order (see `moveSkeletonBy`). */
  edits: SkeletonEdit[];
  /** The operations whose keys changed since the base, by their place in `record.operations`. */
  operations: Array<[index: number, key: OperationKey]>;
  /** Units recorded, or given a deep hash, since the base. */
  units: Record<string, UnitRecord>;
}

/** A whole record as `keys.json` holds it, the parts a delta changes. */
export interface RecordParts {
  spec: string;
  patch?: StoredPatch;
  record: KeyRecord;
  skeleton?: Skeleton;
}

/** The delta beside the base whose id is `base`, if there is one for it that reads as one. */
export function readDelta(projectDir: string, base: string): KeysDelta | undefined {
  const file = join(projectDir, KEYS_DELTA_FILE);
  if (!existsSync(file)) return undefined;
  try {
    const delta = JSON.parse(readFileSync(file, "utf8")) as Partial<KeysDelta>;
    const wellFormed =
      delta.format === DELTA_FORMAT &&
      delta.base === base &&
      typeof delta.spec === "string" &&
      typeof delta.patch === "object" &&
      delta.patch !== null &&
      typeof delta.complete === "boolean" &&
      Array.isArray(delta.edits) &&
      Array.isArray(delta.operations) &&
      typeof delta.units === "object" &&
      delta.units !== null;
    return wellFormed ? (delta as KeysDelta) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The base's parts (parsed for this run alone: changed in place) with `delta` applied; undefined where the delta
 * does not fit the base (an operation out of place: then the base alone is no record of this spec either).
 */
export function withDelta(parts: RecordParts, delta: KeysDelta): RecordParts | undefined {
  const { record, skeleton } = parts;
  if (!skeleton) return undefined;
  for (const [index, key] of delta.operations) {
    const recorded = record.operations[index];
    if (!recorded || recorded.path !== key.path || recorded.method !== key.method) return undefined;
    record.operations[index] = key;
  }
  Object.assign(record.units, delta.units);
  record.complete = delta.complete;
  return { spec: delta.spec, patch: delta.patch, record, skeleton: moveSkeletonBy(skeleton, delta.edits) };
}

/** What `saveKeys` needs to know of the record it was read with. */
export interface ReadRecord {
  /** The base's id (a base with a skeleton: a delta moves it). */
  base: string;
  /** The delta applied on reading, if any. */
  delta?: KeysDelta;
  record: KeyRecord;
}

/**
 * The delta that makes the base `read` was made from into `record`, where this run's spec is the read one with
 * `edit` made; undefined where the record must be written whole (no base to refer to, too many edits, a change
 * outside the operations' keys and the units).
 */
export function deltaAfter(
  read: ReadRecord,
  record: KeyRecord,
  { spec, patch, edit }: { spec: string; patch: StoredPatch; edit: SkeletonEdit },
): KeysDelta | undefined {
  const before = read.record;
  const edits = [...(read.delta?.edits ?? []), edit];
  if (edits.length > MAX_EDITS) return undefined;
  if (record.prelude !== before.prelude || record.context !== before.context) return undefined;
  if (record.operations.length !== before.operations.length) return undefined;
  const operations = new Map(read.delta?.operations);
  record.operations.forEach((key, index) => {
    if (key !== before.operations[index]) operations.set(index, key);
  });
  const units = { ...read.delta?.units };
  for (const [unit, entry] of Object.entries(record.units)) {
    const known = before.units[unit];
    if (!known || known[1] !== entry[1]) units[unit] = entry;
  }
  return {
    format: DELTA_FORMAT,
    base: read.base,
    spec,
    patch,
    complete: record.complete,
    edits,
    operations: [...operations],
    units,
  };
}

/** Writes `delta` beside its base (at once: see `saveKeys`). */
export function saveDelta(projectDir: string, delta: KeysDelta): void {
  replaceFileSync(join(projectDir, KEYS_DELTA_FILE), JSON.stringify(delta));
}
