/**
 * The model cache's file (`.guided-mcp/cache/model.json`, see ./model-cache.ts): one JSON header line, then one line
 * per entry, `section <tab> key <tab> JSON` (JSON text never holds a raw tab or newline), all ASCII. The header
 * holds the format, the code fingerprint and an id that every save changes (see ./model-record.ts).
 */
import { isAscii } from "node:buffer";
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync, writeSync } from "node:fs";
import type { Diagnostic, ToolGuidance } from "../model/ir.js";
import type { OpenApiPrelude, OperationOutcome } from "../model/openapi.js";
import { outcomePieces } from "./lazy-outcome.js";
import { schemaJson } from "./schema-texts.js";

/**
 * Bump when the file layout changes (4: ASCII only, see `asciiText`; 5: the `shapes` section; 6: an operation's
 * response schema after a tab, see lazy-outcome.ts; 7: the header's id).
 */
export const FORMAT = 7;

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
export type Section = keyof CacheSections;
export const SECTIONS: Section[] = ["preludes", "operations", "guidance", "shapes"];
/** The sections whose lines the record places (see ./model-record.ts). */
export type Placed = "operations" | "shapes";

/** Entries as JSON text: parsed only when used, and written back as they were read. */
export type Entries = Record<Section, Map<string, string>>;
/** What this run keeps: JSON text, or a value serialised only when saved (see `ModelCache.keep`). */
export type Kept = Record<Section, Map<string, string | Computed>>;
/** An entry this run computed; `bytes`: its JSON as the file holds it, when made ahead (see `encodeAhead`). */
export type Computed = { value: unknown; json?: () => string | undefined; bytes?: Buffer };
/** Where a line is in the file: [start, end) of `section <tab> key <tab> JSON`, its newline excluded. */
export type Span = [start: number, end: number];

export function emptyEntries(): Entries {
  return { preludes: new Map(), operations: new Map(), guidance: new Map(), shapes: new Map() };
}

/** The header line's text (without its newline). The id is 16 hex digits, last, so that a save can replace it in place. */
export function headerText(code: string, id: string): string {
  return JSON.stringify({ format: FORMAT, code, id });
}

/** The header's id, if the file is one of this format and code (read from its first bytes). */
export function headerId(descriptor: number, code: string): string | undefined {
  const bytes = Buffer.alloc(256);
  const length = readSync(descriptor, bytes, 0, bytes.length, 0);
  const end = bytes.indexOf(0x0a);
  if (end < 0 || end >= length) return undefined;
  try {
    const header = JSON.parse(bytes.toString("latin1", 0, end)) as { format?: unknown; code?: unknown; id?: unknown };
    return header.format === FORMAT && header.code === code && typeof header.id === "string" ? header.id : undefined;
  } catch {
    return undefined;
  }
}

/** What the file held: its entries, how many entry lines (a replaced entry's earlier line counts), and whether lines can be appended to it. */
export interface ReadFile {
  entries: Entries;
  lines: number;
  /** Size and time of a whole file of this code's format, ending with a complete line; absent otherwise. */
  appendable?: { size: number; mtimeMs: number };
  /** Where each operation's and shape's line begins (see `Span`). */
  starts: Record<Placed, Map<string, number>>;
}

/** What a missing file holds (never appended to). */
export function emptyFile(): ReadFile {
  return { entries: emptyEntries(), lines: 0, starts: { operations: new Map(), shapes: new Map() } };
}

export function readCacheFile(file: string, code: string): ReadFile {
  const empty = emptyFile();
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
    // line is left out, so that every entry holds the text its writer wrote whole (see `ModelCache.text`).
    const whole = bytes.length === size && bytes[bytes.length - 1] === 0x0a;
    const { entries, starts } = empty;
    let count = 0;
    // Each line that ends with a newline, found in the text itself: no array of lines, no string per line
    // (`split` and a slice of each line: ≈ 2.4 ms on GitHub, in fresh processes; this ≈ 1.3 ms).
    for (let start = headerEnd + 1, end = text.indexOf("\n", start); headerEnd >= 0 && end >= 0;) {
      if (end > start) {
        // `section <tab> key <tab> JSON`, found with two searches within the line.
        const keyTab = text.indexOf("\t", start);
        const jsonTab = keyTab < 0 || keyTab > end ? -1 : text.indexOf("\t", keyTab + 1);
        if (jsonTab < 0 || jsonTab > end) return emptyFile();
        const section = text.slice(start, keyTab) as Section;
        if (!SECTIONS.includes(section)) return emptyFile();
        const key = text.slice(keyTab + 1, jsonTab);
        entries[section].set(key, text.slice(jsonTab + 1, end));
        if (section === "operations" || section === "shapes") starts[section].set(key, start);
        count++;
      }
      start = end + 1;
      end = text.indexOf("\n", start);
    }
    return { entries, lines: count, starts, ...(whole ? { appendable: { size, mtimeMs } } : {}) };
  } catch {
    return emptyFile();
  }
}

/** Whether the file is still the one this run read, so appending to it is safe (another run may have replaced it). */
export function stillAsRead(path: string, read: { size: number; mtimeMs: number }): boolean {
  try {
    // Synchronously: one short system call, where a trip through the thread pool waited behind its other work.
    const now = statSync(path);
    return now.size === read.size && now.mtimeMs === read.mtimeMs;
  } catch {
    return false;
  }
}

/** Placed before an operation's or shape's line among the pieces written, so that the writer notes its span. */
export interface LineMark {
  section: Placed;
  key: string;
}
export type Piece = string | Buffer | LineMark;

/**
 * The lines of the kept entries (`onlyComputed`: of those this run computed), as pieces of text. An entry this run
 * computed is serialised only here, just before it is written, so its text is garbage at once: holding every new
 * entry's JSON until the write (Graph's ≈ 100 MB) made the collector copy and promote it.
 */
export function* entryLines(kept: Kept, onlyComputed: boolean): Generator<Piece> {
  for (const section of SECTIONS)
    for (const [key, json] of kept[section]) {
      if (onlyComputed && typeof json === "string") continue;
      if (section === "operations" || section === "shapes") yield { section, key };
      yield `${section}\t${key}\t`;
      if (typeof json === "string") yield json;
      // A schema's text may have been made already, for its tool's shape (see ./schema-texts.ts).
      else if (json.bytes) yield json.bytes;
      else if (section === "operations") yield* outcomePieces(json.value as OperationOutcome, schemaJson);
      else yield json.json?.() ?? JSON.stringify(json.value);
      yield "\n";
    }
}

/** Where a write put the marked lines, and where it ended. */
export interface Written {
  end: number;
  spans: Record<Placed, Map<string, Span>>;
}

interface Out {
  descriptor: number;
  chunk: Buffer;
  used: number;
  /** The file offset of the chunk's first byte. */
  position: number;
}

/**
 * Writes the text `pieces` as ASCII (see `asciiText`) into the open file from offset `start`, copied into a 1 MB
 * buffer written whenever full, noting each marked line's span. Synchronously: each asynchronous write was a trip
 * through the thread pool with this thread idle (GitHub's 7.5 MB: ≈ 30 ms), and the other caches' files are written
 * on the pool meanwhile. Each piece goes into the buffer as it is (joining them into chunk strings first made V8
 * flatten and copy every byte once more).
 */
export function writeChunked(descriptor: number, start: number, pieces: Iterable<Piece>): Written {
  const out: Out = { descriptor, chunk: Buffer.allocUnsafe(CHUNK), used: 0, position: start };
  const spans: Written["spans"] = { operations: new Map(), shapes: new Map() };
  let line: { mark: LineMark; start: number } | undefined;
  for (const piece of pieces) {
    if (typeof piece === "string") {
      // A line's newline ends the marked line, if one is open.
      if (line && piece === "\n") {
        spans[line.mark.section].set(line.mark.key, [line.start, out.position + out.used]);
        line = undefined;
      }
      putText(out, piece);
    } else if (Buffer.isBuffer(piece)) copyBytes(out, piece);
    else line = { mark: piece, start: out.position + out.used };
  }
  flush(out);
  return { end: out.position, spans };
}

/** One piece of text into the buffer, escaped to ASCII where it is not. */
function putText(out: Out, piece: string): void {
  // Room for three bytes a character, so that the UTF-8 write below is never cut short.
  if (out.used + 3 * piece.length > CHUNK) flush(out);
  if (3 * piece.length > CHUNK) {
    const bytes = Buffer.from(piece, "utf8");
    writeAt(out, bytes.length === piece.length ? bytes : Buffer.from(asciiText(piece), "latin1"));
    return;
  }
  // One pass for nearly every piece: as many bytes as characters means all of them were ASCII. (Measuring the
  // UTF-8 length first, then copying, read every piece twice: ≈ 3 ms of Stripe's 5 MB.)
  const written = out.chunk.write(piece, out.used, "utf8");
  if (written === piece.length) {
    out.used += written;
    return;
  }
  const ascii = asciiText(piece);
  if (out.used + ascii.length > CHUNK) flush(out);
  if (ascii.length > CHUNK) writeAt(out, Buffer.from(ascii, "latin1"));
  else out.used += out.chunk.write(ascii, out.used, "latin1");
}

const CHUNK = 1 << 20;

/** Bytes encoded ahead (see `encodeAhead`), into the buffer, or written as they are when larger than it. */
function copyBytes(out: Out, bytes: Buffer): void {
  if (out.used + bytes.length > CHUNK) flush(out);
  if (bytes.length > CHUNK) writeAt(out, bytes);
  else out.used += bytes.copy(out.chunk, out.used);
}

function flush(out: Out): void {
  writeAt(out, out.chunk.subarray(0, out.used));
  out.used = 0;
}

/** Writes `bytes` at the buffer's place (the buffer is empty: callers flush first). */
function writeAt(out: Out, bytes: Buffer): void {
  writeAll(out.descriptor, bytes, out.position);
  out.position += bytes.length;
}

export function writeAll(descriptor: number, bytes: Buffer, position: number): void {
  for (let written = 0; written < bytes.length;)
    written += writeSync(descriptor, bytes, written, bytes.length - written, position + written);
}

/** Above this many computed operations nothing is encoded ahead: Microsoft Graph's ≈ 100 MB would be held. */
const MAX_AHEAD = 5_000;
/** Entries encoded between two asks of `more` (Stripe: ≈ 0.5 ms). */
const BATCH = 32;

/** Encodes each computed entry's JSON as `writeChunked` would write it (ASCII only), while `more()` says so. */
export function encodeAhead(entries: Map<string, string | Computed>, more: () => boolean): void {
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

/**
 * JSON text with every non-ASCII character escaped (`\u00e9`), which parses to the same value: the file holds
 * ASCII only (see `writeChunked`). It is read as one-byte Latin-1 text: V8 holds it in half the memory, and
 * decoding, splitting and parsing it take about half the time (GitHub's 62 non-ASCII characters made all 7.5 MB a
 * two-byte string).
 */
function asciiText(json: string): string {
  return json.replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** The open file's descriptor for `run`, closed after it. */
export function withFile<T>(path: string, flags: string, run: (descriptor: number) => T): T {
  const descriptor = openSync(path, flags);
  try {
    return run(descriptor);
  } finally {
    closeSync(descriptor);
  }
}
