/**
 * The best few of many ranked entries, as a stable sort by rank then name (in the default locale) would
 * list them first, without sorting them all: a producer search keeps 3 of up to dozens of candidates.
 */

export interface RankedEntry {
  /** Compared position by position; lower is better. */
  rank: readonly number[];
  /** Breaks ties, compared as `String.prototype.localeCompare` does. */
  name: string;
}

/**
 * Inserts `entry` into `best` (ordered, at most `max` long) after every entry that is not worse, unless `max`
 * better or equal ones are there already: what the first `max` of a stable sort of every entry offered, in
 * the order offered, would be.
 */
export function keepBest<T extends RankedEntry>(best: T[], entry: T, max: number): void {
  let at = best.length;
  while (at > 0 && compareEntries(entry, best[at - 1]!) < 0) at--;
  if (at >= max) return;
  best.splice(at, 0, entry);
  if (best.length > max) best.pop();
}

/**
 * Whether an entry ranked `lowerBound` or worse (position by position), whatever its name, could not enter
 * `best` any more: `max` entries are kept and the last of them ranks strictly better.
 */
export function outranked(best: readonly RankedEntry[], lowerBound: readonly number[], max: number): boolean {
  return best.length >= max && compareRanks(lowerBound, best[best.length - 1]!.rank) > 0;
}

function compareEntries(a: RankedEntry, b: RankedEntry): number {
  return compareRanks(a.rank, b.rank) || byLocale(a.name, b.name);
}

/**
 * `a.localeCompare(b)` (same default locale and options), without making a collator at every call. Made at the first
 * comparison: a collator loads ICU's collation data (≈ 5 ms), which a run whose guidance is all cached never needs.
 */
let collator: Intl.Collator | undefined;
const byLocale = (a: string, b: string): number => (collator ??= new Intl.Collator()).compare(a, b);

/** The first differing position decides; lower is better. */
function compareRanks(a: readonly number[], b: readonly number[]): number {
  for (let position = 0; position < a.length; position++) {
    const difference = a[position]! - b[position]!;
    if (difference !== 0) return difference;
  }
  return 0;
}
