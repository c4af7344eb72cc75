/**
 * A JSON spec's cache-key texts taken from its own bytes (src/cache/refs.ts).
 *
 * Keys read each operation and each component as a text: `JSON.stringify` of
 * the parsed object costs GitHub ≈ 25 ms, and it has to happen before the
 * in-place 3.0 → 3.1 upgrade changes the objects. The spec's bytes already are
 * such a text. The skeleton (src/cache/sparse-document.ts) says where each
 * member lies: every top-level member, `paths/<path>/<member>`,
 * `components/<group>/<name>` and Swagger 2.0's `definitions|parameters|
 * responses/<name>`. The value a member holds is exactly what its bytes parse
 * to. So those bytes can stand in for the stringified value: equal bytes mean
 * an equal value, and different bytes only cost a cache miss.
 *
 * A repeated key holds its last value, as in `JSON.parse`, so the last member
 * of a name is the one read. `$ref`s are found in the bytes, where a member key
 * may be written with escapes: a spec that writes any of `$ref`'s characters as
 * `\u00XX` anywhere is keyed from its parsed objects instead.
 *
 * Such keys depend on the spec's layout (a reformatted spec misses the cache
 * once), and every run derives them the same way from the same bytes: the
 * record says which way it was made (`KeyRecord.texts`), and a run never mixes
 * the two.
 */
import { BACKSLASH, COLON, QUOTE, stringEnd } from "../json-bytes.js";
import { OPERATION_METHODS } from "../load/methods.js";
import type { Skeleton } from "./sparse-document.js";

type Member = Skeleton[number];

/** The four characters of `$ref`, which a key could write as `\u0024`, `\u0072`, `\u0065`, `\u0066`. */
const REF_CHARACTERS = new Set(["24", "72", "65", "66"]);

export class SpecBytes {
  private readonly levels = new WeakMap<Skeleton, Map<string, Member>>();

  constructor(
    readonly bytes: Buffer,
    private readonly skeleton: Skeleton,
  ) {}

  /**
   * The bytes of the value at a pointer's `tokens`, when the skeleton holds that value as one member (a top-level
   * member, an operation, a component); undefined for anything else (then the parsed value is read).
   */
  valueBytes(tokens: string[]): Buffer | undefined {
    let members = this.skeleton;
    for (let index = 0; index < tokens.length; index++) {
      const member = this.lastMembers(members).get(tokens[index]!);
      if (!member) return undefined;
      if (member.length === 3)
        return index === tokens.length - 1 ? this.bytes.subarray(member[1], member[2]) : undefined;
      members = member[1];
    }
    return undefined;
  }

  /**
   * Whether the value at `tokens` exists, when the skeleton can tell: undefined when the pointer goes into a
   * member's value (only parsing it can tell).
   */
  holds(tokens: string[]): boolean | undefined {
    let members = this.skeleton;
    for (let index = 0; index < tokens.length; index++) {
      const member = this.lastMembers(members).get(tokens[index]!);
      if (!member) return false;
      if (member.length === 3) return index === tokens.length - 1 ? true : undefined;
      members = member[1];
    }
    return true;
  }

  /** A path item's own fields (not its operations) as JSON text: each member's key and its bytes. */
  pathItemFields(path: string): string | undefined {
    const paths = this.lastMembers(this.skeleton).get("paths");
    const item = paths?.length === 2 ? this.lastMembers(paths[1]).get(path) : undefined;
    if (item?.length !== 2) return undefined;
    const fields: string[] = [];
    for (const [key, member] of this.lastMembers(item[1])) {
      if ((OPERATION_METHODS as readonly string[]).includes(key)) continue;
      if (member.length !== 3) return undefined;
      fields.push(`${JSON.stringify(key)}:${this.bytes.toString("utf8", member[1], member[2])}`);
    }
    return `{${fields.join(",")}}`;
  }

  /**
   * Calls `found` with each `$ref` string of a value's bytes, in order, repeats included: the `"$ref"` members,
   * whitespace allowed around the colon. (A key written with escapes is not found: see `mayEscapeRefKey`.)
   */
  forEachRef(text: Buffer, found: (ref: string) => void): void {
    // From dollar sign to dollar sign: a one-byte search is several times faster than one for `"$ref"`.
    for (let at = text.indexOf(DOLLAR); at >= 0; at = text.indexOf(DOLLAR, at + 1)) {
      if (!isRefKey(text, at)) continue;
      let start = skipSpace(text, at + 5);
      if (text[start] !== COLON) continue;
      start = skipSpace(text, start + 1);
      if (text[start] !== QUOTE) continue;
      const end = stringEnd(text, start);
      if (end < 0) return;
      found(this.refString(text, start + 1, end - 1));
    }
  }

  /** Each distinct `$ref` string seen, by a hash of its bytes (decoding each of GitHub's 10,460 took ≈ 25 ms). */
  private readonly refs = new Map<number, string>();

  /** The string of JSON string content `start`–`end`: a plain ASCII one is decoded once per distinct text. */
  private refString(text: Buffer, start: number, end: number): string {
    let hash = 0x811c9dc5;
    for (let index = start; index < end; index++) {
      const byte = text[index]!;
      if (byte >= 0x80 || byte === BACKSLASH) return JSON.parse(text.toString("utf8", start - 1, end + 1)) as string;
      hash = Math.imul(hash ^ byte, 0x01000193);
    }
    const known = this.refs.get(hash);
    if (known !== undefined && sameAscii(known, text, start, end)) return known;
    const decoded = text.toString("latin1", start, end);
    this.refs.set(hash, decoded);
    return decoded;
  }

  /** An object's members by key, the last of a repeated key (as `JSON.parse` keeps it). */
  private lastMembers(members: Skeleton): Map<string, Member> {
    let level = this.levels.get(members);
    if (!level) {
      level = new Map();
      for (const member of members) level.set(member[0], member);
      this.levels.set(members, level);
    }
    return level;
  }
}

/** Whether JSON text may spell a `$ref` key with escapes (see the module comment); errs towards yes. */
export function mayEscapeRefKey(bytes: Buffer, start = 0, end = bytes.length): boolean {
  for (let at = bytes.indexOf("\\u00", start); at >= 0 && at < end; at = bytes.indexOf("\\u00", at + 1)) {
    if (bytes[at - 1] === BACKSLASH) return true;
    if (REF_CHARACTERS.has(bytes.toString("latin1", at + 4, at + 6))) return true;
  }
  return false;
}

const DOLLAR = 0x24;

/** Whether `"$ref"` is written at the dollar sign at `at`. */
function isRefKey(text: Buffer, at: number): boolean {
  return (
    text[at - 1] === QUOTE &&
    text[at + 1] === 0x72 &&
    text[at + 2] === 0x65 &&
    text[at + 3] === 0x66 &&
    text[at + 4] === QUOTE
  );
}

function sameAscii(known: string, text: Buffer, start: number, end: number): boolean {
  if (known.length !== end - start) return false;
  for (let index = 0; index < known.length; index++) if (known.charCodeAt(index) !== text[start + index]) return false;
  return true;
}

function skipSpace(bytes: Buffer, from: number): number {
  let index = from;
  for (let byte = bytes[index]; byte === 32 || byte === 10 || byte === 13 || byte === 9; byte = bytes[++index]);
  return index;
}
