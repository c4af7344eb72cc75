/**
 * The change report from the bytes of `data/tools.json`, without decoding or
 * parsing the whole previous file: a regeneration usually changes a few tools
 * of many (GitHub's file is 6 MB), and a tool whose JSON text is byte for
 * byte the same in both generations has no change to report. So the tools
 * both files share at the start and at the end are set aside, and only the
 * ones between are parsed and compared (see `compareTools`, which reports
 * nothing for an identical tool and matches renames by pointer among the
 * others only).
 *
 * The shared tools are found from the bytes both files share at their start
 * and end (a native comparison): the new file's tools are located by one
 * scan, and the previous file is scanned only from its first differing tool
 * until it is back in step with the new file (at a tool's start, with the
 * same bytes from there to the end), so the rest of it is never read.
 */
import type { ToolData } from "../model/ir.js";
import {
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COMMA,
  containerEnd,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
  stringEnd,
} from "../json-bytes.js";
import { compareTools, type ChangeReport } from "./index.js";

type Span = [start: number, end: number];

/** The new generation's tools: an array, or anything that makes the ones asked for (a regeneration converts few). */
export interface ToolList {
  readonly length: number;
  slice(from?: number, to?: number): ToolData[];
}

/**
 * The report between the previous generation's tools file and this one's
 * (`nextText`, holding `next`), or undefined when the previous text is not a
 * tools file (as when its JSON does not parse).
 */
export function compareToolsText(
  previousText: Buffer | string,
  nextText: Buffer | string,
  next: ToolList,
  /** Where each tool is in `nextText`, when the caller assembled it (else it is scanned for them). */
  nextSpans?: Span[],
): ChangeReport | undefined {
  const before = typeof previousText === "string" ? Buffer.from(previousText, "utf8") : previousText;
  const after = typeof nextText === "string" ? Buffer.from(nextText, "utf8") : nextText;
  const spans = nextSpans ?? toolSpans(after);
  const middle = spans && spans.length === next.length ? differingTools(before, after, spans) : undefined;
  if (!middle) {
    const tools = parsed<{ tools?: ToolData[] }>(before, [0, before.length])?.tools;
    return Array.isArray(tools) ? compareTools(tools, next.slice(0, next.length)) : undefined;
  }
  const previous: ToolData[] = [];
  for (const span of middle.previous) {
    const tool = parsed<ToolData>(before, span);
    if (tool === undefined) return undefined;
    previous.push(tool);
  }
  return compareTools(previous, next.slice(middle.from, middle.to));
}

/** JSON text's value, or undefined when it does not parse (a damaged previous file reports nothing, as before). */
function parsed<T>(bytes: Buffer, [start, end]: Span): T | undefined {
  try {
    return JSON.parse(bytes.toString("utf8", start, end)) as T;
  } catch {
    return undefined;
  }
}

/**
 * The tools that differ: the new file's `from`…`to` (its first `from` and
 * last `spans.length - to` tools are byte for byte the previous file's first
 * and last ones), and the previous file's spans between. Undefined when the
 * previous file is not a compact tools file.
 */
function differingTools(
  before: Buffer,
  after: Buffer,
  spans: Span[],
): { from: number; to: number; previous: Span[] } | undefined {
  const prefix = commonPrefix(before, after);
  const suffix = commonSuffix(before, after, Math.min(before.length, after.length) - prefix);
  // Identical bytes up to `prefix`: the tools that end there are the same tools at the same places in both.
  let from = 0;
  while (from < spans.length && spans[from]![1] <= prefix) from++;
  let index = from > 0 ? spans[from - 1]![1] : toolsStart(before);
  if (index < 0) return undefined;
  const shift = after.length - before.length;
  const previous: Span[] = [];
  const ended = (at: number) => (isToolsEnd(before, at) ? { from, to: spans.length, previous } : undefined);
  if (from > 0) {
    // After the last shared tool: the end of the previous list, or a comma and its next tool.
    if (before[index] === CLOSE_BRACKET) return ended(index + 1);
    if (before[index++] !== COMMA) return undefined;
  } else if (before[index] === CLOSE_BRACKET) return ended(index + 1);
  for (;;) {
    // Back in step: a tool starts here in both files, and everything from here on is the same bytes.
    const inStep = index >= before.length - suffix ? toolStartingAt(spans, index + shift) : -1;
    if (inStep >= from) return { from, to: inStep, previous };
    const end = valueEnd(before, index);
    if (end < 0) return undefined;
    previous.push([index, end]);
    index = end + 1;
    if (before[end] === CLOSE_BRACKET) return ended(index);
    if (before[end] !== COMMA) return undefined;
  }
}

/** The position of the tool whose JSON starts at `offset` (spans are in file order: a binary search), or -1. */
function toolStartingAt(spans: Span[], offset: number): number {
  let low = 0;
  let high = spans.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const start = spans[middle]![0];
    if (start === offset) return middle;
    if (start < offset) low = middle + 1;
    else high = middle - 1;
  }
  return -1;
}

/** How many bytes `a` and `b` share at their start (compared natively, in large then small blocks). */
export function commonPrefix(a: Buffer, b: Buffer): number {
  const length = Math.min(a.length, b.length);
  let at = 0;
  for (const block of BLOCKS)
    while (at < length) {
      const end = Math.min(at + block, length);
      if (a.compare(b, at, end, at, end) !== 0) break;
      at = end;
    }
  while (at < length && a[at] === b[at]) at++;
  return at;
}

/** How many bytes `a` and `b` share at their end, at most `limit`. */
export function commonSuffix(a: Buffer, b: Buffer, limit: number): number {
  let shared = 0;
  for (const block of BLOCKS)
    while (shared < limit) {
      const size = Math.min(block, limit - shared);
      const aEnd = a.length - shared;
      const bEnd = b.length - shared;
      if (a.compare(b, bEnd - size, bEnd, aEnd - size, aEnd) !== 0) break;
      shared += size;
    }
  while (shared < limit && a[a.length - 1 - shared] === b[b.length - 1 - shared]) shared++;
  return shared;
}

/** Block sizes for the comparisons: few native calls over what is shared, few bytes looped over where it ends. */
const BLOCKS = [1 << 18, 1 << 12, 1 << 6];

/**
 * Where each tool's JSON is in a compact tools file (`{"api":…,"tools":[…]}`,
 * as written for APIs with many tools), or undefined for any other layout
 * (the indented file of a small API, a file from another generator version).
 */
export function toolSpans(input: Buffer | string): Span[] | undefined {
  const bytes = typeof input === "string" ? Buffer.from(input, "utf8") : input;
  let index = toolsStart(bytes);
  if (index < 0) return undefined;
  const spans: Span[] = [];
  if (bytes[index] === CLOSE_BRACKET) index++;
  else
    for (;;) {
      const end = valueEnd(bytes, index);
      if (end < 0) return undefined;
      spans.push([index, end]);
      const code = bytes[end];
      index = end + 1;
      if (code === CLOSE_BRACKET) break;
      if (code !== COMMA) return undefined;
    }
  return isToolsEnd(bytes, index) ? spans : undefined;
}

/** The index of the first tool (or of the `]` of an empty list) in a compact tools file, or -1. */
function toolsStart(bytes: Buffer): number {
  const prefix = '{"api":';
  if (bytes.toString("latin1", 0, prefix.length) !== prefix) return -1;
  const index = valueEnd(bytes, prefix.length);
  const member = ',"tools":[';
  if (index < 0 || bytes.toString("latin1", index, index + member.length) !== member) return -1;
  return index + member.length;
}

/** Whether the tools list, closed just before `index`, ends the file (`}` and at most a line break). */
function isToolsEnd(bytes: Buffer, index: number): boolean {
  return bytes[index] === CLOSE_BRACE && bytes.length - index <= 2;
}

/** The index just after the object, array or string starting at `start` in compact JSON, or -1. */
function valueEnd(bytes: Buffer, start: number): number {
  const first = bytes[start];
  if (first === QUOTE) return stringEnd(bytes, start);
  return first === OPEN_BRACE || first === OPEN_BRACKET ? containerEnd(bytes, start) : -1;
}
