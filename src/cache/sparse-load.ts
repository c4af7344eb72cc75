/**
 * A regeneration's spec, loaded before the model stage: when the last run's
 * record (src/cache/key-table.ts) shows that the spec changed inside one
 * operation object at most, only what the regeneration reads is parsed
 * (src/cache/sparse-document.ts); src/cache/incremental.ts then keys and models
 * from the record, and parses the whole text only where it must fall back.
 */
import {
  isUrl,
  jsonNestingWithin,
  loadSpec,
  MAX_NESTING,
  parseSpecFile,
  readSpecFileAhead,
  type LoadedSpec,
  type SpecFile,
} from "../load/index.js";
import type { ModelOptions } from "../model/openapi.js";
import type { ModelCache } from "./model-cache.js";
import {
  editSince,
  keysFilePath,
  previousLength,
  previousKeysFor,
  readKeyRecord,
  type PreviousKeys,
  type SpecEdit,
} from "./key-table.js";
import { takeAhead } from "../load/read-ahead.js";
import { fitsSkeleton, scanSkeleton, sparseDocument, type Skeleton } from "./sparse-document.js";
import { moveSkeletonBy } from "./sparse-moves.js";

/** What a regeneration found before parsing its spec: the last run's record, and the edit since. */
export interface Regeneration {
  file: SpecFile;
  previous: PreviousKeys;
  edit: SpecEdit;
  salt: string;
  /** Where the new spec's members lie: for the next run's record. */
  skeleton: Skeleton;
}
const regenerations = new WeakMap<LoadedSpec, Regeneration>();

/** What `loadSpecCached` found for a spec it loaded sparsely. */
export function regenerationOf(loaded: LoadedSpec): Regeneration | undefined {
  return regenerations.get(loaded);
}

/**
 * Loads the spec for `buildModelCached`. A regeneration whose spec is the last run's with at most one operation
 * object changed (src/cache/key-table.ts) parses only what it reads (src/cache/sparse-document.ts): the new
 * document is the last one, which parsed and passed the nesting check, with that object replaced; so only the
 * object's own nesting is checked here. Anything else is read and parsed in full, as `loadSpec` does.
 */
export async function loadSpecCached(
  source: string,
  options: ModelOptions,
  cache: ModelCache | undefined,
): Promise<LoadedSpec> {
  if (!cache || isUrl(source)) return loadSpec(source);
  if (cache.fresh) return parseSpecFile(await readSpecFileAhead(source));
  const salt = `${cache.code}\0file\0${options.name ?? ""}`;
  // The record first, from its bytes read ahead with the spec (src/write/previous.ts `readRegenerationAhead`): it is
  // parsed while the thread pool is still reading the spec (GitHub: 830 KB against 7 MB), which needs the spec's hash.
  const recorded = readKeyRecord(cache.projectDir, salt, await takeAhead(keysFilePath(cache.projectDir)));
  const file = await readSpecFileAhead(source);
  const previous = file.textHash && recorded ? previousKeysFor(recorded, file.textHash) : undefined;
  // A record whose unreached `$ref`s were never checked needs the whole document once (see `keysOf`).
  const edit = previous?.record.complete ? editSince(previous, file.bytes) : undefined;
  const skeleton = edit && withinNesting(file.bytes, edit) ? skeletonOf(file.bytes, previous!, edit) : undefined;
  if (!previous || !edit || !skeleton) return parseSpecFile(file);
  const loaded = lazilyDecoded(file, sparseDocument(file.bytes, skeleton));
  regenerations.set(loaded, { file, previous, edit, salt, skeleton });
  return loaded;
}

/**
 * Where the new spec's members lie: the last run's skeleton, its members after the edited operation moved by the
 * difference in length, when the record has one (checked against the bytes: undefined if it does not fit); else
 * one scan of the bytes.
 */
function skeletonOf(bytes: Buffer, previous: PreviousKeys, edit: SpecEdit): Skeleton | undefined {
  if (!previous.skeleton) return scanSkeleton(bytes);
  const { skeleton: before } = previous;
  if (edit === "unchanged") return fitsSkeleton(bytes, before) ? before : undefined;
  // (An edit was found by comparing with the recorded bytes, so they were read or stamped.)
  const length = previousLength(previous);
  if (length === undefined) return undefined;
  // (The record was parsed for this run alone: its skeleton is moved in place.)
  const skeleton = moveSkeletonBy(before, [[edit.start, edit.end - (bytes.length - length), edit.end - edit.start]]);
  return fitsSkeleton(bytes, skeleton) ? skeleton : undefined;
}

/** Whether the edited operation nests no deeper than the document may (it sits 3 levels down: paths, path item). */
function withinNesting(bytes: Buffer, edit: SpecEdit): boolean {
  return edit === "unchanged" || jsonNestingWithin(bytes.toString("utf8", edit.start, edit.end), MAX_NESTING - 3);
}

/** A loaded spec whose text is decoded only if something reads it (the full pipeline, should it be needed). */
function lazilyDecoded(file: SpecFile, document: unknown): LoadedSpec {
  let text: string | undefined;
  const { source, location, bytes, textHash } = file;
  return withText(
    { source, location, ...(textHash ? { textHash } : {}), bytes, document },
    () => (text ??= bytes.toString("utf8")),
  );
}

/** `spec` with a `text` read from `text()` when first used (a spread would decode it). */
export function withText(spec: Omit<LoadedSpec, "text">, text: () => string): LoadedSpec {
  return Object.defineProperty(spec, "text", { get: text, enumerable: false, configurable: true }) as LoadedSpec;
}
