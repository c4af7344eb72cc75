/**
 * Where a tool's identifier can come from (see ./producers.ts, which ranks them): the API's answers indexed once
 * (fields by normalised name, declared links read in reverse), and per argument the candidate producers — declared
 * links, the resource's own list and create, and fields named after the argument.
 */
import type { Diagnostic, IdentifierProducer, JsonSchema, ToolModel } from "../model/ir.js";
import { answerFields, idField } from "./answer-fields.js";
import { identifierStem } from "./identifiers.js";
import { key, nounOf, openApiLinks, type LinkIndex, type PathInfo } from "./links.js";
import { findItemSchema, findItemsPointer } from "./pagination.js";
import { escapePointerToken, normName, schemaProperties, singularize, words } from "./schema-util.js";

/** Source kinds, most direct first. */
const enum Kind {
  Declared = 0,
  OwnList = 1,
  Field = 2,
  Create = 3,
}

export interface Candidate {
  tool: ToolModel;
  take: string;
  kind: Kind;
  /** Its note, made only for the few candidates kept (a common field name has dozens); a field's says where it is. */
  note?: () => string;
}

/** What the whole API offers, indexed once. */
export interface ProducerIndex {
  links: LinkIndex;
  /** Normalised field name (`authorid`) → where it appears in answers. */
  fields: Map<string, Candidate[]>;
  /** `<tool>\0<arg>` → declared links whose value comes from another tool's answer. */
  declared: Map<string, Array<{ tool: ToolModel; take: string; name: string }>>;
  /** Memoised producers by hops (0: the tool's own, 1: a first call's), tool name and argument; chains reuse them. */
  memo: [Map<string, Map<string, IdentifierProducer[]>>, Map<string, Map<string, IdentifierProducer[]>>];
  /** A collection's own list and create, by route, wire name and noun (see `ownCollection`): many tools share one. */
  collections: Map<string, Candidate[]>;
  /** Texts made from argument names, once per name (see `callerValue`, `stemIdKey`). */
  names: { caller: Map<string, string>; stemId: Map<string, string> };
}

export function buildProducerIndex(tools: ToolModel[], links: LinkIndex): ProducerIndex {
  const index: ProducerIndex = {
    links,
    fields: new Map(),
    declared: new Map(),
    memo: [new Map(), new Map()],
    collections: new Map(),
    names: { caller: new Map(), stemId: new Map() },
  };
  const scratch: Diagnostic[] = []; // links.ts already reports broken links once
  for (const tool of tools) {
    indexFields(index, tool);
    for (const link of openApiLinks(tool, links, scratch)) {
      for (const [arg, value] of Object.entries(link.params)) {
        const m = typeof value === "string" ? /^\$response\.body#(\/.*)?$/.exec(value) : null;
        if (!m) continue;
        const k = `${link.tool}\u0000${arg}`;
        const list = index.declared.get(k) ?? [];
        list.push({ tool, take: m[1] ?? "", name: link.name });
        index.declared.set(k, list);
      }
    }
  }
  return index;
}

function addField(index: ProducerIndex, name: string, tool: ToolModel, take: string): void {
  let list = index.fields.get(name);
  if (!list) index.fields.set(name, (list = []));
  // Made once here, as the candidate every search that reaches the field offers.
  if (list.length < 40 && !list.some((hit) => hit.tool === tool)) list.push({ tool, take, kind: Kind.Field });
}

/** Indexes the scalar fields of one answer: top level, one object level down, and a list's items. */
function indexFields(index: ProducerIndex, tool: ToolModel): void {
  const response = tool.responseSchema;
  if (!response) return;
  for (const { name, take } of answerFields(response)) addField(index, name, tool, take);
}

// ------------------------------------------------------------- candidates

export interface Target {
  /** Normalised field names that carry the argument's value. */
  keys: Set<string>;
  /** The resource's collection path (`/app_packages`) and noun, when known. */
  collection?: { route: string; noun: string; wire: string };
}

/** What to look for: field names, and the collection the identifier belongs to (by path position or by name). */
export function targetOf(tool: ToolModel, arg: string, index: ProducerIndex): Target {
  const binding = tool.operation?.parameters.find((p) => p.arg === arg);
  const keys = new Set([normName(arg)]);
  if (binding) keys.add(normName(binding.name));
  const stem = identifierStem(arg);
  if (stem) keys.add(normName(stem) + "id");
  const info = index.links.info.get(tool);
  const pos = binding?.in === "path" && info ? segmentOf(info, binding.name) : undefined;
  if (info && binding && pos !== undefined && pos >= 1) {
    const noun = nounOf(info, pos - 1);
    keys.add(normName(singularize(noun)) + "id");
    return { keys, collection: { route: key(info.shape.slice(0, pos)), noun, wire: binding.name } };
  }
  // `author_id` → the collection whose items `/authors/{id}` gets.
  const getter = stem ? index.links.gettersByNoun.get(normName(singularize(stem)))?.[0] : undefined;
  if (!getter || !stem) return { keys };
  const last = getter.shape.length - 1;
  return {
    keys,
    collection: {
      route: key(getter.shape.slice(0, last)),
      noun: nounOf(getter, last - 1),
      wire: getter.params.get(last) ?? arg,
    },
  };
}

/** The position of the path segment holding the parameter `wire`, the first if several. */
function segmentOf(info: PathInfo, wire: string): number | undefined {
  for (const [position, name] of info.params) if (name === wire) return position;
  return undefined;
}

/**
 * The id field of a resource; when its schema was cut to a stub (huge
 * response schemas are bounded for tools/list), the conventional one:
 * `{issue_number}` → `number`, `{petId}` → `id`.
 */
function resourceIdField(schema: JsonSchema | undefined, wire: string, noun: string): string | undefined {
  const known = idField(schema, wire, noun);
  if (known || !schema || Object.keys(schemaProperties(schema)).length > 0) return known;
  const w = normName(wire);
  const n = normName(singularize(noun));
  const rest = w.startsWith(n) && w.length > n.length ? words(wire).slice(words(noun).length).join("_") : "";
  return rest && rest !== "id" ? rest : "id";
}

/** `ownCollection`, once per collection route, wire name and noun. */
function collectionCandidates(c: NonNullable<Target["collection"]>, index: ProducerIndex): readonly Candidate[] {
  const id = `${c.route}\u0000${c.wire}\u0000${c.noun}`;
  let known = index.collections.get(id);
  if (!known) index.collections.set(id, (known = ownCollection(c, index)));
  return known;
}

/** The resource's own list (take an item's id) and create (take the new id). */
function ownCollection(c: NonNullable<Target["collection"]>, index: ProducerIndex): Candidate[] {
  const out: Candidate[] = [];
  const list = index.links.byRoute.get(`get ${c.route}`);
  const listResponse = list?.tool.responseSchema;
  const itemsPointer = listResponse ? findItemsPointer(listResponse) : undefined;
  if (list && itemsPointer !== undefined) {
    const field = resourceIdField(findItemSchema(listResponse, itemsPointer), c.wire, c.noun);
    if (field)
      out.push({
        tool: list.tool,
        take: `${itemsPointer}/0/${escapePointerToken(field)}`,
        kind: Kind.OwnList,
        note: () => `lists ${c.noun}s; take one's ${field}`,
      });
  }
  const create = index.links.byRoute.get(`post ${c.route}`);
  const field = create?.tool.responseSchema ? resourceIdField(create.tool.responseSchema, c.wire, c.noun) : undefined;
  if (create && field) {
    out.push({
      tool: create.tool,
      take: `/${escapePointerToken(field)}`,
      kind: Kind.Create,
      note: () =>
        `creates ${/^[aeiou]/i.test(c.noun) ? "an" : "a"} ${c.noun} (a new resource); its ${field} is the new id`,
    });
  }
  return out;
}

/** `/items/0/author/id` → `author.id`: the field, without the list around it. */
function fieldPath(take: string): string {
  const tokens = take.split("/").slice(1);
  const last = tokens.lastIndexOf("0");
  return tokens.slice(last + 1).join(".");
}

/** Where the argument's value can come from, other than the tool itself. */
export function candidates(tool: ToolModel, arg: string, target: Target, index: ProducerIndex): Candidate[] {
  const out: Candidate[] = [];
  for (const d of index.declared.get(`${tool.name}\u0000${arg}`) ?? []) {
    if (d.tool === tool) continue;
    out.push({
      tool: d.tool,
      take: d.take,
      kind: Kind.Declared,
      note: () => `its answer holds ${arg} (declared link "${d.name}")`,
    });
  }
  if (target.collection)
    for (const c of collectionCandidates(target.collection, index)) if (c.tool !== tool) out.push(c);
  for (const k of target.keys) {
    const hits = index.fields.get(k);
    if (hits) for (const hit of hits) if (hit.tool !== tool) out.push(hit);
  }
  return out;
}

export function noteOf(candidate: Candidate): string {
  return candidate.note ? candidate.note() : `its answer holds ${fieldPath(candidate.take)}`;
}
