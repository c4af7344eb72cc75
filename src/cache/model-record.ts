/**
 * The model cache's record (`.guided-mcp/cache/model.record.json`): what its last save left in model.json, so that a
 * regeneration after a text-only edit (./text-edit.ts) reads the two lines it needs (the edited operation's entry and
 * its tool's shape) instead of the whole file (GitHub: 7.7 MB read, decoded and indexed, ≈ 10 ms, and 17 MB more of
 * memory), and keeps the rest as read without naming each entry.
 *
 * The record holds every operation entry the save kept, in the order kept (the document's), with where its line and
 * its tool's shape line are; the operation keys the file holds besides (earlier runs' entries, appended past, not
 * yet rewritten); how many lines the file has and how many guidance entries were kept; and whether every kept
 * operation and guidance entry was plain (./plain-entries.ts). It describes the file only while the file still
 * carries the id the save gave it in its header (every save gives a new one, in place when it appends) and has the
 * size it left: content, not stamps, so a copied project keeps its record. Anything else reads the file in full.
 */
import { fstatSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { OperationOutcome } from "../model/openapi.js";
import { headerId, withFile, type Kept, type Placed, type Span } from "./model-cache-file.js";
import { holdsNoWarnings, plainOperationText, plainOutcome } from "./plain-entries.js";
import { replaceFileSync } from "./replace-file.js";

export const MODEL_RECORD_FILE = ".guided-mcp/cache/model.record.json";
/** Bump when the record's layout changes. */
const FORMAT = 1;

/** An operation entry kept: its key and line, and its tool's shape line when it makes a tool. */
export type RecordedOperation =
  | [key: string, start: number, end: number]
  | [key: string, start: number, end: number, shapeStart: number, shapeEnd: number];

export interface ModelRecord {
  format: number;
  /** The code fingerprint of the model cache (its keys'). */
  code: string;
  /** The id in the file's header, its size and its entry lines (a replaced entry's earlier line counts), as saved. */
  id: string;
  size: number;
  lines: number;
  /** The key of the prelude kept, if one was. */
  prelude: string | null;
  operations: RecordedOperation[];
  /** Operation keys the file holds that the save did not keep, sorted. */
  stale: string[];
  /** How many guidance entries were kept. */
  guidance: number;
  /** Whether every kept operation and guidance entry was plain (see ./plain-entries.ts). */
  plain: boolean;
}

/** The project's record, if it still describes the model cache `file` of this code (see the module comment). */
export function describedRecord(projectDir: string, file: string, code: string): ModelRecord | undefined {
  const record = readRecord(join(projectDir, MODEL_RECORD_FILE));
  if (record?.code !== code) return undefined;
  try {
    return withFile(file, "r", (descriptor) => describes(descriptor, record, code)) ? record : undefined;
  } catch {
    return undefined;
  }
}

/** Whether the open model cache file is the one `record` describes: its header's id and its size. */
export function describes(descriptor: number, record: ModelRecord, code: string): boolean {
  return fstatSync(descriptor).size === record.size && headerId(descriptor, code) === record.id;
}

function readRecord(file: string): ModelRecord | undefined {
  try {
    const record = JSON.parse(readFileSync(file, "latin1")) as Partial<ModelRecord>;
    return record.format === FORMAT &&
      typeof record.id === "string" &&
      Number.isInteger(record.size) &&
      Number.isInteger(record.lines) &&
      Number.isInteger(record.guidance) &&
      Array.isArray(record.operations) &&
      Array.isArray(record.stale)
      ? (record as ModelRecord)
      : undefined;
  } catch {
    return undefined;
  }
}

export function saveRecord(root: string, record: ModelRecord): void {
  replaceFileSync(join(root, MODEL_RECORD_FILE), JSON.stringify(record) + "\n", "latin1");
}

/** The record of a file holding `kept`, where `spanOf` says each operation's and shape's line is; undefined if one is unknown. */
export function recordOf(
  file: Pick<ModelRecord, "code" | "id" | "size" | "lines" | "stale">,
  kept: Kept,
  spanOf: (section: Placed, key: string) => Span | undefined,
): ModelRecord | undefined {
  const shapes = shapeSpans(kept, spanOf);
  const operations: RecordedOperation[] = [];
  for (const key of kept.operations.keys()) {
    const span = spanOf("operations", key);
    if (!span) return undefined;
    const shape = shapes.get(key);
    operations.push(shape ? [key, span[0], span[1], shape[0], shape[1]] : [key, span[0], span[1]]);
  }
  const preludes = [...kept.preludes.keys()];
  return {
    format: FORMAT,
    ...file,
    prelude: preludes.length === 1 ? preludes[0]! : null,
    operations,
    guidance: kept.guidance.size,
    plain: keptPlain(kept),
  };
}

/** Each kept shape's span by the operation entry it was made from (a shape's key begins with it, see guidance-keys.ts); none where two share one. */
function shapeSpans(kept: Kept, spanOf: (section: Placed, key: string) => Span | undefined): Map<string, Span | null> {
  const spans = new Map<string, Span | null>();
  for (const key of kept.shapes.keys()) {
    const origin = key.slice(0, key.indexOf(":"));
    spans.set(origin, spans.has(origin) ? null : (spanOf("shapes", key) ?? null));
  }
  return spans;
}

/** Whether every kept operation and guidance entry is plain, as read or as computed. */
function keptPlain(kept: Kept): boolean {
  for (const entry of kept.operations.values())
    if (!(typeof entry === "string" ? plainOperationText(entry) : plainOutcome(entry.value as OperationOutcome)))
      return false;
  for (const entry of kept.guidance.values()) {
    const plain =
      typeof entry === "string"
        ? holdsNoWarnings(entry)
        : (entry.value as { diagnostics: unknown[] }).diagnostics.length === 0;
    if (!plain) return false;
  }
  return true;
}
