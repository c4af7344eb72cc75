/**
 * The best few of many ranked entries, as a stable sort by rank then name (in English) would
 * list them first, without sorting them all: a producer search keeps 3 of up to dozens of candidates.
 */

export interface RankedEntry {
  /** Compared position by position; lower is better. */
  rank: readonly number[];
  /** Breaks ties, compared as `String.prototype.localeCompare` does in English (see `byLocale`). */
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
 * Ties are broken in the order `a.localeCompare(b, "en")` gives: the Unicode root collation, the same on every
 * machine. Names of lower-case letters, digits and `_` (every tool name the generator derives) are compared without
 * ICU: in that collation each of those characters has a primary weight of its own, `_` < `0`–`9` < `a`–`z`, so the
 * first differing character decides, else the shorter name comes first. A collator is made only for other names (an
 * override's `Get-Pet`): making the first one costs ≈ 4 ms (V8 lists ICU's available locales).
 */
export function byLocale(a: string, b: string): number {
  if (a === b) return 0;
  if (!ROOT_SIMPLE.test(a) || !ROOT_SIMPLE.test(b)) return (collator ??= new Intl.Collator("en")).compare(a, b);
  let at = 0;
  while (at < a.length && at < b.length && a.charCodeAt(at) === b.charCodeAt(at)) at++;
  if (at === a.length || at === b.length) return a.length < b.length ? -1 : 1;
  return rootWeight(a.charCodeAt(at)) < rootWeight(b.charCodeAt(at)) ? -1 : 1;
}

let collator: Intl.Collator | undefined;

const ROOT_SIMPLE = /^[a-z0-9_]*$/;
const UNDERSCORE = 0x5f;

/** In code-unit order `_` comes after the digits; in the root collation before them (letters after both in either). */
const rootWeight = (code: number): number => (code === UNDERSCORE ? 0 : code);

/** The first differing position decides; lower is better. */
function compareRanks(a: readonly number[], b: readonly number[]): number {
  for (let position = 0; position < a.length; position++) {
    const difference = a[position]! - b[position]!;
    if (difference !== 0) return difference;
  }
  return 0;
}
