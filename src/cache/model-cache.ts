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
 */
import { isAscii } from "node:buffer";
import { closeSync, existsSync, openSync, readFileSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { Diagnostic, ToolGuidance } from "../model/ir.js";
import type { OpenApiPrelude, OperationOutcome } from "../model/openapi.js";
import { codeFingerprint } from "./fingerprint.js";
import { outcomePieces, parseOutcome } from "./lazy-outcome.js";
import { schemaJson } from "./schema-texts.js";
import { replaceFile, settleAll } from "./replace-file.js";

export const MODEL_CACHE_FILE = ".guided-mcp/cache/model.json";
/**
 * Bump when the file layout changes (4: ASCII only, see `asciiText`; 5: the `shapes` section; 6: an operation's
 * response schema after a tab, see lazy-outcome.ts).
 */
const FORMAT = 6;

/**
 * What the file holds, by key: the API-level prelude, each operation's model outcome, each tool's guidance, and
 * each tool's shape hash (src/cache/guidance-keys.ts) by the operation entry and name it was made from.
 */
export interface CacheSections {
  preludes: OpenApiPrelude;
  operations: OperationOutcome;
  guidance: { guidance: ToolGuidance; diagnostics: Diagnostic[] };
  shapes: string;
}
type Section = keyof CacheSections;
const SECTIONS: Section[] = ["preludes", "operations", "guidance", "shapes"];

/** Entries as JSON text: parsed only when used, and written back as they were read. */
type Entries = Record<Section, Map<string, string>>;
/** The sections whose reuse is counted (see `stats`). */
type Counted = "operations" | "guidance";
/** What this run keeps: JSON text, or a value serialised only when saved (see `keep`). */
type Kept = Record<Section, Map<string, string | Computed>>;
/** An entry this run computed; `bytes`: its JSON as the file holds it, when made ahead (see `serialiseAhead`). */
type Computed = { value: unknown; json?: () => string | undefined; bytes?: Buffer };

export interface ModelCache {
  /** Fingerprint of the code that computes what is cached; part of every key. */
  readonly code: string;
  /** No entry came from an earlier run: everything will be computed (a cold run). */
  readonly fresh: boolean;
  /** The project folder the cache belongs to. */
  readonly projectDir: string;
  get<S extends Section>(section: S, key: string): CacheSections[S] | undefined;
  /**
   * The entry's JSON text as the file holds it, unparsed: for a caller that parses only the part it reads (see
   * src/cache/guidance-keys.ts). Every line read is whole (a last line without its end is dropped), so the text is
   * the writer's, unless someone edited the file.
   */
  text(section: Section, key: string): string | undefined;
  /**
   * Records what this run used or computed; only these entries are saved. `json`: the value's JSON text, when the
   * caller has it at save time (else undefined, and the value is serialised).
   */
  keep<S extends Section>(section: S, key: string, value: CacheSections[S], json?: () => string | undefined): void;
  /** `keep` of the entry the file holds under `key`, as it is (a hit whose `text` the caller read). */
  keepAsRead(section: Section, key: string): void;
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
 * Opens the project's model cache. The file is one JSON header line, then one
 * line per entry: `section <tab> key <tab> JSON` (JSON text never holds a raw
 * tab or newline). With `readExisting` false the file is not read (see
 * ./damaged.ts), and the next save rewrites it.
 */
export function openModelCache(projectDir: string, generatorVersion: string, readExisting = true): ModelCache {
  const code = codeFingerprint(`model-cache ${FORMAT}\0generator ${generatorVersion}`, [
    "@scalar/openapi-upgrader",
    "@apidevtools/json-schema-ref-parser",
  ]);
  const file = join(projectDir, MODEL_CACHE_FILE);
  const read = readExisting ? readCacheFile(file, code) : { entries: emptyEntries(), lines: 0 };
  const previous = read.entries;
  const kept: Kept = emptyEntries();
  const counts = { operations: { hits: 0, misses: 0 }, guidance: { hits: 0, misses: 0 } };
  const alsoSaved: Array<(root: string) => Promise<void>> = [];
  const keep = (section: Section, key: string, value: unknown, json?: () => string | undefined) => {
    // A key stands for its value, so an entry read from the file is written back as it was.
    const known = previous[section].get(key);
    if (section === "operations" || section === "guidance") counts[section][known === undefined ? "misses" : "hits"]++;
    // What this run computed waits for `save` as it is: a serialised copy would double Graph's ~100 MB for
    // the rest of the run. Nothing changes these values once made (later stages copy; see guidance-keys.ts).
    kept[section].set(key, known ?? (json ? { value, json } : { value }));
  };
  return {
    code,
    fresh: SECTIONS.every((section) => previous[section].size === 0),
    projectDir,
    alsoSave: (write) => alsoSaved.push(write),
    get(section, key) {
      const text = previous[section].get(key);
      if (text === undefined) return undefined;
      try {
        return (
          section === "operations" ? parseOutcome(text, file) : JSON.parse(text)
        ) as CacheSections[typeof section];
      } catch {
        // A damaged entry (say, a file cut short) is a miss, and is not written back.
        previous[section].delete(key);
        return undefined;
      }
    },
    text: (section, key) => previous[section].get(key),
    keep,
    keepAsRead(section, key) {
      if (!previous[section].has(key)) throw new Error(`internal error: no ${section} entry ${key} to keep`);
      keep(section, key, undefined);
    },
    stats: (section) => ({ ...counts[section] }),
    serialiseAhead: (more) => encodeAhead(kept.operations, more),
    async save(root = projectDir) {
      if (kept.operations.size === 0 && kept.guidance.size === 0) return;
      // The other files first: their writes go to the thread pool while this thread serialises the entries.
      const others = alsoSaved.map((write) => write(root));
      const target = root === projectDir ? { file, read } : { file: join(root, MODEL_CACHE_FILE), read: EMPTY };
      await settleAll([...others, writeEntries(target.file, target.read, code, kept)]);
    },
  };
}

/** Appends what this run computed, or rewrites the file with what it kept (see `save`). */
async function writeEntries(file: string, read: ReadFile, code: string, kept: Kept) {
  let total = 0;
  let computed = 0;
  for (const section of SECTIONS)
    for (const json of kept[section].values()) {
      total++;
      if (typeof json !== "string") computed++;
    }
  const stale = read.lines - (total - computed);
  // Few stale lines: the file stays, and only what this run computed is appended (GitHub's cache is 7.5 MB
  // and a summary edit adds one entry); beyond a fifth, it is rewritten with exactly the kept entries.
  if (read.appendable && stale * 5 <= read.lines && stillAsRead(file, read.appendable)) {
    // A later line for a key replaces an earlier one when read, and a key always stands for the same value, so
    // appending never changes what an earlier entry means. A run cut short leaves a last line without its end:
    // its JSON does not parse (every value is an object), so that one entry misses, and the next save rewrites
    // the file (see `readCacheFile`).
    if (computed > 0) writeChunked(file, "a", entryLines(kept, true));
    return;
  }
  const header = JSON.stringify({ format: FORMAT, code });
  await replaceFile(file, async (temporary) => writeChunked(temporary, "w", fileLines(header, kept)));
}

function* fileLines(header: string, kept: Kept): Generator<string | Buffer> {
  yield `${header}\n`;
  yield* entryLines(kept, false);
}

/**
 * The lines of the kept entries (`onlyComputed`: of those this run computed), as pieces of text. An entry this run
 * computed is serialised only here, just before it is written, so its text is garbage at once: holding every new
 * entry's JSON until the write (Graph's ≈ 100 MB) made the collector copy and promote it.
 */
function* entryLines(kept: Kept, onlyComputed: boolean): Generator<string | Buffer> {
  for (const section of SECTIONS)
    for (const [key, json] of kept[section]) {
      if (onlyComputed && typeof json === "string") continue;
      yield `${section}\t${key}\t`;
      if (typeof json === "string") yield json;
      // A schema's text may have been made already, for its tool's shape (see ./schema-texts.ts).
      else if (json.bytes) yield json.bytes;
      else if (section === "operations") yield* outcomePieces(json.value as OperationOutcome, schemaJson);
      else yield json.json?.() ?? JSON.stringify(json.value);
      yield "\n";
    }
}

/**
 * Writes (`w`) or appends (`a`) the text `pieces` as ASCII (see `asciiText`), copied into a 1 MB buffer written
 * whenever full. Synchronously: each asynchronous write was a trip through the thread pool with this thread idle
 * (GitHub's 7.5 MB: ≈ 30 ms), and the other caches' files are written on the pool meanwhile. Each piece goes into
 * the buffer as it is (joining them into chunk strings first made V8 flatten and copy every byte once more).
 */
function writeChunked(path: string, flags: "w" | "a", pieces: Iterable<string | Buffer>): void {
  const descriptor = openSync(path, flags);
  try {
    const out = { descriptor, chunk: Buffer.allocUnsafe(CHUNK), used: 0 };
    for (const piece of pieces) {
      if (typeof piece !== "string") {
        copyBytes(out, piece);
        continue;
      }
      // Room for three bytes a character, so that the UTF-8 write below is never cut short.
      if (out.used + 3 * piece.length > CHUNK) flush(out);
      if (3 * piece.length > CHUNK) {
        const bytes = Buffer.from(piece, "utf8");
        writeAll(descriptor, bytes.length === piece.length ? bytes : Buffer.from(asciiText(piece), "latin1"));
        continue;
      }
      // One pass for nearly every piece: as many bytes as characters means all of them were ASCII. (Measuring the
      // UTF-8 length first, then copying, read every piece twice: ≈ 3 ms of Stripe's 5 MB.)
      const written = out.chunk.write(piece, out.used, "utf8");
      if (written === piece.length) {
        out.used += written;
        continue;
      }
      const ascii = asciiText(piece);
      if (out.used + ascii.length > CHUNK) flush(out);
      if (ascii.length > CHUNK) writeAll(descriptor, Buffer.from(ascii, "latin1"));
      else out.used += out.chunk.write(ascii, out.used, "latin1");
    }
    flush(out);
  } finally {
    closeSync(descriptor);
  }
}

const CHUNK = 1 << 20;

/** Bytes encoded ahead (see `encodeAhead`), into the buffer, or written as they are when larger than it. */
function copyBytes(out: { descriptor: number; chunk: Buffer; used: number }, bytes: Buffer): void {
  if (out.used + bytes.length > CHUNK) flush(out);
  if (bytes.length > CHUNK) writeAll(out.descriptor, bytes);
  else out.used += bytes.copy(out.chunk, out.used);
}

/** Above this many computed operations nothing is encoded ahead: Microsoft Graph's ≈ 100 MB would be held. */
const MAX_AHEAD = 5_000;
/** Entries encoded between two asks of `more` (Stripe: ≈ 0.5 ms). */
const BATCH = 32;

/** Encodes each computed entry's JSON as `writeChunked` would write it (ASCII only), while `more()` says so. */
function encodeAhead(entries: Map<string, string | Computed>, more: () => boolean): void {
  if (entries.size > MAX_AHEAD) return;
  const slab = { bytes: Buffer.allocUnsafe(0), used: 0 };
  let count = 0;
  for (const entry of entries.values()) {
    if (typeof entry === "string" || entry.bytes) continue;
    if (count++ % BATCH === 0 && !more()) return;
    const pieces = [...outcomePieces(entry.value as OperationOutcome, schemaJson)];
    // Room for three bytes a character (see `writeChunked`), in 1 MB slabs that the entries' bytes share.
    const room = 3 * pieces.reduce((sum, piece) => sum + piece.length, 0);
    if (slab.used + room > slab.bytes.length) {
      slab.bytes = Buffer.allocUnsafe(Math.max(CHUNK, room));
      slab.used = 0;
    }
    const start = slab.used;
    for (const piece of pieces) {
      const written = slab.bytes.write(piece, slab.used, "utf8");
      slab.used += written === piece.length ? written : slab.bytes.write(asciiText(piece), slab.used, "latin1");
    }
    entry.bytes = slab.bytes.subarray(start, slab.used);
  }
}

function flush(out: { descriptor: number; chunk: Buffer; used: number }): void {
  writeAll(out.descriptor, out.chunk.subarray(0, out.used));
  out.used = 0;
}

function writeAll(descriptor: number, bytes: Buffer): void {
  for (let written = 0; written < bytes.length;) written += writeSync(descriptor, bytes, written);
}

/** Whether the file is still the one this run read, so appending to it is safe (another run may have replaced it). */
function stillAsRead(path: string, read: { size: number; mtimeMs: number }): boolean {
  try {
    // Synchronously: one short system call, where a trip through the thread pool waited behind its other work.
    const now = statSync(path);
    return now.size === read.size && now.mtimeMs === read.mtimeMs;
  } catch {
    return false;
  }
}

/**
 * JSON text with every non-ASCII character escaped (`\u00e9`), which parses to the same value: the file holds
 * ASCII only (see `writeChunked`). It is read as one-byte Latin-1 text: V8 holds it in half the memory, and
 * decoding, splitting and parsing it take about half the time (GitHub's 62 non-ASCII characters made all 7.5 MB a
 * two-byte string).
 */
function asciiText(json: string): string {
  return json.replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

function emptyEntries(): Entries {
  return { preludes: new Map(), operations: new Map(), guidance: new Map(), shapes: new Map() };
}

/** What the file held: its entries, how many entry lines (a replaced entry's earlier line counts), and whether lines can be appended to it. */
interface ReadFile {
  entries: Entries;
  lines: number;
  /** Size and time of a whole file of this code's format, ending with a complete line; absent otherwise. */
  appendable?: { size: number; mtimeMs: number };
}

/** What a missing file holds (never appended to). */
const EMPTY: ReadFile = { entries: emptyEntries(), lines: 0 };

function readCacheFile(file: string, code: string): ReadFile {
  const empty = { entries: emptyEntries(), lines: 0 };
  if (!existsSync(file)) return empty;
  try {
    const { size, mtimeMs } = statSync(file);
    const bytes = readFileSync(file);
    // The writer escapes everything else (see `asciiText`): any other byte is damage.
    if (!isAscii(bytes)) return empty;
    const text = bytes.toString("latin1");
    const headerEnd = text.indexOf("\n");
    const header = JSON.parse(headerEnd < 0 ? text : text.slice(0, headerEnd)) as { format?: unknown; code?: unknown };
    if (header.format !== FORMAT || header.code !== code) return empty;
    // A file cut short (no final newline) is rewritten rather than appended to: its last line is incomplete. That
    // line is left out, so that every entry holds the text its writer wrote whole (see `text`).
    const whole = bytes.length === size && bytes[bytes.length - 1] === 0x0a;
    const entries = emptyEntries();
    let count = 0;
    // Each line that ends with a newline, found in the text itself: no array of lines, no string per line
    // (`split` and a slice of each line: ≈ 2.4 ms on GitHub, in fresh processes; this ≈ 1.3 ms).
    for (let start = headerEnd + 1, end = text.indexOf("\n", start); headerEnd >= 0 && end >= 0;) {
      if (end > start) {
        // `section <tab> key <tab> JSON`, found with two searches within the line.
        const keyTab = text.indexOf("\t", start);
        const jsonTab = keyTab < 0 || keyTab > end ? -1 : text.indexOf("\t", keyTab + 1);
        if (jsonTab < 0 || jsonTab > end) return empty;
        const section = text.slice(start, keyTab) as Section;
        if (!SECTIONS.includes(section)) return empty;
        entries[section].set(text.slice(keyTab + 1, jsonTab), text.slice(jsonTab + 1, end));
        count++;
      }
      start = end + 1;
      end = text.indexOf("\n", start);
    }
    return { entries, lines: count, ...(whole ? { appendable: { size, mtimeMs } } : {}) };
  } catch {
    return empty;
  }
}
