/**
 * Fuzzy matching for tool names, parameter names and enum values.
 *
 * `similarity` is the MAXIMUM of four calibrated signals rather than a weighted
 * sum: a weighted sum can never reach the auto-correct threshold for a plain
 * typo (`patern` -> `pattern`), whereas each signal here is scaled so that its
 * natural strength lands in the right band:
 *
 *   - identical after case/separator normalisation (`pet_id` ~ `petId`)  0.97
 *   - same words modulo plural (`tag` ~ `tags`)                             0.93
 *   - Levenshtein on the normalised form with a Jaro-Winkler style prefix
 *     bonus; one edit (or one adjacent swap) in a name of 5+ chars >= 0.92
 *   - prefix (`sea` -> `search`): 0.55..0.9 by coverage
 *   - substring (`auth` in `oauth_token`): 0.45..0.8 by coverage
 *   - word overlap on tokens split at `_`, `-`, spaces and camelCase, with
 *     plural stemming (`user_search` ~ `search_users` = 0.88)
 *
 * Bands: > AUTO_CORRECT (0.9) rename silently-but-reported, >= SUGGEST (0.7)
 * "did you mean", >= LIST (0.4) show in a list of alternatives.
 */
import { distance } from "fastest-levenshtein";

export const AUTO_CORRECT = 0.9;
export const SUGGEST = 0.7;
export const LIST = 0.4;

export interface PreparedName {
  readonly name: string;
  /** Lower-cased, separators removed: `petId`, `pet_id` and `PET-ID` all become `petid`. */
  readonly norm: string;
  readonly tokens: readonly string[];
  /** Tokens with a trailing plural removed. */
  readonly stems: readonly string[];
  readonly stemNorm: string;
}

export interface Match {
  name: string;
  score: number;
}

const prepared = new Map<string, PreparedName>();

function stem(token: string): string {
  if (token.length > 4 && token.endsWith("ies")) return token.slice(0, -3) + "y";
  if (token.length > 3 && token.endsWith("s") && !token.endsWith("ss")) return token.slice(0, -1);
  return token;
}

/** Tokenises a name once; memoised (tool, parameter and enum names repeat across calls). */
export function prepareName(name: string): PreparedName {
  const cached = prepared.get(name);
  if (cached) return cached;
  const tokens = name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((t) => t !== "");
  const stems = tokens.map(stem);
  const result: PreparedName = { name, norm: tokens.join(""), tokens, stems, stemNorm: stems.join("") };
  if (prepared.size > 10_000) prepared.clear();
  prepared.set(name, result);
  return result;
}

function asPrepared(value: string | PreparedName): PreparedName {
  return typeof value === "string" ? prepareName(value) : value;
}

function commonPrefix(a: string, b: string, max: number): number {
  const n = Math.min(a.length, b.length, max);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** Levenshtein distance, counting one adjacent transposition (`serach`) as a single edit. */
function editDistance(a: string, b: string): number {
  const d = distance(a, b);
  if (d === 2 && a.length === b.length) {
    let first = -1;
    let diffs = 0;
    for (let i = 0; i < a.length; i++) {
      if (a.charCodeAt(i) !== b.charCodeAt(i)) {
        if (++diffs > 2) break;
        if (first < 0) first = i;
      }
    }
    if (diffs === 2 && a[first] === b[first + 1] && a[first + 1] === b[first]) return 1;
  }
  return d;
}

function levenshteinScore(a: string, b: string): number {
  const maxLen = Math.max(a.length, b.length);
  if (maxLen === 0) return 0;
  const d = editDistance(a, b);
  const sim = 1 - d / maxLen;
  let score = sim + commonPrefix(a, b, 4) * 0.1 * (1 - sim);
  if (d === 1 && Math.min(a.length, b.length) >= 5) score = Math.max(score, 0.92);
  return Math.min(score, 0.95);
}

function tokensMatch(a: string, b: string): boolean {
  if (a === b) return true;
  return a.length >= 4 && b.length >= 4 && editDistance(a, b) <= 1;
}

function wordOverlapScore(a: PreparedName, b: PreparedName): number {
  if (a.stems.length === 0 || b.stems.length === 0) return 0;
  if (a.stems.length === 1 && b.stems.length === 1) return 0; // single words: covered by the other signals
  const used = new Array<boolean>(b.stems.length).fill(false);
  let matched = 0;
  for (const token of a.stems) {
    for (let j = 0; j < b.stems.length; j++) {
      if (!used[j] && tokensMatch(token, b.stems[j]!)) {
        used[j] = true;
        matched++;
        break;
      }
    }
  }
  return ((2 * matched) / (a.stems.length + b.stems.length)) * 0.88;
}

/** Similarity of `input` to `candidate` in [0, 1] (1 only for identical strings). */
export function similarity(input: string | PreparedName, candidate: string | PreparedName): number {
  const a = asPrepared(input);
  const b = asPrepared(candidate);
  if (a.name === b.name) return 1;
  if (a.norm === "" || b.norm === "") return 0;
  if (a.norm === b.norm) return 0.97;
  if (a.stemNorm === b.stemNorm) return 0.93;
  let score = levenshteinScore(a.norm, b.norm);
  const shorter = Math.min(a.norm.length, b.norm.length);
  const longer = Math.max(a.norm.length, b.norm.length);
  if (shorter >= 3) {
    const coverage = shorter / longer;
    if (b.norm.startsWith(a.norm)) score = Math.max(score, 0.55 + 0.35 * coverage);
    else if (a.norm.includes(b.norm) || b.norm.includes(a.norm)) score = Math.max(score, 0.45 + 0.35 * coverage);
  }
  score = Math.max(score, wordOverlapScore(a, b));
  return Math.round(Math.min(score, 1) * 1000) / 1000;
}

/** Candidates scoring at least `min` (default LIST), best first; ties keep candidate order. */
export function rankMatches(
  input: string,
  candidates: readonly (string | PreparedName)[],
  options: { min?: number; limit?: number } = {},
): Match[] {
  const min = options.min ?? LIST;
  const a = prepareName(input);
  const out: Match[] = [];
  for (const candidate of candidates) {
    const b = asPrepared(candidate);
    const score = similarity(a, b);
    if (score >= min) out.push({ name: b.name, score });
  }
  out.sort((x, y) => y.score - x.score);
  return options.limit === undefined ? out : out.slice(0, options.limit);
}

/**
 * The single confident match: the best candidate when it reaches `min` and is
 * not tied (within `margin`) with a different runner-up.
 */
export function confidentMatch(
  input: string,
  candidates: readonly (string | PreparedName)[],
  min: number,
  margin = 0.03,
): Match | undefined {
  const ranked = rankMatches(input, candidates, { min: Math.min(min, LIST) });
  const best = ranked[0];
  if (!best || best.score < min) return undefined;
  const second = ranked[1];
  if (second && best.score - second.score < margin) return undefined;
  return best;
}
