/**
 * JSON Pointer (RFC 6901) helpers shared by the guidance modules: reading and
 * writing values by pointer, and rendering a pointer as a human field name.
 * Parsing and formatting pointers is in shared/json.ts.
 */
import { isPlainObject, parsePointer } from "../shared/json.js";

/** The value at `pointer` inside `root`, or `undefined` when any step is missing. */
export function getAt(root: unknown, pointer: string | readonly string[]): unknown {
  const segments = typeof pointer === "string" ? parsePointer(pointer) : pointer;
  let current: unknown = root;
  for (const segment of segments) {
    if (Array.isArray(current)) {
      if (!/^(0|[1-9]\d*)$/.test(segment)) return undefined;
      current = current[Number(segment)];
    } else if (isPlainObject(current)) {
      if (!Object.prototype.hasOwnProperty.call(current, segment)) return undefined;
      current = current[segment];
    } else {
      return undefined;
    }
  }
  return current;
}

/** Sets the value at `segments` (which must be non-empty); creates missing parent objects. */
export function setAt(root: Record<string, unknown>, segments: readonly string[], value: unknown): boolean {
  if (segments.length === 0) return false;
  let current: unknown = root;
  for (let i = 0; i < segments.length - 1; i++) {
    const segment = segments[i]!;
    const next = getAt(current, [segment]);
    if (next === undefined || next === null || typeof next !== "object") {
      const created: Record<string, unknown> = {};
      if (!assign(current, segment, created)) return false;
      current = created;
    } else {
      current = next;
    }
  }
  return assign(current, segments[segments.length - 1]!, value);
}

export function deleteAt(root: unknown, segments: readonly string[]): boolean {
  if (segments.length === 0) return false;
  const parent = getAt(root, segments.slice(0, -1));
  const last = segments[segments.length - 1]!;
  if (Array.isArray(parent)) {
    const index = Number(last);
    if (!Number.isInteger(index) || index >= parent.length) return false;
    parent.splice(index, 1);
    return true;
  }
  if (isPlainObject(parent) && Object.prototype.hasOwnProperty.call(parent, last)) {
    delete parent[last];
    return true;
  }
  return false;
}

function assign(container: unknown, segment: string, value: unknown): boolean {
  if (Array.isArray(container)) {
    const index = segment === "-" ? container.length : Number(segment);
    if (!Number.isInteger(index) || index < 0 || index > container.length) return false;
    container[index] = value;
    return true;
  }
  if (isPlainObject(container)) {
    container[segment] = value;
    return true;
  }
  return false;
}

/** `["pet", "tags", "0", "a b"]` -> `pet.tags[0]["a b"]`; the root is `(arguments)`. */
export function fieldName(segments: readonly string[]): string {
  if (segments.length === 0) return "(arguments)";
  let out = "";
  for (const segment of segments) {
    if (/^(0|[1-9]\d*)$/.test(segment) && out !== "") out += `[${segment}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(segment)) out += out === "" ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

/** Deep clone of JSON data (arguments, examples); faster than structuredClone for small values. */
export function cloneJson<T>(value: T): T {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(cloneJson) as T;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = cloneJson(v);
  return out as T;
}

export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => jsonEqual(v, b[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return (
    ka.length === kb.length &&
    ka.every((k) => jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  );
}
