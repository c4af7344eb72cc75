/**
 * Keys for the per-operation model cache, computed on the document as parsed:
 * before normalising and dereferencing, which are what a warm run saves.
 *
 * An operation's tool depends on the operation object, its path item's own
 * fields (path-level parameters, `x-mcp`…), the document's top-level parts
 * (security, security schemes, the API's title, root `x-mcp`…; not webhooks,
 * which never become tools, nor what only the API-level prelude reads, such
 * as `info.version` or `servers`: the prelude has its own key) and every
 * component its `$ref`s reach, transitively. Components are hashed one "unit"
 * at a time (`#/components/schemas/Pet`, `#/definitions/Pet`), each once, and
 * an operation's key is the hash of its own JSON plus the units it reaches.
 *
 * A document this cannot key faithfully (a `$ref` to another file or into
 * `paths`, a `$ref` that does not resolve, a path item that is itself a
 * `$ref`, an `x-mcp` holding a `$ref`) gets no keys: the run takes the full
 * pipeline, which also reports those problems as a cold run would.
 */
import { isPlainObject } from "../../templates/server/src/runtime/shared/json.js";
import { HTTP_METHODS, type HttpMethod } from "../model/openapi.js";
import { hashContent } from "../write/hash.js";

type JsonObject = Record<string, unknown>;

/** Top-level keys whose entries are addressed one by one (component containers of OpenAPI 3.x and Swagger 2.0). */
const UNIT_DEPTH: Record<string, number> = { components: 3, definitions: 2, parameters: 2, responses: 2 };

export interface OperationKey {
  path: string;
  method: HttpMethod;
  key: string;
  /** Unit pointers (`#/components/schemas/Pet`) the operation refers to directly (see `DocumentKeys.reach`). */
  units: string[];
}

export interface DocumentKeys {
  /** The key of everything outside `paths` that every tool depends on. */
  prelude: string;
  /** Units reached from the top level, webhooks aside (no stage reads them; they only need to resolve, which the keys check). */
  preludeUnits: string[];
  operations: OperationKey[];
  /** The units reached from these, transitively, sorted. */
  reach(units: string[]): string[];
}

class Unkeyable extends Error {}

const hash = (text: string): string => hashContent(text).slice(0, 40);

/**
 * The cache keys of a parsed OpenAPI document's operations, or undefined when it cannot be keyed (see above).
 * `checkAll`: also check that the `$ref`s no operation reaches resolve (webhooks, unused components). Only a
 * run that may reuse entries needs that (a pruned run would not notice a broken one where a full run fails);
 * a run that takes the full pipeline anyway fails on them itself, and the keys are the same either way.
 */
export function documentKeys(document: JsonObject, salt: string, { checkAll = true } = {}): DocumentKeys | undefined {
  try {
    return computeKeys(document, salt, checkAll);
  } catch (error) {
    if (error instanceof Unkeyable) return undefined;
    throw error;
  }
}

function computeKeys(document: JsonObject, salt: string, checkAll: boolean): DocumentKeys {
  const units = new UnitTable(document);
  const top = topLevelPart(document);
  if (containsRefUnder(top["x-mcp"])) throw new Unkeyable();
  // Webhooks never become tools and no stage reads them: their `$ref`s must resolve (a cold run dereferences
  // them), but their content is no part of any key, so editing a component only webhooks use recomputes nothing.
  if (checkAll) for (const key of WEBHOOK_KEYS) units.unitsOf(collectRefs(top[key]));
  const core = withoutWebhooks(top);
  const coreJson = JSON.stringify(core);
  const coreUnits = units.unitsOf(refsInJson(coreJson));
  const prelude = hash(`${salt}\0${coreJson}\0${units.describe(coreUnits)}`);
  const preludeUnits = units.closure(coreUnits);
  // What operations see of the top level: not the API's version, descriptions or servers (only the prelude reads
  // them), so a release that bumps `info.version` still reuses every operation.
  const operationContext = withoutPreludeOnly(core);
  const contextJson = JSON.stringify(operationContext);
  const context = hash(`${salt}\0${contextJson}\0${units.describe(units.unitsOf(refsInJson(contextJson)))}`);
  const paths = document.paths;
  if (paths !== undefined && !isPlainObject(paths)) throw new Unkeyable();
  const operations: OperationKey[] = [];
  for (const [path, pathItem] of Object.entries(paths ?? {})) {
    if (!isPlainObject(pathItem)) continue;
    if ("$ref" in pathItem || containsRefUnder(pathItem["x-mcp"])) throw new Unkeyable();
    const shared = pathItemFields(pathItem);
    const sharedJson = JSON.stringify(shared);
    const sharedRefs = refsInJson(sharedJson);
    for (const method of HTTP_METHODS) {
      const operation = pathItem[method];
      if (!isPlainObject(operation)) continue;
      if (containsRefUnder(operation["x-mcp"])) throw new Unkeyable();
      const operationJson = JSON.stringify(operation);
      const direct = units.unitsOf([...sharedRefs, ...refsInJson(operationJson)]);
      const text = `${context}\0${path}\0${method}\0${sharedJson}\0${operationJson}\0${units.describe(direct)}`;
      operations.push({ path, method, key: hash(text), units: direct });
    }
  }
  // A cold run dereferences every component, so a broken `$ref` anywhere fails it: check the unreached ones too.
  if (checkAll) units.checkUnreached();
  return { prelude, preludeUnits, operations, reach: (from) => units.closure(from) };
}

/** The document without `paths` and without the component containers' entries (security schemes stay: every tool reads them). */
function topLevelPart(document: JsonObject): JsonObject {
  const top: JsonObject = {};
  for (const [key, value] of Object.entries(document)) {
    if (key === "paths") continue;
    if (key === "components" && isPlainObject(value))
      top[key] = value.securitySchemes === undefined ? {} : { securitySchemes: value.securitySchemes };
    else if (!(key in UNIT_DEPTH)) top[key] = value;
  }
  return top;
}

/**
 * Top-level parts only the API-level prelude reads (see src/model/prelude.ts):
 * `info` but its title (the environment variables' prefix comes from it), and
 * OpenAPI 3's `servers`, `tags`, `externalDocs`. Swagger 2.0's `host`,
 * `basePath` and `schemes` stay: the upgrade reads them.
 */
function withoutPreludeOnly(top: JsonObject): JsonObject {
  const { info, servers: _servers, tags: _tags, externalDocs: _externalDocs, ...rest } = top;
  return isPlainObject(info) ? { ...rest, info: { title: info.title } } : { ...rest, info };
}

/** Top-level webhooks (3.1 `webhooks`, the `x-webhooks` of 3.0 specs such as GitHub's) never become tools. */
export const WEBHOOK_KEYS = ["webhooks", "x-webhooks"];

export function withoutWebhooks(top: JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(top).filter(([key]) => !WEBHOOK_KEYS.includes(key)));
}

/** A path item's own fields (everything but its operations). */
export function pathItemFields(pathItem: JsonObject): JsonObject {
  const fields: JsonObject = {};
  for (const [key, value] of Object.entries(pathItem))
    if (!(HTTP_METHODS as readonly string[]).includes(key)) fields[key] = value;
  return fields;
}

function containsRefUnder(value: unknown): boolean {
  return value !== undefined && collectRefs(value).size > 0;
}

/** Every `$ref` string under a value. */
function collectRefs(value: unknown): Set<string> {
  return refsInJson(JSON.stringify(value) ?? "");
}

/**
 * Every distinct `$ref` string in JSON text: the `"$ref":"…"` members. Inside a JSON
 * string a quote is always escaped, so string content never matches; reading
 * the text JSON.stringify made is much faster than walking the objects.
 */
function refsInJson(json: string): Set<string> {
  const refs = new Set<string>();
  for (let at = json.indexOf(REF_MEMBER); at >= 0; at = json.indexOf(REF_MEMBER, at)) {
    const start = at + REF_MEMBER.length;
    const end = stringEnd(json, start);
    if (end < 0) break;
    const raw = json.slice(start, end);
    refs.add(raw.includes("\\") ? (JSON.parse(`"${raw}"`) as string) : raw);
    at = end + 1;
  }
  return refs;
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
class UnitTable {
  private readonly own = new Map<string, { hash: string; successors: string[] }>();
  private readonly deep = new Map<string, string>();

  constructor(private readonly document: JsonObject) {}

  /** The distinct units of some `$ref`s, sorted; refuses refs it cannot follow faithfully. */
  unitsOf(refs: Iterable<string>): string[] {
    const units = new Set<string>();
    for (const ref of refs) units.add(this.unitOf(ref));
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
    const tokens = ref === "#" || ref === "#/" ? [] : ref.slice(2).split("/").map(decodeToken);
    if (tokens.length === 0 || tokens[0] === "paths") throw new Unkeyable();
    if (valueAt(this.document, tokens) === undefined) throw new Unkeyable();
    const depth = UNIT_DEPTH[tokens[0]!] ?? 1;
    return "#/" + tokens.slice(0, depth).map(encodeToken).join("/");
  }

  private info(unit: string): { hash: string; successors: string[] } {
    let known = this.own.get(unit);
    if (!known) {
      const value = valueAt(this.document, unit.slice(2).split("/").map(decodeToken));
      const json = JSON.stringify(value) ?? "undefined";
      known = { hash: hash(json), successors: this.unitsOf(refsInJson(json)) };
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
