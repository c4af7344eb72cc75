/**
 * Stage 1 — load: read a spec from a file path or an http(s) URL and parse
 * YAML or JSON. A malformed document is reported with file, line and column.
 */
import { isUtf8 } from "node:buffer";
import { readFileSync } from "node:fs";
import { resolve as resolvePath } from "node:path";
import { pathToFileURL } from "node:url";
import { escapePointerToken, GeneratorError } from "../diagnostics.js";
import { hashContent } from "../write/hash.js";
import { takeAhead } from "./read-ahead.js";
import { yamlParser } from "./yaml.js";

export interface LoadedSpec {
  /** What the user passed: a path or URL. */
  source: string;
  /** Absolute file URL or the http(s) URL; the base for relative `$ref`s. */
  location: string;
  text: string;
  /** `hashContent(text)`, when loading could take it from the file's bytes (valid UTF-8: the same bytes). */
  textHash?: string;
  /** A local file's bytes, when valid UTF-8 (then `text` is their decoding): what a regeneration compares (src/cache/key-table.ts). */
  bytes?: Buffer;
  document: unknown;
}

export interface LoadOptions {
  fetchTimeoutMs?: number;
  /** Refuse documents larger than this many bytes (default 200 MB). */
  maxBytes?: number;
}

const DEFAULT_MAX_BYTES = 200 * 1024 * 1024;

export function isUrl(source: string): boolean {
  return /^https?:\/\//i.test(source);
}

export async function loadSpec(source: string, options: LoadOptions = {}): Promise<LoadedSpec> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  if (isUrl(source)) {
    const read = await fetchText(source, options.fetchTimeoutMs ?? 30_000, maxBytes);
    return { source, ...read, document: parseSpecText(read.text, source) };
  }
  return parseSpecFile(readSpecFile(source, maxBytes));
}

/** A local spec's bytes, not decoded yet. */
export interface SpecFile {
  source: string;
  location: string;
  bytes: Buffer;
  /** `hashContent` of the bytes, when they are valid UTF-8 (then also the hash of their decoding). */
  textHash?: string;
}

/** Decodes and parses a spec file. */
export function parseSpecFile(file: SpecFile): LoadedSpec {
  const { source, location, bytes, textHash } = file;
  const text = bytes.toString("utf8");
  const read = textHash ? { text, location, textHash, bytes } : { text, location };
  return { source, ...read, document: parseSpecText(text, source) };
}

/** Reads a local spec file (refused with a located error when missing, unreadable or too large). */
export function readSpecFile(source: string, maxBytes = DEFAULT_MAX_BYTES): SpecFile {
  const path = resolvePath(source);
  let buffer: Buffer;
  try {
    // One synchronous read: fs/promises reads in 512 KB chunks, each a trip through the thread pool (GitHub's
    // 13 MB spec: ≈ 30 ms of this thread waiting, with nothing else to do yet).
    buffer = readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const problem =
      code === "ENOENT"
        ? "file not found"
        : code === "EISDIR"
          ? "is a directory, not a file"
          : `cannot be read (${code ?? String(error)})`;
    throw new GeneratorError(source, problem, "pass the path of an OpenAPI or JSON Schema document with --from");
  }
  return specFileOf(source, path, buffer, maxBytes);
}

/** `readSpecFile`, taking the bytes from the thread pool when this run read them ahead (see read-ahead.ts). */
export async function readSpecFileAhead(source: string, maxBytes = DEFAULT_MAX_BYTES): Promise<SpecFile> {
  const path = resolvePath(source);
  const bytes = await takeAhead(path);
  return bytes ? specFileOf(source, path, bytes, maxBytes) : readSpecFile(source, maxBytes);
}

/** Where a spec's bytes read from `path` lie, refused when too large. */
function specFileOf(source: string, path: string, buffer: Buffer, maxBytes: number): SpecFile {
  if (buffer.byteLength > maxBytes) {
    throw new GeneratorError(
      source,
      `is ${buffer.byteLength} bytes, over the ${maxBytes}-byte limit`,
      "split the document or raise --max-spec-bytes",
    );
  }
  const location = pathToFileURL(path).href;
  // Valid UTF-8 decodes and re-encodes to the same bytes, so their hash is the text's (without encoding 13 MB again).
  return isUtf8(buffer)
    ? { source, location, bytes: buffer, textHash: hashContent(buffer) }
    : { source, location, bytes: buffer };
}

async function fetchText(
  url: string,
  timeoutMs: number,
  maxBytes: number,
): Promise<{ text: string; location: string }> {
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: "follow" });
  } catch (error) {
    throw new GeneratorError(
      url,
      `could not be fetched (${(error as Error).message})`,
      "check the URL and your network, or download the file and pass its path",
    );
  }
  if (!response.ok) {
    throw new GeneratorError(
      url,
      `answered HTTP ${response.status}`,
      "check the URL, or download the file and pass its path",
    );
  }
  const text = await response.text();
  if (text.length > maxBytes) {
    throw new GeneratorError(url, `is over the ${maxBytes}-byte limit`, "download and split the document");
  }
  return { text, location: response.url || url };
}

/** Documents `parseSpecText` made with JSON.parse: trees (no object in two places) that nothing else holds yet. */
const jsonTrees = new WeakSet<object>();

/**
 * Whether `document` is the root of a tree `parseSpecText` made from JSON
 * that no stage has taken yet; the first to ask takes it and may change it in
 * place (see src/normalise/upgrade-in-place.ts). YAML aliases share objects,
 * and a pruned or hand-made document may share its parts: those are never taken.
 */
export function takeParsedJsonTree(document: unknown): boolean {
  return typeof document === "object" && document !== null && jsonTrees.delete(document);
}

/** Whether `document` is what `parseSpecText` made with JSON.parse (not YAML), and no stage has taken it yet. */
export function isParsedJsonTree(document: unknown): boolean {
  return typeof document === "object" && document !== null && jsonTrees.has(document);
}

/**
 * JSON is parsed with JSON.parse for speed (GitHub's spec is 13 MB); YAML, or
 * JSON that fails, goes through the YAML parser, whose errors carry line and column.
 */
export function parseSpecText(text: string, source: string): unknown {
  const trimmed = text.replace(/^\uFEFF/, "").trimStart();
  if (trimmed === "") throw new GeneratorError(source, "is empty", "pass an OpenAPI or JSON Schema document");
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch (error) {
      throw new GeneratorError(
        `${source}:${jsonErrorPosition(trimmed, error as Error)}`,
        `invalid JSON: ${(error as Error).message}`,
        "fix the syntax at that line and column",
      );
    }
    if (typeof parsed === "object" && parsed !== null) jsonTrees.add(parsed);
    // JSON has no aliases, so only the depth needs checking, and a scan of the text does that far faster than a walk.
    return jsonNestingWithin(trimmed, MAX_NESTING) ? parsed : checkStructure(parsed, source);
  }
  const { LineCounter, parseDocument } = yamlParser();
  const lineCounter = new LineCounter();
  const document = parseDocument(trimmed, { lineCounter, uniqueKeys: false });
  const firstError = document.errors[0];
  if (firstError) {
    const position = firstError.linePos?.[0];
    const where = position ? `${source}:${position.line}:${position.col}` : source;
    throw new GeneratorError(
      where,
      `invalid YAML: ${firstError.message.split("\n")[0]}`,
      "fix the syntax at that line and column",
    );
  }
  let parsed: unknown;
  try {
    parsed = document.toJS({ maxAliasCount: 10_000 });
  } catch (error) {
    // Excessive or unresolved aliases (`*name`), and stack exhaustion on absurd nesting.
    throw new GeneratorError(
      source,
      `the YAML cannot be read: ${(error as Error).message.split("\n")[0]}`,
      "remove the offending aliases (*name) or reduce the nesting",
    );
  }
  return checkStructure(parsed, source);
}

/** Far deeper than any real API description (the $ref resolver stops at 400 anyway); later stages recurse, so deeper documents are refused here. */
export const MAX_NESTING = 300;

/**
 * Whether valid JSON text nests objects/arrays at most `limit` deep, the
 * top-level value counting as 1 (as `checkStructure`'s stack does). Brackets
 * inside strings do not count; escapes are skipped. When this says no,
 * `checkStructure` finds and names the place.
 */
export function jsonNestingWithin(text: string, limit: number): boolean {
  let depth = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 34 /* " */) {
      index = jsonStringEnd(text, index) - 1;
      if (index < 0) return true;
    } else if (code === 123 /* { */ || code === 91 /* [ */) {
      if (++depth > limit) return false;
    } else if (code === 125 /* } */ || code === 93 /* ] */) depth--;
  }
  return true;
}

/**
 * The index just after the JSON string whose opening quote is at `start`, or -1 if it is not closed. Jumps
 * from quote to quote (strings are most of a spec's text; indexOf skips them much faster than a loop).
 */
export function jsonStringEnd(text: string, start: number): number {
  let quote = text.indexOf('"', start + 1);
  while (quote >= 0) {
    // A quote is escaped when an odd number of backslashes precede it.
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === 92 /* \ */) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    quote = text.indexOf('"', quote + 1);
  }
  return -1;
}

/**
 * Refuses documents that later stages cannot process: nesting deeper than
 * MAX_NESTING, and YAML aliases that make a node contain itself. Iterative,
 * so it cannot exhaust the stack itself.
 */
function checkStructure(document: unknown, source: string): unknown {
  if (typeof document !== "object" || document === null) return document;
  const stack: Array<{ node: Record<string, unknown>; keys: string[]; index: number }> = [
    { node: document as Record<string, unknown>, keys: Object.keys(document), index: 0 },
  ];
  const active = new Set<object>([document]);
  // Called before the child is pushed, so each frame's last-read key spells the pointer to the child.
  const where = () => {
    const tokens = stack.map((frame) => frame.keys[frame.index - 1] ?? "");
    const shown = tokens.length > 12 ? [...tokens.slice(0, 12), `… (${tokens.length - 12} more levels)`] : tokens;
    return `${source}#${shown.map((token) => "/" + escapePointerToken(token)).join("")}`;
  };
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    if (frame.index >= frame.keys.length) {
      stack.pop();
      active.delete(frame.node);
      continue;
    }
    const key = frame.keys[frame.index++]!;
    const child = frame.node[key];
    if (typeof child !== "object" || child === null) continue;
    if (active.has(child))
      throw new GeneratorError(
        where(),
        "a YAML alias makes this node contain itself",
        "replace the alias (*name) with a $ref, which may be recursive",
      );
    if (stack.length >= MAX_NESTING)
      throw new GeneratorError(
        where(),
        `the document is nested more than ${MAX_NESTING} levels deep`,
        "flatten the structure, e.g. with named schemas and $ref",
      );
    active.add(child);
    stack.push({ node: child as Record<string, unknown>, keys: Object.keys(child), index: 0 });
  }
  return document;
}

function jsonErrorPosition(text: string, error: Error): string {
  const match = /position (\d+)/.exec(error.message);
  if (!match) return "1:1";
  const offset = Number(match[1]);
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  const column = offset - before.lastIndexOf("\n");
  return `${line}:${column}`;
}
/** Operations of an OpenAPI document as parsed (0 for anything else): the size a run's worker rule reads. */
export function operationCount(document: unknown): number {
  const paths = (document as { paths?: unknown } | null)?.paths;
  if (!paths || typeof paths !== "object") return 0;
  let count = 0;
  for (const item of Object.values(paths)) {
    if (item && typeof item === "object") count += Object.keys(item).filter((key) => HTTP_METHODS.has(key)).length;
  }
  return count;
}

const HTTP_METHODS = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);
