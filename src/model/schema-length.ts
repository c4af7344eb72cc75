/** Measuring a converted schema's JSON length without serialising it (see `toBoundedJsonSchema` in schema.ts). */
import type { KnownLengths } from "./schema-keywords.js";

/**
 * `JSON.stringify(value).length` while it is at most `limit`; past that, some
 * number above `limit`. Stops early, so a 300 KB schema is not serialised
 * once per depth tried just to learn that it is too big. `known` keeps what
 * was learnt of each object: a memo's sub-schemas are shared by many tools
 * and by each depth tried, and are never changed.
 */
export function jsonLengthUpTo(value: unknown, limit: number, known?: KnownLengths): number {
  let length = 0;
  const visit = (node: unknown, inArray: boolean): void => {
    if (length > limit) return;
    if (node === null) length += 4;
    else if (typeof node === "string") length += jsonStringLength(node);
    else if (typeof node === "boolean") length += node ? 4 : 5;
    else if (typeof node === "number") length += Number.isFinite(node) ? String(node).length : 4;
    else if (typeof node === "object" && known && lengthKnown(node, known)) return;
    else if (Array.isArray(node)) {
      const start = length;
      length += 2 + Math.max(0, node.length - 1);
      for (const item of node) visit(item, true);
      if (known) learn(node, length - start, known);
    } else if (typeof node === "object" && Object.getPrototypeOf(node) === Object.prototype) {
      const start = length;
      length += 2;
      let members = 0;
      for (const key of Object.keys(node)) {
        const item = (node as Record<string, unknown>)[key];
        if (item === undefined || typeof item === "function" || typeof item === "symbol") continue;
        length += (members++ > 0 ? 1 : 0) + jsonStringLength(key) + 1;
        visit(item, false);
      }
      if (known) learn(node, length - start, known);
    } else {
      // Anything unusual (a Date from YAML, undefined in an array...): let JSON decide.
      length += (JSON.stringify(node) ?? (inArray ? "null" : "")).length;
    }
  };
  /** Adds what is known of `node`, when that settles it: its exact length, or a lower bound past the limit. */
  const lengthKnown = (node: object, { exact, atLeast }: KnownLengths): boolean => {
    const measured = exact.get(node);
    if (measured !== undefined) {
      length += measured;
      return true;
    }
    const least = atLeast.get(node);
    if (least === undefined || length + least <= limit) return false;
    length += least;
    return true;
  };
  const learn = (node: object, measured: number, { exact, atLeast }: KnownLengths): void => {
    if (length <= limit) exact.set(node, measured);
    else atLeast.set(node, Math.max(measured, atLeast.get(node) ?? 0));
  };
  visit(value, false);
  return length;
}

/** Characters JSON.stringify escapes: quote, backslash, controls, and lone surrogates (any surrogate sends it to JSON). */
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/** `JSON.stringify(text).length` without building the string for the many texts that need no escape. */
export function jsonStringLength(text: string): number {
  return ESCAPED.test(text) ? JSON.stringify(text).length : text.length + 2;
}
