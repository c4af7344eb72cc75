/**
 * A JSON document parsed only where a regeneration reads it.
 *
 * After a one-operation edit (src/cache/key-table.ts) a regeneration reads a
 * few dozen objects of the spec: the top level, every path item's own fields,
 * the edited operation and the components it reaches. `JSON.parse` of the whole
 * text (GitHub: 7–13 MB, ≈ 50–70 ms, and a heap of objects the collector then
 * promotes and walks) builds everything else for nothing. So one scan of the
 * bytes finds the members down to the level a regeneration addresses — the
 * top level, `paths/<path>/<member>`, `components/<group>/<name>` and Swagger
 * 2.0's `definitions|parameters|responses/<name>` — and each member's value is
 * parsed from its bytes when first read (an object with such members is a proxy
 * whose target then holds the value: see `LAZY_MEMBERS`).
 *
 * Reading a sparse document gives exactly what reading `JSON.parse` of the same
 * text gives: the same keys in the same order (an object's keys are defined in
 * text order, so integer-like keys come first as in any object; a repeated key
 * keeps its first place and its last value, as in `JSON.parse`), and each value
 * parsed by `JSON.parse` itself. The caller must know the text is JSON (here: a
 * spec the last run parsed, with one operation replaced by bytes that parse as
 * an object), and checks the depth of what is new; the scan only refuses what
 * it does not expect.
 */
import {
  BACKSLASH,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  containerEnd,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
  stringEnd,
} from "../json-bytes.js";
import { UNIT_DEPTH } from "./unit-table.js";
import { HTTP_METHODS, type HttpMethod } from "../model/openapi.js";

type JsonObject = Record<string, unknown>;

/** A member read when needed: its key and the bytes of its value. */
type LazyMember = [key: string, start: number, end: number];

/**
 * An object of a sparse document with members not read yet (see `objectOf`): the members by key, and the text they
 * are read from. Held for both the proxy and its target.
 */
interface Unread {
  bytes: Buffer;
  members: Map<string, LazyMember>;
  /** A path item's operations once read or written (see `OPERATION_ACCESSORS`); a proxy's target holds its own. */
  values?: Map<string, unknown>;
}
const unread = new WeakMap<object, Unread>();
const documents = new WeakSet<object>();

/**
 * Where an object's members lie in the text, in text order: a member read when needed (`[key, start, end]`, the
 * bytes of its value), or an object whose members are laid out in turn (`[key, members]`).
 */
export type Skeleton = Array<[key: string, start: number, end: number] | [key: string, members: Skeleton]>;

/** A lazily read member's bytes replaced: from `start` to `end` of the text before, by `length` bytes. */
export type SkeletonEdit = [start: number, end: number, length: number];
/** Thrown by the scan at anything it does not expect. */
class Unexpected extends Error {}

/**
 * The skeleton of JSON text `bytes` (see the module comment): one scan of the bytes. Undefined when the text is not
 * one JSON object as the scan expects.
 */
export function scanSkeleton(bytes: Buffer): Skeleton | undefined {
  try {
    // A byte order mark, as `parseSpecText` strips it.
    let start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
    start = skipSpace(bytes, start);
    if (bytes[start] !== OPEN_BRACE) return undefined;
    const skeleton: Skeleton = [];
    const end = scanObject(bytes, start, skeleton, (key) => structure(key));
    return skipSpace(bytes, end) === bytes.length ? skeleton : undefined;
  } catch (error) {
    if (error instanceof Unexpected) return undefined;
    throw error;
  }
}

/** The document of JSON text `bytes` laid out as `skeleton` says (from `scanSkeleton` of these very bytes, or moved by `moveSkeleton`). */
export function sparseDocument(bytes: Buffer, skeleton: Skeleton): JsonObject {
  const document = objectOf(bytes, skeleton, "document");
  documents.add(document);
  return document;
}

/** `sparseJsonDocument(bytes)` = `sparseDocument` of the scanned skeleton, or undefined when the scan refuses the text. */
export function sparseJsonDocument(bytes: Buffer): JsonObject | undefined {
  const skeleton = scanSkeleton(bytes);
  return skeleton && sparseDocument(bytes, skeleton);
}

/**
 * Where an object sits, which decides how its members are made: a path item's own fields (path-level parameters,
 * `x-mcp`…) are parsed at once, since every regeneration reads them all (Microsoft Graph: 16,858 of them, where
 * an accessor each would cost more than the parse); everything else not laid out is read when needed.
 */
type Role = "document" | "paths" | "path item" | "other";

function objectOf(bytes: Buffer, skeleton: Skeleton, role: Role): JsonObject {
  if (role === "path item") return pathItemOf(bytes, skeleton);
  const target: JsonObject = {};
  let members: Map<string, LazyMember> | undefined;
  for (const member of skeleton) {
    const key = member[0];
    if (member.length === 2) {
      members?.delete(key);
      setMember(target, key, objectOf(bytes, member[1], childRole(role, key)));
    } else {
      // Its place among the keys now (a repeated key keeps its first place), its value when read.
      (members ??= new Map()).set(key, member);
      setMember(target, key, undefined);
    }
  }
  if (!members) return target;
  const state = { bytes, members };
  const proxy = new Proxy(target, LAZY_MEMBERS);
  unread.set(target, state);
  unread.set(proxy, state);
  return proxy;
}

/**
 * A path item: its operations read when needed, its own fields (path-level parameters, `x-mcp`…) parsed at once,
 * since every regeneration reads them all (Microsoft Graph: 16,858 of them, where a lazy member each would cost
 * more than the parse). Every regeneration also walks every path item (GitHub: 810), which through a proxy costs
 * a few milliseconds more; a path item is a plain object whose operations are accessors shared by all path items
 * (`OPERATION_ACCESSORS`), so that path items with the same keys share one layout.
 */
function pathItemOf(bytes: Buffer, skeleton: Skeleton): JsonObject {
  const item: JsonObject = {};
  const members = new Map<string, LazyMember>();
  for (const member of skeleton) {
    const key = member[0];
    const accessor = OPERATION_ACCESSORS.get(key);
    // (The scan lays out no path item's member; a recorded skeleton that does is read as it says.)
    if (member.length === 2) setMember(item, key, objectOf(bytes, member[1], "other"));
    else if (accessor) {
      members.set(key, member);
      Object.defineProperty(item, key, accessor);
    } else setMember(item, key, JSON.parse(bytes.toString("utf8", member[1], member[2])));
  }
  if (members.size > 0) unread.set(item, { bytes, members, values: new Map() });
  return item;
}

/** One getter and setter per HTTP method, shared by every path item: the operation's value is kept in `Unread.values`. */
const OPERATION_ACCESSORS = new Map<string, PropertyDescriptor>(
  HTTP_METHODS.map((method) => [
    method,
    {
      enumerable: true,
      configurable: true,
      get(this: JsonObject): unknown {
        const state = unread.get(this);
        if (!state) return undefined;
        const member = state.members.get(method);
        if (member !== undefined) {
          state.members.delete(method);
          state.values!.set(method, JSON.parse(state.bytes.toString("utf8", member[1], member[2])));
        }
        return state.values!.get(method);
      },
      set(this: JsonObject, value: unknown) {
        const state = unread.get(this);
        state?.members.delete(method);
        state?.values!.set(method, value);
      },
    },
  ]),
);

/**
 * The traps of an object with members not read yet: a member is parsed from its bytes at its first read, and then
 * held by the target as a plain data property; one written, defined or deleted first is never read from the text.
 * An accessor per member cost ≈ 4 µs each to define (GitHub: 3,000 members, ≈ 12 ms a regeneration), and redefining
 * one as data on an object of hundreds copies the object's layout each time; a proxy defines nothing per member.
 * The keys are the target's own, in text order. (A property descriptor asked for before the member is read holds
 * `undefined`: `Object.keys` asks for the descriptor of every key, and must not parse them all.)
 */
const LAZY_MEMBERS: ProxyHandler<JsonObject> = {
  get(target, key, receiver) {
    if (typeof key === "string") readMember(target, key);
    return Reflect.get(target, key, receiver);
  },
  set(target, key, value) {
    if (typeof key === "string") unread.get(target)?.members.delete(key);
    return Reflect.set(target, key, value);
  },
  defineProperty(target, key, descriptor) {
    if (typeof key === "string") unread.get(target)?.members.delete(key);
    return Reflect.defineProperty(target, key, descriptor);
  },
  deleteProperty(target, key) {
    if (typeof key === "string") unread.get(target)?.members.delete(key);
    return Reflect.deleteProperty(target, key);
  },
};

function readMember(target: JsonObject, key: string): void {
  const state = unread.get(target);
  const member = state?.members.get(key);
  if (member === undefined) return;
  state!.members.delete(key);
  setMember(target, key, JSON.parse(state!.bytes.toString("utf8", member[1], member[2])));
}

/** `target[key] = value` as `JSON.parse` makes it: an own data property, `__proto__` included. */
function setMember(target: JsonObject, key: string, value: unknown): void {
  if (key === "__proto__")
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  else target[key] = value;
}

function childRole(role: Role, key: string): Role {
  if (role === "document") return key === "paths" ? "paths" : "other";
  return role === "paths" ? "path item" : "other";
}

/**
 * The operation object (`paths/<path>/<method>`, a lazily read member) whose bytes enclose bytes `from` to `to`,
 * its closing brace at or after `to`; undefined when there is none.
 */
export function operationInSkeleton(
  skeleton: Skeleton,
  from: number,
  to: number,
): { path: string; method: HttpMethod; start: number; end: number } | undefined {
  for (const top of skeleton) {
    if (top[0] !== "paths" || top.length !== 2) continue;
    for (const item of top[1]) {
      if (item.length !== 2) continue;
      for (const member of item[1]) {
        if (member.length !== 3 || !(HTTP_METHODS as readonly string[]).includes(member[0])) continue;
        const [method, start, end] = member;
        if (start < from && to < end) return { path: item[0], method: method as HttpMethod, start, end };
      }
    }
  }
  return undefined;
}

/**
 * Whether each lazily read member of `skeleton` sits in `bytes` as a member does: after a colon, before a comma or
 * the closing brace. (A skeleton belongs to the bytes whose hash the record names; this catches a shift gone wrong.)
 */
export function fitsSkeleton(bytes: Buffer, skeleton: Skeleton): boolean {
  for (const member of skeleton) {
    if (member.length === 2) {
      if (!fitsSkeleton(bytes, member[1])) return false;
      continue;
    }
    const start = member[1];
    const end = member[2];
    if (!(start < end && end <= bytes.length)) return false;
    let before = start - 1;
    while (isSpace(bytes[before])) before--;
    const after = skipSpace(bytes, end);
    if (bytes[before] !== COLON || (bytes[after] !== COMMA && bytes[after] !== CLOSE_BRACE)) return false;
  }
  return true;
}

/** Whether `document` was made by `sparseDocument`. */
export function isSparseDocument(document: unknown): boolean {
  return typeof document === "object" && document !== null && documents.has(document);
}

/**
 * Whether `holder[key]` is a JSON object (not an array or null), without parsing it when it is a member of a
 * sparse document not read yet.
 */
export function holdsObject(holder: JsonObject, key: string): boolean {
  const state = unread.get(holder);
  const member = state?.members.get(key);
  if (member !== undefined) return state!.bytes[member[1]] === OPEN_BRACE;
  const value = holder[key];
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** What the members of an object at a document pointer are scanned as: objects whose members are scanned in turn, or values read when needed. */
type Plan = (key: string) => Plan | undefined;

/** Paths, path items, component containers and groups are scanned; everything else is read when needed. */
function structure(topKey: string): Plan | undefined {
  if (topKey === "paths") return () => () => undefined;
  const depth = UNIT_DEPTH[topKey];
  if (depth === 3) return () => () => undefined;
  if (depth === 2) return () => undefined;
  return undefined;
}

/** Scans the object whose `{` is at `start` into `skeleton`; returns the index after its `}`. */
function scanObject(bytes: Buffer, start: number, skeleton: Skeleton, plan: Plan): number {
  let index = skipSpace(bytes, start + 1);
  if (bytes[index] === CLOSE_BRACE) return index + 1;
  for (;;) {
    if (bytes[index] !== QUOTE) throw new Unexpected();
    const keyEnd = stringEnd(bytes, index);
    if (keyEnd < 0) throw new Unexpected();
    const key = decodeKey(bytes, index, keyEnd);
    index = skipSpace(bytes, keyEnd);
    if (bytes[index] !== COLON) throw new Unexpected();
    const valueStart = skipSpace(bytes, index + 1);
    const inner = plan(key);
    let valueEnd: number;
    if (inner && bytes[valueStart] === OPEN_BRACE) {
      const members: Skeleton = [];
      valueEnd = scanObject(bytes, valueStart, members, inner);
      skeleton.push([key, members]);
    } else {
      valueEnd = valueEndAt(bytes, valueStart);
      skeleton.push([key, valueStart, valueEnd]);
    }
    index = skipSpace(bytes, valueEnd);
    if (bytes[index] === CLOSE_BRACE) return index + 1;
    if (bytes[index] !== COMMA) throw new Unexpected();
    index = skipSpace(bytes, index + 1);
  }
}

function decodeKey(bytes: Buffer, start: number, end: number): string {
  for (let index = start + 1; index < end - 1; index++)
    if (bytes[index] === BACKSLASH) return JSON.parse(bytes.toString("utf8", start, end)) as string;
  return bytes.toString("utf8", start + 1, end - 1);
}

/** The index just after the JSON value that starts at `start`. */
function valueEndAt(bytes: Buffer, start: number): number {
  const first = bytes[start];
  if (first === QUOTE) {
    const end = stringEnd(bytes, start);
    if (end < 0) throw new Unexpected();
    return end;
  }
  if (first === OPEN_BRACE || first === OPEN_BRACKET) {
    const end = containerEnd(bytes, start);
    if (end < 0) throw new Unexpected();
    return end;
  }
  let index = start;
  for (;;) {
    const byte = bytes[index];
    if (
      byte === undefined ||
      byte === COMMA ||
      byte === CLOSE_BRACE ||
      byte === CLOSE_BRACKET ||
      byte === 32 ||
      byte === 10 ||
      byte === 13 ||
      byte === 9
    )
      break;
    index++;
  }
  if (index === start) throw new Unexpected();
  return index;
}

function skipSpace(bytes: Buffer, from: number): number {
  let index = from;
  while (isSpace(bytes[index])) index++;
  return index;
}

function isSpace(byte: number | undefined): boolean {
  return byte === 32 || byte === 10 || byte === 13 || byte === 9;
}
