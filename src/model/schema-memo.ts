/**
 * Converted sub-schemas of one model run, reused by every tool that reaches
 * the same schema object. A dereferenced document shares one object per
 * component, and GitHub's `simple-user` or Graph's entity types are reached
 * from hundreds of operations: converting each once per tool was most of the
 * model stage.
 *
 * What a conversion depends on besides the object itself (see schema.ts): the
 * direction, the depth left, and which of its sub-schemas are already open
 * further up (those become "recursive" stubs). The last can differ between
 * two visits only when the object lies on a cycle of sub-schema references,
 * because an open schema further up reaches the object; so only objects on no
 * cycle are kept. Each entry records the range of remaining depths over which
 * its result is the same (a schema that never met the depth limit converts
 * alike at any greater depth), and the diagnostics of its subtree relative to
 * its pointer, replayed at every reuse.
 */
import type { Diagnostic, JsonSchema } from "./ir.js";
import type { SchemaDirection } from "./schema-keywords.js";
import { SCHEMA_KEYWORDS, SCHEMA_LIST_KEYWORDS, SCHEMA_MAP_KEYWORDS } from "./schema-keywords.js";

/** A conversion and the remaining depths (`low`..`high`, inclusive) that give exactly this result. */
export interface Converted {
  schema: JsonSchema;
  low: number;
  high: number;
}

interface Entry extends Converted {
  /** The subtree's diagnostics, each pointer without the entry's own pointer in front. */
  diagnostics: Diagnostic[];
}

export class SchemaMemo {
  private static readonly owned = new WeakMap<object, SchemaMemo>();

  /** The memo of a run, known by an object that lives as long as the run (the model's prelude). */
  static of(owner: object): SchemaMemo {
    let memo = SchemaMemo.owned.get(owner);
    if (!memo) SchemaMemo.owned.set(owner, (memo = new SchemaMemo()));
    return memo;
  }

  private readonly entries: Record<SchemaDirection, Map<object, Entry[]>> = { input: new Map(), output: new Map() };
  private readonly cyclic = new Map<object, boolean>();
  /** JSON lengths of converted schemas, for the size budget of bounded schemas (see `jsonLengthUpTo`). */
  readonly lengths = new WeakMap<object, number>();

  /** The kept conversion of `schema` at `remaining` depth, its diagnostics pushed with `pointer` in front. */
  reuse(
    schema: object,
    direction: SchemaDirection,
    remaining: number,
    pointer: string,
    diagnostics: Diagnostic[],
  ): Converted | undefined {
    const entry = this.entries[direction].get(schema)?.find(({ low, high }) => low <= remaining && remaining <= high);
    if (!entry) return undefined;
    for (const found of entry.diagnostics) diagnostics.push({ ...found, pointer: pointer + found.pointer });
    return entry;
  }

  /** Keeps a conversion unless the object lies on a cycle; `found` are the diagnostics of its subtree. */
  keep(schema: object, direction: SchemaDirection, converted: Converted, pointer: string, found: Diagnostic[]): void {
    if (this.onCycle(schema)) return;
    const diagnostics = found.map((diagnostic) => ({
      ...diagnostic,
      pointer: diagnostic.pointer.slice(pointer.length),
    }));
    const entry: Entry = { ...converted, diagnostics };
    const list = this.entries[direction].get(schema);
    if (list) list.push(entry);
    else this.entries[direction].set(schema, [entry]);
  }

  private onCycle(schema: object): boolean {
    if (!this.cyclic.has(schema)) this.markCycles(schema);
    return this.cyclic.get(schema)!;
  }

  /**
   * Tarjan's strongly connected components over sub-schema references,
   * iterative (Graph's schemas nest deeper than the call stack allows), from
   * `root`; components finished by an earlier call are not entered again.
   */
  private markCycles(root: object): void {
    const index = new Map<object, number>();
    const low = new Map<object, number>();
    const stack: object[] = [];
    const frames: Array<{ node: object; children: object[]; next: number }> = [];
    const open = (node: object) => {
      index.set(node, index.size);
      low.set(node, index.get(node)!);
      stack.push(node);
      frames.push({ node, children: subSchemas(node), next: 0 });
    };
    open(root);
    while (frames.length > 0) {
      const frame = frames[frames.length - 1]!;
      if (frame.next < frame.children.length) {
        const child = frame.children[frame.next++]!;
        if (this.cyclic.has(child)) continue;
        if (!index.has(child)) open(child);
        else low.set(frame.node, Math.min(low.get(frame.node)!, index.get(child)!));
        continue;
      }
      frames.pop();
      const parent = frames[frames.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) this.closeComponent(stack, frame.node, frame.children);
    }
  }

  /** Pops one strongly connected component off the stack: a cycle when it has two members or refers to itself. */
  private closeComponent(stack: object[], head: object, headChildren: object[]): void {
    const members: object[] = [];
    let member: object;
    do {
      member = stack.pop()!;
      members.push(member);
    } while (member !== head);
    const cycle = members.length > 1 || headChildren.includes(head);
    for (const node of members) this.cyclic.set(node, cycle);
  }
}

/**
 * The schema with every sub-schema object appearing once: a tool's input
 * schema may reach one memo entry along two paths (two parameters of one
 * type, an entity inside another), and the example generator tells the
 * sub-schemas of one input apart by identity (each takes the role of the
 * property it sits under). A repeat is copied, and so is the path down to it
 * (memo entries are shared with other tools and never changed); sharing
 * between tools stays. Non-schema values (`enum`, `examples`) were always shared.
 */
export function withoutRepeats(schema: JsonSchema): JsonSchema {
  const seen = new Set<object>();
  const own = (node: unknown): unknown => {
    if (!isRecord(node)) return node;
    if (seen.has(node)) return copySchema(node);
    seen.add(node);
    return withSubSchemas(node, own, false);
  };
  return own(schema) as JsonSchema;
}

function copySchema(schema: JsonSchema): JsonSchema {
  return withSubSchemas(schema, (node) => (isRecord(node) ? copySchema(node) : node), true);
}

/**
 * `schema` with each sub-schema (as convertObject lays them out) replaced by
 * `replace`'s answer: the same object when no answer differs, unless `copy`.
 */
function withSubSchemas(schema: JsonSchema, replace: (node: unknown) => unknown, copy: boolean): JsonSchema {
  let out: JsonSchema | undefined = copy ? { ...schema } : undefined;
  const update = (keyword: string, value: unknown) => ((out ??= { ...schema })[keyword] = value);
  for (const keyword of SCHEMA_MAP_KEYWORDS) {
    const map = schema[keyword];
    if (!isRecord(map)) continue;
    const names = Object.keys(map);
    const values = names.map((name) => replace(map[name]));
    if (!copy && values.every((value, index) => value === map[names[index]!])) continue;
    const next: Record<string, unknown> = {};
    names.forEach((name, index) =>
      Object.defineProperty(next, name, { value: values[index], enumerable: true, writable: true, configurable: true }),
    );
    update(keyword, next);
  }
  for (const keyword of [...SCHEMA_LIST_KEYWORDS, ...SCHEMA_KEYWORDS]) {
    const value = schema[keyword];
    if (Array.isArray(value)) {
      const next = value.map(replace);
      if (copy || next.some((item, index) => item !== value[index])) update(keyword, next);
    } else if (isRecord(value)) {
      const next = replace(value);
      if (copy || next !== value) update(keyword, next);
    }
  }
  return out ?? schema;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The objects a conversion may descend into: every schema-valued keyword's objects (see convertObject). */
function subSchemas(schema: object): object[] {
  const record = schema as Record<string, unknown>;
  const children: object[] = [];
  const add = (value: unknown) => {
    if (typeof value === "object" && value !== null && !Array.isArray(value)) children.push(value);
  };
  for (const keyword of SCHEMA_MAP_KEYWORDS) {
    const map = record[keyword];
    if (typeof map === "object" && map !== null && !Array.isArray(map)) Object.values(map).forEach(add);
  }
  for (const keyword of SCHEMA_LIST_KEYWORDS) {
    const list = record[keyword];
    if (Array.isArray(list)) list.forEach(add);
  }
  for (const keyword of SCHEMA_KEYWORDS) {
    const value = record[keyword];
    if (Array.isArray(value)) value.forEach(add);
    else add(value);
  }
  return children;
}
