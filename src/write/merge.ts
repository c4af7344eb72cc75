/**
 * Three-way merge of a generated file the user edited: base (what we
 * generated last time, kept in .guided-mcp/base/) → theirs (the user's file)
 * and → next (what we generate now). Lines only one side changed are taken
 * from that side; lines both changed differently get conflict markers.
 *
 * node-diff3 (maintained, MIT, pure ESM; its `engines` names only bun because
 * its own build uses bun, and its published dist/ runs on Node 20 — the tests
 * here run on it) implements the classic diff3 algorithm.
 */
import { merge } from "node-diff3";

export const OURS_LABEL = "yours";
export const THEIRS_LABEL = "generated";

export interface TextMerge {
  content: string;
  conflicts: number;
}

/** Merges line by line; `conflicts` counts the marker blocks written. */
export function mergeText(base: string, user: string, next: string): TextMerge {
  const split = (text: string) => text.split("\n");
  const result = merge(split(user), split(base), split(next), { label: { a: OURS_LABEL, b: THEIRS_LABEL } });
  const lines = result.result.map(String);
  return {
    content: lines.join("\n"),
    conflicts: result.conflict ? lines.filter((line) => line.startsWith("<<<<<<< ")).length : 0,
  };
}

const MARKER_START = /^<<<<<<< /m;
const MARKER_MIDDLE = /^=======$/m;
const MARKER_END = /^>>>>>>> /m;

/** Whether a file still holds the markers a merge wrote (all three kinds, at line starts). */
export function hasConflictMarkers(text: string): boolean {
  return MARKER_START.test(text) && MARKER_MIDDLE.test(text) && MARKER_END.test(text);
}
