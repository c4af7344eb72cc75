/**
 * The `$ref` parser's result, computed directly, for the documents almost
 * every spec is: references only within the document (`#/…`), each a bare
 * `{ "$ref": … }` to a plain object reached by plain keys, and no `$id` or
 * `$schema` that would change what `#` means. Then the parser's answer is
 * simple: every reference object is replaced by the object it points to (one
 * object per target, cycles kept as object cycles). The parser reaches it
 * with a URL resolution, a pointer join and a clock read per key: most of the
 * dereference stage on GitHub and Graph.
 *
 * Anything else (another file, a reference with sibling keys, a chain of
 * references, a missing target, a key named `__proto__`, nesting near the
 * parser's depth limit) answers undefined before anything is changed, and the
 * parser does the whole job as before, errors included. The walk visits keys
 * in the parser's order and counts depth as it does, so "near its limit" is
 * judged on the same numbers.
 */
import type { SpecObject } from "../normalise/index.js";
import { recordSharedObjects } from "./shared.js";

/** The parser's `dereference.maxDepth` (see index.ts); documents nesting close to it are left to the parser. */
const PARSER_MAX_DEPTH = 400;
const SAFE_DEPTH = PARSER_MAX_DEPTH - 10;

class NotSimple extends Error {}

type Node = Record<string, unknown> | unknown[];

/** Dereferences `document` in place and says whether it has cycles; undefined (document untouched) when it is not simple. */
export function dereferenceInternal(document: SpecObject): { circular: boolean } | undefined {
  try {
    const walk = new Walk(document);
    walk.crawl(document, 0);
    for (const [holder, key, target] of walk.replacements) (holder as Record<string, unknown>)[key] = target;
    // A list in two places makes its items reachable along two edges without being shared themselves: not tracked.
    if (!walk.sharedList) recordSharedObjects(document, walk.shared);
    return { circular: walk.circular };
  } catch (error) {
    if (error instanceof NotSimple) return undefined;
    throw error;
  }
}

class Walk {
  readonly replacements: Array<[Node, string, Node]> = [];
  circular = false;
  /** Objects reached along a second edge (see shared.ts), and whether one of them is a list. */
  readonly shared = new Set<object>();
  sharedList = false;
  /** Every object met: true while it is being crawled (open: a reference back to it is a cycle), then false. */
  private readonly met = new Map<object, boolean>();
  /** Targets by reference string: the parser follows each distinct reference once. */
  private readonly targets = new Map<string, Node>();

  constructor(private readonly root: SpecObject) {}

  crawl(value: unknown, depth: number): void {
    if (depth > SAFE_DEPTH) throw new NotSimple();
    if (typeof value !== "object" || value === null || this.met.has(value)) return;
    const node = value as Node;
    checkOwnKeys(node);
    if (isReference(node)) throw new NotSimple();
    this.met.set(node, true);
    // for…in visits the same keys in the same order as Object.keys (a parsed object inherits no enumerable key)
    // without an array per object: slightly faster on a run's single, unoptimised walk.
    for (const key in node) {
      const child = (node as Record<string, unknown>)[key];
      // A plain value (most of a document): only its depth counts, as when the parser meets it.
      if (typeof child !== "object" || child === null) {
        if (depth + 1 > SAFE_DEPTH) throw new NotSimple();
      } else if (isReference(child)) this.follow(node, key, child as Record<string, unknown>, depth);
      else {
        const open = this.met.get(child);
        if (open !== undefined) this.share(child);
        if (open !== true) this.crawl(child, depth + 1);
        else this.circular = true;
      }
    }
    this.met.set(node, false);
  }

  private follow(holder: Node, key: string, reference: Record<string, unknown>, depth: number): void {
    const ref = reference.$ref as string;
    if (Object.keys(reference).length !== 1) throw new NotSimple();
    let target = this.targets.get(ref);
    if (target === undefined) {
      target = this.resolve(ref);
      // Held by this reference and by its own place: shared (marked once, at its first reference).
      this.share(target);
      if (this.met.get(target) === true) this.circular = true;
      else this.crawl(target, depth + 1);
      // Like the parser's cache, filled once the target is crawled: a reference met inside it is followed again.
      this.targets.set(ref, target);
    }
    this.replacements.push([holder, key, target]);
  }

  private share(node: object): void {
    this.shared.add(node);
    if (Array.isArray(node)) this.sharedList = true;
  }

  /** The object a `#/…` reference names, reached through plain own keys only. */
  private resolve(ref: string): Node {
    if (!isPlainPointer(ref)) throw new NotSimple();
    const tokens = ref === "#" ? [] : ref.slice(2).split("/");
    let node: unknown = this.root;
    for (const raw of tokens) {
      if (typeof node !== "object" || node === null || Object.hasOwn(node, "$ref")) throw new NotSimple();
      const token = raw.replace(/~1/g, "/").replace(/~0/g, "~");
      if (!Object.hasOwn(node, token)) throw new NotSimple();
      node = (node as Record<string, unknown>)[token];
    }
    if (typeof node !== "object" || node === null || Object.hasOwn(node, "$ref")) throw new NotSimple();
    return node as Node;
  }
}

/**
 * What the parser treats as a reference: an object whose `$ref` is a non-empty
 * string starting with `#/` or equal to `#` (this document), or not starting
 * with `#` (another file: not simple). `#name` anchors are plain objects to it.
 */
function isReference(value: unknown): boolean {
  if (typeof value !== "object" || value === null || !("$ref" in value)) return false;
  const ref = (value as { $ref: unknown }).$ref;
  if (typeof ref !== "string" || ref.length === 0) return false;
  if (ref[0] !== "#") throw new NotSimple();
  return ref === "#" || ref.startsWith("#/");
}

/**
 * A pointer the parser's URL resolution gives back unchanged: printable ASCII
 * without `%` (decoded by it), a second `#` (cut by it) or a backslash.
 */
function isPlainPointer(ref: string): boolean {
  for (let index = 1; index < ref.length; index++) {
    const code = ref.charCodeAt(index);
    if (code <= 0x20 || code >= 0x7f || code === 0x25 /* % */ || code === 0x23 /* # */ || code === 0x5c /* \ */)
      return false;
  }
  return true;
}

/** Keys that change how the parser reads a document: schema identifiers and dialects, and `__proto__`. */
function checkOwnKeys(node: Node): void {
  if (Array.isArray(node)) return;
  if (Object.hasOwn(node, "$id") || Object.hasOwn(node, "$schema") || Object.hasOwn(node, "__proto__"))
    throw new NotSimple();
}
