/**
 * The per-operation model cache (`.guided-mcp/cache/model.json`): each
 * operation's finished model outcome (its tool draft, diagnostics and
 * credential notes) under the key src/cache/refs.ts computes from the parsed
 * document, plus the API-level prelude under its own key. Every key also
 * covers the code that computes them: the generator version, the bytes of the
 * generator's modules as installed (an unreleased edit invalidates too) and the
 * versions of the OpenAPI upgrader and the `$ref` resolver.
 *
 * Like the example cache, it only ever saves work: a missing, corrupt or
 * foreign file is an empty cache, and a hit is what this very code computed
 * from these very inputs.
 *
 * The file is read when something first asks for an entry, or at once unless the last save's record still
 * describes it (./model-record.ts): a regeneration after a text-only edit reads only what the record places.
 */
import { randomBytes } from "node:crypto";
import { readSync } from "node:fs";
import { join } from "node:path";
import type { OperationOutcome } from "../model/openapi.js";
import { codeFingerprint } from "./fingerprint.js";
import { parseOutcome } from "./lazy-outcome.js";
import { replaceFile, settleAll } from "./replace-file.js";
import {
  emptyEntries,
  emptyFile,
  encodeAhead,
  entryLines,
  headerText,
  FORMAT,
  readCacheFile,
  SECTIONS,
  stillAsRead,
  withFile,
  writeAll,
  writeChunked,
  type CacheSections,
  type Kept,
  type Piece,
  type Placed,
  type ReadFile,
  type Section,
  type Span,
  type Written,
} from "./model-cache-file.js";
import { describedRecord, describes, recordOf, saveRecord, type ModelRecord } from "./model-record.js";
import { plainOutcome } from "./plain-entries.js";

export type { CacheSections } from "./model-cache-file.js";
export const MODEL_CACHE_FILE = ".guided-mcp/cache/model.json";

/** The sections whose reuse is counted (see `stats`). */
type Counted = "operations" | "guidance";

/** A text-only edit as the record describes it (see `ModelCache.keepRecorded`). */
export interface RecordedEdit {
  /** The edited operation's place among the record's operations, its new key and its outcome. */
  index: number;
  key: string;
  outcome: OperationOutcome;
  /** Its tool's shape (unchanged: only texts changed) under the key its new entry gives it. */
  shapeKey: string;
  shape: string;
  /** How many tools' guidance is reused (every tool's). */
  tools: number;
}

export interface ModelCache {
  /** Fingerprint of the code that computes what is cached; part of every key. */
  readonly code: string;
  /** No entry came from an earlier run: everything will be computed (a cold run). */
  readonly fresh: boolean;
  /** The project folder the cache belongs to. */
  readonly projectDir: string;
  /** The id this run's save gives the file: a tools index saved beside it names it (src/cache/tool-texts.ts). */
  readonly saveId: string;
  /** The last save's record (./model-record.ts), when the file is still as that save left it. */
  readonly recorded: ModelRecord | undefined;
  /** Whether the file holds an entry for `key` (from the record, when it has one: the file is not read for this). */
  has(section: "preludes" | "operations", key: string): boolean;
  get<S extends Section>(section: S, key: string): CacheSections[S] | undefined;
  /**
   * The entry's JSON text as the file holds it, unparsed: for a caller that parses only the part it reads (see
   * src/cache/guidance-keys.ts). Every line read is whole (a last line without its end is dropped), so the text is
   * the writer's, unless someone edited the file.
   */
  text(section: Section, key: string): string | undefined;
  /** The JSON text of the entry whose line the record places at `span`, if the line there is that entry's. */
  recordedText(section: Placed, key: string, span: Span): string | undefined;
  /**
   * Records what this run used or computed; only these entries are saved. `json`: the value's JSON text, when the
   * caller has it at save time (else undefined, and the value is serialised).
   */
  keep<S extends Section>(section: S, key: string, value: CacheSections[S], json?: () => string | undefined): void;
  /** `keep` of the entry the file holds under `key`, as it is (a hit whose `text` the caller read). */
  keepAsRead(section: Section, key: string): void;
  /**
   * Whether the save after a text-only edit would append to the file the record describes, as the full path's would
   * (see `keepRecorded`); else it would rewrite the file, whose entries this run has not read.
   */
  recordedEditAppends(): boolean;
  /**
   * Keeps what the full path keeps after a text-only edit (src/cache/text-edit.ts), as the record describes the file:
   * every entry the last save kept, as it is, but the edited operation's and its tool's shape, replaced. Only when
   * `recordedEditAppends`, and nothing else was kept.
   */
  keepRecorded(edit: RecordedEdit): void;
  /** Operations' models / tools' guidance taken from an earlier run (hits) or computed (misses). */
  stats(section: Counted): { hits: number; misses: number };
  /** Something else to write when the entries are saved, under the given project root (the document's keys, see src/cache/key-table.ts). */
  alsoSave(write: (root: string) => Promise<void>): void;
  /**
   * Writes the kept entries, unless they are exactly what the file already holds. `root`: where the project is
   * being written, when not in `projectDir` itself (a fresh project's staging folder): the file is then made anew.
   */
  save(root?: string): Promise<void>;
  /**
   * Encodes the operation entries this run computed as the file will hold them, in batches while `more()` says
   * so, so that the save only copies them: done while the example worker still computes (the save is in the
   * run's serial tail).
   */
  serialiseAhead(more: () => boolean): void;
}

/**
 * Opens the project's model cache. With `readExisting` false the file is not read (see ./damaged.ts), and the next
 * save rewrites it.
 */
export function openModelCache(projectDir: string, generatorVersion: string, readExisting = true): ModelCache {
  const code = codeFingerprint(`model-cache ${FORMAT}\0generator ${generatorVersion}`, [
    "@scalar/openapi-upgrader",
    "@apidevtools/json-schema-ref-parser",
  ]);
  const file = join(projectDir, MODEL_CACHE_FILE);
  const saveId = randomBytes(8).toString("hex");
  const record = readExisting ? describedRecord(projectDir, file, code) : undefined;
  let read: ReadFile | undefined = readExisting ? (record ? undefined : readCacheFile(file, code)) : emptyFile();
  const previous = () => (read ??= readCacheFile(file, code)).entries;
  const kept: Kept = emptyEntries();
  const counts = { operations: { hits: 0, misses: 0 }, guidance: { hits: 0, misses: 0 } };
  const alsoSaved: Array<(root: string) => Promise<void>> = [];
  let edit: RecordedEdit | undefined;
  let recordedKeys: Set<string> | undefined;
  const keep = (section: Section, key: string, value: unknown, json?: () => string | undefined) => {
    if (edit) throw new Error("internal error: an entry kept beside a recorded edit");
    // A key stands for its value, so an entry read from the file is written back as it was.
    const known = previous()[section].get(key);
    if (section === "operations" || section === "guidance") counts[section][known === undefined ? "misses" : "hits"]++;
    // What this run computed waits for `save` as it is: a serialised copy would double Graph's ~100 MB for
    // the rest of the run. Nothing changes these values once made (later stages copy; see guidance-keys.ts).
    kept[section].set(key, known ?? (json ? { value, json } : { value }));
  };
  return {
    code,
    fresh: record ? record.lines === 0 : SECTIONS.every((section) => previous()[section].size === 0),
    projectDir,
    saveId,
    recorded: record,
    alsoSave: (write) => alsoSaved.push(write),
    has(section, key) {
      if (!record || read) return previous()[section].has(key);
      if (section === "preludes") return key === record.prelude;
      recordedKeys ??= new Set([...record.operations.map((operation) => operation[0]), ...record.stale]);
      return recordedKeys.has(key);
    },
    get(section, key) {
      const text = previous()[section].get(key);
      if (text === undefined) return undefined;
      try {
        return (
          section === "operations" ? parseOutcome(text, file) : JSON.parse(text)
        ) as CacheSections[typeof section];
      } catch {
        // A damaged entry (say, a file cut short) is a miss, and is not written back.
        previous()[section].delete(key);
        return undefined;
      }
    },
    text: (section, key) => previous()[section].get(key),
    recordedText: (section, key, span) =>
      record ? lineAt(file, record, code, `${section}\t${key}\t`, span) : undefined,
    keep,
    keepAsRead(section, key) {
      if (!previous()[section].has(key)) throw new Error(`internal error: no ${section} entry ${key} to keep`);
      keep(section, key, undefined);
    },
    recordedEditAppends: () => record !== undefined && appendsAfter(record),
    keepRecorded(edited) {
      if (!record || edit || SECTIONS.some((section) => kept[section].size > 0) || !appendsAfter(record))
        throw new Error("internal error: a recorded edit kept where it cannot be");
      edit = edited;
      kept.operations.set(edited.key, { value: edited.outcome });
      kept.shapes.set(edited.shapeKey, { value: edited.shape });
      counts.operations.hits += record.operations.length - 1;
      counts.operations.misses++;
      counts.guidance.hits += edited.tools;
    },
    stats: (section) => ({ ...counts[section] }),
    serialiseAhead: (more) => encodeAhead(kept.operations, more),
    async save(root = projectDir) {
      if (kept.operations.size === 0 && kept.guidance.size === 0) return;
      // The other files first: their writes go to the thread pool while this thread serialises the entries.
      const others = alsoSaved.map((write) => write(root));
      const ids = { code, saveId };
      const entries =
        edit && record
          ? Promise.resolve(appendEdit(projectDir, ids, record, edit, kept))
          : writeEntries(root === projectDir ? { file, read: read ?? emptyFile() } : undefined, root, ids, kept);
      await settleAll([...others, entries]);
    },
  };
}

/** The entry's JSON from the line at `span` of the file the record describes, if the line begins with `prefix`. */
function lineAt(file: string, record: ModelRecord, code: string, prefix: string, [start, end]: Span) {
  if (!(Number.isInteger(start) && Number.isInteger(end) && 0 < start && start + prefix.length <= end)) return;
  if (end > record.size) return undefined;
  try {
    return withFile(file, "r", (descriptor) => {
      if (!describes(descriptor, record, code)) return undefined;
      const bytes = Buffer.allocUnsafe(end - start);
      if (readSync(descriptor, bytes, 0, bytes.length, start) !== bytes.length) return undefined;
      const line = bytes.toString("latin1");
      return line.startsWith(prefix) && !line.includes("\n") ? line.slice(prefix.length) : undefined;
    });
  } catch {
    return undefined;
  }
}

/**
 * Whether a save after a text-only edit appends, as `writeEntries` decides for the full path's same entries: every
 * entry the record's save kept, as read, but the edited operation's and its tool's shape (two lines computed).
 */
function appendsAfter(record: ModelRecord): boolean {
  const shapes = record.operations.filter((operation) => operation.length === 5).length;
  const asRead = (record.prelude === null ? 0 : 1) + (record.operations.length - 1) + (shapes - 1) + record.guidance;
  return (record.lines - asRead) * 5 <= record.lines;
}

/** Where the header's id is (see `headerText`: the id last, then `"}`). */
function idOffset(code: string, id: string): number {
  return headerText(code, id).length - id.length - 2;
}

/**
 * Appends a text-only edit's two entries to the file the record describes, gives it this run's id, and records it;
 * nothing if another run changed the file meanwhile (it is then that run's, and the next run reads it in full).
 */
function appendEdit(
  projectDir: string,
  { code, saveId }: { code: string; saveId: string },
  record: ModelRecord,
  edit: RecordedEdit,
  kept: Kept,
): void {
  const written = withFile(join(projectDir, MODEL_CACHE_FILE), "r+", (descriptor) => {
    if (!describes(descriptor, record, code)) return undefined;
    const appended = writeChunked(descriptor, record.size, entryLines(kept, true));
    writeAll(descriptor, Buffer.from(saveId, "latin1"), idOffset(code, saveId));
    return appended;
  });
  const operation = written?.spans.operations.get(edit.key);
  const shape = written?.spans.shapes.get(edit.shapeKey);
  if (!written || !operation || !shape) return;
  const operations = record.operations.slice();
  const replaced = operations[edit.index]!;
  operations[edit.index] = [edit.key, operation[0], operation[1], shape[0], shape[1]];
  saveRecord(projectDir, {
    ...record,
    id: saveId,
    size: written.end,
    lines: record.lines + 2,
    operations,
    stale: [...record.stale, replaced[0]].sort(),
    plain: record.plain && plainOutcome(edit.outcome) === "tool",
  });
}

/**
 * Appends what this run computed to the file read (`at`), or rewrites it with what it kept, into `root`; then
 * records it (a fresh project's staging folder gets no record: its first regeneration reads everything anyway).
 */
async function writeEntries(
  at: { file: string; read: ReadFile } | undefined,
  root: string,
  { code, saveId }: { code: string; saveId: string },
  kept: Kept,
) {
  let total = 0;
  let computed = 0;
  for (const section of SECTIONS)
    for (const json of kept[section].values()) {
      total++;
      if (typeof json !== "string") computed++;
    }
  const read = at?.read;
  const stale = read ? read.lines - (total - computed) : 0;
  // Few stale lines: the file stays, and only what this run computed is appended (GitHub's cache is 7.5 MB
  // and a summary edit adds one entry); beyond a fifth, it is rewritten with exactly the kept entries.
  if (at && read?.appendable && stale * 5 <= read.lines && stillAsRead(at.file, read.appendable)) {
    // A later line for a key replaces an earlier one when read, and a key always stands for the same value, so
    // appending never changes what an earlier entry means. A run cut short leaves a last line without its end:
    // its JSON does not parse (every value is an object), so that one entry misses, and the next save rewrites
    // the file (see `readCacheFile`). The new id goes in last: until then the file matches no record.
    const { size } = read.appendable;
    const written = withFile(at.file, "r+", (descriptor) => {
      const appended = writeChunked(descriptor, size, entryLines(kept, true));
      writeAll(descriptor, Buffer.from(saveId, "latin1"), idOffset(code, saveId));
      return appended;
    });
    // (Sorted: a run that appends after a text-only edit adds its replaced key to the record's, and gets the same.)
    const staleKeys = [...read.entries.operations.keys()].filter((key) => !kept.operations.has(key)).sort();
    const file = { code, id: saveId, size: written.end, lines: read.lines + computed, stale: staleKeys };
    const record = recordOf(
      file,
      kept,
      (section, key) => written.spans[section].get(key) ?? readSpan(read, section, key),
    );
    if (record) saveRecord(root, record);
    return;
  }
  const target = join(root, MODEL_CACHE_FILE);
  const made: { written?: Written } = {};
  await replaceFile(target, async (temporary) => {
    made.written = withFile(temporary, "w", (descriptor) =>
      writeChunked(descriptor, 0, fileLines(headerText(code, saveId), kept)),
    );
  });
  if (!at || !made.written) return;
  const { spans, end } = made.written;
  const record = recordOf({ code, id: saveId, size: end, lines: total, stale: [] }, kept, (section, key) =>
    spans[section].get(key),
  );
  if (record) saveRecord(root, record);
}

function* fileLines(header: string, kept: Kept): Generator<Piece> {
  yield `${header}\n`;
  yield* entryLines(kept, false);
}

/** Where the file read holds the line of `key` (see `ReadFile.starts`). */
function readSpan(read: ReadFile, section: Placed, key: string): Span | undefined {
  const start = read.starts[section].get(key);
  const text = read.entries[section].get(key);
  return start === undefined || text === undefined
    ? undefined
    : [start, start + section.length + key.length + 2 + text.length];
}
