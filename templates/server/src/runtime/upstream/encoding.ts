/**
 * Encoding helpers shared by parameter serialisation (request.ts) and request bodies (body.ts).
 */
import { isPlainObject } from "../shared/json.js";

export type Encoder = (text: string) => string;
type PlainObject = Record<string, unknown>;

/**
 * Bracket-nested leaves of a value: `{a: {b: [1]}}` under root `p` gives
 * `[["p","a","b","0"], "1"]`. `emptyContainers` decides whether `{}`/`[]`/null
 * produce `p[a]=` (Stripe's way to unset) or nothing.
 */
export function flattenNested(
  value: unknown,
  path: string[],
  emptyContainers: "empty-string" | "omit",
): Array<[string[], string]> {
  const leaf = (text: string): Array<[string[], string]> => (path.length === 0 ? [] : [[path, text]]);
  if (value === undefined) return [];
  if (value === null) return emptyContainers === "omit" ? [] : leaf("");
  if (!Array.isArray(value) && !isPlainObject(value)) return leaf(scalarText(value));
  const children: Array<[string, unknown]> = Array.isArray(value)
    ? value.map((item, index) => [String(index), item])
    : definedEntries(value);
  if (children.length === 0) return emptyContainers === "omit" ? [] : leaf("");
  return children.flatMap(([key, item]) => flattenNested(item, [...path, key], emptyContainers));
}

export function formatBracketPath(path: string[], encode: Encoder): string {
  const [root = "", ...rest] = path;
  return encode(root) + rest.map((segment) => `[${encode(segment)}]`).join("");
}

/**
 * RFC 6570-style join for simple/label/form-without-explode: arrays join with
 * `itemSeparator`; objects alternate keys and values (`k,v,k2,v2`) or, when
 * exploded, use `k=v` pairs.
 */
export function joinStructured(
  value: unknown,
  encode: Encoder,
  itemSeparator: string,
  keyValueSeparator: string,
): string {
  if (Array.isArray(value)) return value.map((item) => encode(scalarText(item))).join(itemSeparator);
  if (isPlainObject(value)) {
    return definedEntries(value)
      .map(([key, item]) => `${encode(key)}${keyValueSeparator}${encode(scalarText(item))}`)
      .join(itemSeparator);
  }
  return encode(scalarText(value));
}

/** Nested structures inside a style that cannot express them fall back to JSON text rather than `[object Object]`. */
export function scalarText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === null || value === undefined) return "";
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value);
  return JSON.stringify(value);
}

export function isScalar(value: unknown): value is string | number | boolean {
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean";
}

export function definedEntries(value: PlainObject): Array<[string, unknown]> {
  return Object.entries(value).filter(([, item]) => item !== undefined);
}
