/**
 * The units of a document's cache keys (src/cache/refs.ts): each component
 * (`#/components/schemas/Pet`, `#/definitions/Pet`) hashed once, with the
 * units its `$ref`s name, and the deep hash of each strongly connected group.
 */
import { isPlainObject } from "../../templates/server/src/runtime/shared/json.js";
import { hashContent } from "../write/hash.js";

type JsonObject = Record<string, unknown>;

/** Top-level keys whose entries are addressed one by one (component containers of OpenAPI 3.x and Swagger 2.0). */
export const UNIT_DEPTH: Record<string, number> = { components: 3, definitions: 2, parameters: 2, responses: 2 };

/** A unit's own hash, its deep hash (when computed) and its successors. */
export type UnitRecord = [own: string, deep: string | undefined, successors: string[]];

/** Thrown where a document cannot be keyed faithfully (see src/cache/refs.ts). */
export class Unkeyable extends Error {}

export const hash = (text: string): string => hashContent(text).slice(0, 40);

/**
 * Every distinct `$ref` string in JSON text: the `"$ref":"…"` members. Inside a JSON
 * string a quote is always escaped, so string content never matches; reading
 * the text JSON.stringify made is much faster than walking the objects.
 */
export function refsInJson(json: string): Set<string> {
  const refs = new Set<string>();
  forEachRef(json, (ref) => refs.add(ref));
  return refs;
}

/** Calls `found` with each `$ref` string of JSON text, in order, repeats included (see `refsInJson`). */
function forEachRef(json: string, found: (ref: string) => void): void {
  for (let at = json.indexOf(REF_MEMBER); at >= 0; at = json.indexOf(REF_MEMBER, at)) {
    const start = at + REF_MEMBER.length;
    const end = stringEnd(json, start);
    if (end < 0) break;
    const raw = json.slice(start, end);
    found(raw.includes("\\") ? (JSON.parse(`"${raw}"`) as string) : raw);
    at = end + 1;
  }
}

/** How a `$ref` member starts in JSON.stringify's text (no whitespace). */
const REF_MEMBER = '"$ref":"';

/** The index of the quote that closes a JSON string whose content starts at `from` (the one after an even run of backslashes). */
function stringEnd(json: string, from: number): number {
  for (let quote = json.indexOf('"', from); quote >= 0; quote = json.indexOf('"', quote + 1)) {
    let backslashes = 0;
    while (json.charCodeAt(quote - 1 - backslashes) === 92 /* \ */) backslashes++;
    if (backslashes % 2 === 0) return quote;
  }
  return -1;
}

/**
 * The decoded tokens of a `#/…` pointer. Most pointers have neither escapes nor percent-encoding, and their
 * tokens are their segments as they stand: decoding those (one call and two regex passes each) is skipped.
 */
function pointerTokens(pointer: string): string[] {
  const segments = pointer.slice(2).split("/");
  return pointer.includes("~") || pointer.includes("%") ? segments.map(decodeToken) : segments;
}

function decodeToken(token: string): string {
  try {
    return decodeURIComponent(token).replace(/~1/g, "/").replace(/~0/g, "~");
  } catch {
    throw new Unkeyable();
  }
}

/**
 * Each unit's own hash and references, and its deep hash: one per strongly
 * connected group of units (recursive schemas refer to each other), covering
 * the group's members and the deep hashes of everything they refer to. So an
 * operation's key needs only the deep hashes of the units it names directly.
 */
export class UnitTable {
  private readonly own = new Map<string, { hash: string; successors: string[] }>();
  private readonly deep = new Map<string, string>();

  /** `known`: units recorded for a document whose units are all the same as this one's (see `keysAfterEdit`). */
  constructor(
    private readonly document: JsonObject,
    known: Record<string, UnitRecord> = {},
  ) {
    for (const [unit, [own, deep, successors]] of Object.entries(known)) {
      this.own.set(unit, { hash: own, successors });
      if (deep !== undefined) this.deep.set(unit, deep);
    }
  }

  /** Every unit hashed so far (see `KeyRecord`). */
  record(): Record<string, UnitRecord> {
    const units: Record<string, UnitRecord> = {};
    for (const [unit, { hash, successors }] of this.own) units[unit] = [hash, this.deep.get(unit), successors];
    return units;
  }

  /** The distinct units of some `$ref`s, sorted; refuses refs it cannot follow faithfully. */
  unitsOf(refs: Iterable<string>): string[] {
    const units = new Set<string>();
    for (const ref of refs) units.add(this.unitOf(ref));
    return [...units].sort();
  }

  /** `unitsOf(refsInJson(json))` for each text, merged, without the intermediate sets of refs. */
  unitsIn(...texts: string[]): string[] {
    const units = new Set<string>();
    for (const json of texts) forEachRef(json, (ref) => units.add(this.unitOf(ref)));
    return [...units].sort();
  }

  /** The units reached from `start`, transitively, sorted. */
  closure(start: string[]): string[] {
    const reached = new Set<string>();
    const queue = [...start];
    while (queue.length > 0) {
      const unit = queue.pop()!;
      if (reached.has(unit)) continue;
      reached.add(unit);
      queue.push(...this.info(unit).successors);
    }
    return [...reached].sort();
  }

  /** Names and deep hashes of units: what a key needs to cover everything they reach. */
  describe(units: string[]): string {
    return units.map((unit) => `${unit} ${this.deepHash(unit)}`).join("\n");
  }

  /** Throws Unkeyable when a component no operation reaches holds a `$ref` that cannot be followed. */
  checkUnreached(): void {
    for (const [container, depth] of Object.entries(UNIT_DEPTH)) {
      const value = this.document[container];
      if (!isPlainObject(value)) continue;
      const groups: Array<[string, unknown]> =
        depth === 3
          ? Object.entries(value).flatMap(([group, members]) =>
              isPlainObject(members)
                ? Object.entries(members).map(([name, member]): [string, unknown] => [
                    `${encodeToken(group)}/${encodeToken(name)}`,
                    member,
                  ])
                : [],
            )
          : Object.entries(value).map(([name, member]): [string, unknown] => [encodeToken(name), member]);
      for (const [name, entry] of groups) {
        // A unit already hashed had its refs checked then.
        if (this.own.has(`#/${container}/${name}`)) continue;
        for (const ref of refsInJson(JSON.stringify(entry) ?? "")) this.unitOf(ref);
      }
    }
  }

  private readonly units = new Map<string, string>();

  private unitOf(ref: string): string {
    let unit = this.units.get(ref);
    if (unit === undefined) {
      unit = this.findUnit(ref);
      this.units.set(ref, unit);
    }
    return unit;
  }

  private findUnit(ref: string): string {
    if (!ref.startsWith("#")) throw new Unkeyable();
    const tokens = ref === "#" || ref === "#/" ? [] : pointerTokens(ref);
    if (tokens.length === 0 || tokens[0] === "paths") throw new Unkeyable();
    if (valueAt(this.document, tokens) === undefined) throw new Unkeyable();
    const depth = UNIT_DEPTH[tokens[0]!] ?? 1;
    return "#/" + tokens.slice(0, depth).map(encodeToken).join("/");
  }

  private info(unit: string): { hash: string; successors: string[] } {
    let known = this.own.get(unit);
    if (!known) {
      // A unit whose pointer does not lead back to its value (a name holding `%`, decoded once more) cannot be
      // keyed by its content: hashing "undefined" for it would let an edit of it reuse stale entries.
      const json = JSON.stringify(valueAt(this.document, pointerTokens(unit)));
      if (json === undefined) throw new Unkeyable();
      known = { hash: hash(json), successors: this.unitsIn(json) };
      this.own.set(unit, known);
    }
    return known;
  }

  /** Tarjan's algorithm, iterative; a group's hash is set once all groups it refers to have theirs. */
  private deepHash(start: string): string {
    const done = this.deep.get(start);
    if (done) return done;
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const onStack = new Set<string>();
    const work: Array<{ unit: string; next: number }> = [];
    const visit = (unit: string) => {
      index.set(unit, index.size);
      low.set(unit, index.get(unit)!);
      stack.push(unit);
      onStack.add(unit);
      work.push({ unit, next: 0 });
    };
    visit(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const successors = this.info(frame.unit).successors;
      if (frame.next < successors.length) {
        const successor = successors[frame.next++]!;
        if (this.deep.has(successor)) continue;
        if (!index.has(successor)) visit(successor);
        else if (onStack.has(successor)) low.set(frame.unit, Math.min(low.get(frame.unit)!, index.get(successor)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.unit, Math.min(low.get(parent.unit)!, low.get(frame.unit)!));
      if (low.get(frame.unit) === index.get(frame.unit)) this.closeGroup(frame.unit, stack, onStack);
    }
    return this.deep.get(start)!;
  }

  private closeGroup(root: string, stack: string[], onStack: Set<string>): void {
    const members: string[] = [];
    let unit: string;
    do {
      unit = stack.pop()!;
      onStack.delete(unit);
      members.push(unit);
    } while (unit !== root);
    members.sort();
    const inGroup = new Set(members);
    const outside = new Set<string>();
    for (const member of members)
      for (const successor of this.info(member).successors)
        if (!inGroup.has(successor)) outside.add(`${successor} ${this.deep.get(successor)!}`);
    const own = members.map((member) => `${member} ${this.info(member).hash}`).join("\n");
    const groupHash = hash(`${own}\0${[...outside].sort().join("\n")}`);
    for (const member of members) this.deep.set(member, groupHash);
  }
}

function encodeToken(token: string): string {
  return token.replace(/~/g, "~0").replace(/\//g, "~1");
}

function valueAt(document: JsonObject, tokens: string[]): unknown {
  let node: unknown = document;
  for (const token of tokens) {
    if (Array.isArray(node)) node = node[Number(token)];
    else if (isPlainObject(node) && Object.hasOwn(node, token)) node = node[token];
    else return undefined;
  }
  return node;
}
