/** A sparse document's skeleton (src/cache/sparse-document.ts) moved to the text an edit, or a delta's edits, made. */
import type { Skeleton, SkeletonEdit } from "./sparse-document.js";

/**
 * Moves `skeleton` (the caller's own: changed in place, and returned) to the text made by `edits` in order: each
 * replaces one lazily read member's bytes, so members after it move by the difference. In place and in one walk
 * (GitHub: ≈ 3,800 arrays), whatever the number of edits (a delta's, merged first: each edit more was once one more
 * check of every member, ≈ 0.2 ms on GitHub in code that runs once, unoptimised).
 */
export function moveSkeletonBy(skeleton: Skeleton, edits: readonly SkeletonEdit[]): Skeleton {
  const moves = mergedEdits(edits);
  return moves.length === 0 ? skeleton : moveMembers(skeleton, moves);
}

/** Indexed over the edits, since a run's first call is unoptimised, where iterating costs an iterator. */
function moveMembers(skeleton: Skeleton, edits: readonly SkeletonEdit[]): Skeleton {
  for (const member of skeleton) {
    if (member.length === 2) moveMembers(member[1], edits);
    else
      for (let index = 0; index < edits.length; index++) {
        const edit = edits[index]!;
        const shift = edit[2] - (edit[1] - edit[0]);
        if (member[1] === edit[0] && member[2] === edit[1]) member[2] += shift;
        else if (member[1] >= edit[1]) {
          member[1] += shift;
          member[2] += shift;
        }
      }
  }
  return skeleton;
}

/**
 * `edits` as fewer edits that move the members the same way, so that the walk checks each member against fewer:
 * an edit of the bytes the one before it wrote (the same member edited again, as a delta's edits mostly are, see
 * key-delta.ts) is one edit of the first one's bytes to the second one's length; and an edit that keeps the length
 * moves nothing. (Members never overlap, so none starts inside the bytes an edit replaces.)
 */
function mergedEdits(edits: readonly SkeletonEdit[]): SkeletonEdit[] {
  const merged: SkeletonEdit[] = [];
  for (let index = 0; index < edits.length; index++) {
    const edit = edits[index]!;
    const last = merged[merged.length - 1];
    if (last && edit[0] === last[0] && edit[1] === last[0] + last[2]) last[2] = edit[2];
    else merged.push([edit[0], edit[1], edit[2]]);
  }
  return merged.filter(([start, end, length]) => length !== end - start);
}
