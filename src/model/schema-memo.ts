/**
 * Converted sub-schemas of one model run, reused by every tool that reaches
 * the same schema object. A dereferenced document shares one object per
 * component, and GitHub's `simple-user` or Graph's entity types are reached
 * from hundreds of operations: converting each once per tool was most of the
 * model stage.
 *
 * What a conversion depends on besides the object itself (see schema.ts): the
 * direction, the depth left, and which of its sub-schemas are already open
 * further up (those become "recursive" stubs). An open schema further up
 * reaches the object; if the object reaches it too, both lie in one strongly
 * connected component of the sub-schema references. So an entry is keyed by
 * the open schemas of the object's own component (none for an object on no
 * cycle: most of GitHub's; Stripe's expandable resources all form one
 * component). Each entry also records the range of remaining depths over
 * which its result is the same (a schema that never met the depth limit
 * converts alike at any greater depth), and the diagnostics of its subtree
 * relative to its pointer, replayed at every reuse.
 */
import type { Diagnostic, JsonSchema } from "./ir.js";
import {
  pointerAt,
  type KnownLengths,
  SCHEMA_KEYWORDS,
  SCHEMA_LIST_KEYWORDS,
  SCHEMA_MAP_KEYWORDS,
  type SchemaDirection,
  type Where,
} from "./schema-keywords.js";
import { isPlainObject as isRecord } from "../../templates/server/src/runtime/shared/json.js";

export { withoutRepeats } from "./schema-repeats.js";

/**
 * A conversion and the remaining depths (`low`..`high`, inclusive) that give
 * exactly this result; when kept, also what the memo knows it by. Every one
 * is made by `converted` with all fields (one shape), and kept as it is.
 */
export interface Converted {
  schema: JsonSchema;
  low: number;
  high: number;
  /** The open schemas it was made with (see `openAround`). */
  around: string;
  /** The subtree's diagnostics, each pointer without the entry's own pointer in front. */
  diagnostics: Diagnostic[];
}

/**
 * The bound of a depth range that has none: a small integer rather than
 * Infinity, so that `low` and `high` stay small-integer fields (a double
 * field boxes its number in a heap object of its own, two per conversion).
 */
export const ANY_DEPTH = 2 ** 29;

/** The diagnostics of most entries, shared (never changed). */
const NONE: Diagnostic[] = [];

export function makeConverted(schema: JsonSchema, low: number, high: number): Converted {
  return { schema, low, high, around: "", diagnostics: NONE };
}

type Entry = Converted;

/** A schema bounded by `toBoundedJsonSchema`: the depth kept, and the top-level object it returned. */
export interface Bounded {
  depth: number;
  schema: JsonSchema;
}

export class SchemaMemo {
  private static readonly owned = new WeakMap<object, SchemaMemo>();

  /**
   * The memo of a run, known by an object that lives as long as the run (the model's prelude); `shared`: the
   * document's objects reached along more than one edge, when known (see `unshared`).
   */
  static of(owner: object, shared?: ReadonlySet<object>): SchemaMemo {
    let memo = SchemaMemo.owned.get(owner);
    if (!memo) SchemaMemo.owned.set(owner, (memo = new SchemaMemo(shared)));
    return memo;
  }

  constructor(private readonly shared?: ReadonlySet<object>) {}

  /** Each schema object's place (see `markCycles`), which also holds its entries. */
  private readonly places = new Map<object, Place>();
  /** Objects `markCycles` has numbered. */
  private visited = 0;
  private components = 0;
  /** What `toBoundedJsonSchema` kept, by its limits and schema object. */
  private readonly fitting = new Map<string, Map<object, Bounded>>();
  /** JSON lengths of converted schemas, for the size check of bounded request bodies (see `jsonLengthUpTo`). */
  readonly lengths: KnownLengths = { exact: new Map(), atLeast: new Map() };

  /**
   * What a conversion of `schema` depends on beyond itself, its direction and
   * the depth left: which members of its component are open further up.
   * Undefined for a schema on no cycle: nothing, and it never meets itself
   * below, so the conversion need not note it as open either.
   */
  openAround(place: Place, ancestors: Set<object>): string | undefined {
    if (place.component < 0) return undefined;
    let open: number[] | undefined;
    for (const ancestor of ancestors) {
      const other = this.places.get(ancestor);
      if (other?.component === place.component) (open ??= []).push(other.id);
    }
    return open ? open.sort((a, b) => a - b).join(",") : "";
  }

  /**
   * The depth `toBoundedJsonSchema` kept for `schema` under `limits` (its
   * direction, first depth and length limit), and the schema it returned:
   * the conversion at each depth depends on nothing else, so a shared
   * response schema is tried once.
   */
  bounded(schema: object, limits: string): Bounded | undefined {
    return this.fitting.get(limits)?.get(schema);
  }

  keepBounded(schema: object, limits: string, bounded: Bounded): void {
    let kept = this.fitting.get(limits);
    if (!kept) this.fitting.set(limits, (kept = new Map()));
    kept.set(schema, bounded);
  }

  /**
   * Whether the memo can leave `schema` out: an object of the document that only its one parent holds (see
   * src/dereference/shared.ts), and that no search of cycles has placed (a component's parts are placed with it,
   * and kept: a component is converted at several depths). Such a part is converted again only when its parent
   * is, and keeping it cost more than it saved (Stripe: 7,575 request body nodes, each converted once). It need
   * not be noted as open either: a way back to it passes through its parent, and up the chain of single parents
   * to a shared schema, which is open when on that cycle, or to the schema converted first, whose holder is no
   * schema (a media type, a parameter: see `SchemaContext.once`). Objects the model makes itself are held by
   * nothing in the document.
   */
  unshared(schema: object): boolean {
    return !this.isShared(schema) && !this.places.has(schema);
  }

  /** Whether the document holds `schema` in more than one place, or it is not known. */
  isShared(schema: object): boolean {
    return this.shared === undefined || this.shared.has(schema);
  }

  /** The place of `schema` when a search of cycles has reached it (see `placeOf`). */
  placed(schema: object): Place | undefined {
    return this.places.get(schema);
  }

  /** Whether none of `holders` (document objects that are not schemas: a path item, a media type) is shared. */
  unsharedHolders(...holders: unknown[]): boolean {
    if (this.shared === undefined) return false;
    for (const holder of holders)
      if (typeof holder !== "object" || holder === null || this.shared.has(holder)) return false;
    return true;
  }

  /** Whether `schema` lies on a cycle of sub-schema references. */
  onCycle(schema: object): boolean {
    return this.placeOf(schema).component >= 0;
  }

  /** The kept conversion of the schema at `place` at `remaining` depth, its diagnostics pushed with its pointer in front. */
  reuse(
    place: Place,
    direction: SchemaDirection,
    remaining: number,
    around: string,
    where: Where,
    diagnostics: Diagnostic[],
  ): Converted | undefined {
    const list = place[direction];
    if (!list) return undefined;
    let entry: Entry | undefined;
    for (const kept of list) {
      if (kept.around === around && kept.low <= remaining && remaining <= kept.high) {
        entry = kept;
        break;
      }
    }
    if (!entry) return undefined;
    if (entry.diagnostics.length === 0) return entry;
    const pointer = pointerAt(where);
    for (const found of entry.diagnostics) diagnostics.push({ ...found, pointer: pointer + found.pointer });
    return entry;
  }

  /** Keeps a conversion of the schema at `place` made with `around` open; `found` are the diagnostics of its subtree. */
  keep(
    place: Place,
    direction: SchemaDirection,
    around: string,
    converted: Converted,
    where: Where,
    found: Diagnostic[],
  ): void {
    const pointer = found.length > 0 ? pointerAt(where) : "";
    const diagnostics =
      found.length === 0
        ? NONE
        : found.map((diagnostic) => ({
            ...diagnostic,
            pointer: diagnostic.pointer.slice(pointer.length),
          }));
    const entry: Entry = converted;
    entry.around = around;
    entry.diagnostics = diagnostics;
    const list = place[direction];
    if (list) list.push(entry);
    else place[direction] = [entry];
  }

  /** Where `schema` lies among the sub-schema references (found with those it reaches on first asking). */
  placeOf(schema: object): Place {
    const place = this.places.get(schema);
    if (place) return place;
    this.markCycles(schema);
    return this.places.get(schema)!;
  }

  /**
   * Tarjan's strongly connected components over sub-schema references,
   * iterative (Graph's schemas nest deeper than the call stack allows), from
   * `root`; components finished by an earlier call are not entered again.
   * Each schema object's one record is its Tarjan state and then its place,
   * in the one map: a lookup per node and edge, and no second record when
   * its component closes (Stripe's one component reaches 14,600 objects).
   */
  private markCycles(root: object): void {
    const stack: Visit[] = [];
    const frames: Visit[] = [];
    const open = (node: object) => {
      const index = this.visited++;
      const visit: Visit = {
        node,
        component: OPEN,
        id: index,
        input: undefined,
        output: undefined,
        low: index,
        children: subSchemas(node),
        next: 0,
      };
      this.places.set(node, visit);
      stack.push(visit);
      frames.push(visit);
    };
    open(root);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1]!;
      if (frame.next < frame.children.length) {
        const child = frame.children[frame.next++]!;
        const seen = this.places.get(child) as Visit | undefined;
        if (!seen) open(child);
        // Open and not placed: still on the stack.
        else if (seen.component === OPEN && seen.id < frame.low) frame.low = seen.id;
        continue;
      }
      frames.pop();
      const parent = frames[frames.length - 1];
      if (parent && frame.low < parent.low) parent.low = frame.low;
      if (frame.low === frame.id) this.closeComponent(stack, frame);
    }
  }

  /** Pops one strongly connected component off the stack: a cycle when it has two members or refers to itself. */
  private closeComponent(stack: Visit[], head: Visit): void {
    const start = stack.lastIndexOf(head);
    const component = stack.length - start > 1 || head.children.includes(head.node) ? this.components++ : -1;
    for (let index = start; index < stack.length; index++) {
      const member = stack[index]!;
      member.component = component;
      member.children = NO_CHILDREN;
    }
    stack.length = start;
  }
}

/**
 * Where a schema object lies (its component: -1 when on no cycle, `OPEN` while `markCycles` is at it; its own number),
 * and its conversions kept per direction in the order kept: one list per object (a Map per node cost), found with its
 * place by one lookup.
 */
export interface Place {
  component: number;
  id: number;
  input: Entry[] | undefined;
  output: Entry[] | undefined;
}

const OPEN = -2;
const NO_CHILDREN: object[] = [];

/** One schema object's state in `markCycles` (its `id` is its Tarjan index), kept as its place. */
interface Visit extends Place {
  node: object;
  low: number;
  children: object[];
  next: number;
}

/** How each schema-valued keyword holds its sub-schemas. */
const SUB_SCHEMA_KINDS = new Map<string, "map" | "list" | "single">([
  ...SCHEMA_MAP_KEYWORDS.map((keyword) => [keyword, "map"] as const),
  ...SCHEMA_LIST_KEYWORDS.map((keyword) => [keyword, "list"] as const),
  ...SCHEMA_KEYWORDS.map((keyword) => [keyword, "single"] as const),
]);

/**
 * The objects a conversion may descend into: every schema-valued keyword's
 * objects (see convertObject). Walks the schema's own keys (a handful)
 * rather than probing all twenty keywords on each of Stripe's 14,600 objects;
 * the order of the children does not matter to `markCycles`.
 */
function subSchemas(schema: object): object[] {
  const record = schema as Record<string, unknown>;
  // Leaves (most nodes) share one empty list.
  let children: object[] | undefined;
  for (const keyword of Object.keys(record)) {
    const kind = SUB_SCHEMA_KINDS.get(keyword);
    if (kind === undefined) continue;
    const value = record[keyword];
    if (kind === "map") {
      if (isRecord(value)) for (const name of Object.keys(value)) children = withSchema(children, value[name]);
    } else if (Array.isArray(value)) for (const item of value) children = withSchema(children, item);
    else if (kind === "single") children = withSchema(children, value);
  }
  return children ?? NO_CHILDREN;
}

/** `children` with `value` added when it is a schema object (a list made at the first). */
function withSchema(children: object[] | undefined, value: unknown): object[] | undefined {
  if (!isRecord(value)) return children;
  if (!children) return [value];
  children.push(value);
  return children;
}
