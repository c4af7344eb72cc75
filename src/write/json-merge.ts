/**
 * Structural three-way merge for generated JSON data (data/tools.json): a
 * line merge would tangle tools and break the JSON, so the documents merge
 * key by key, and arrays of named objects (the tools) element by element.
 * An edited description survives a spec change that adds tools; a field
 * both sides changed keeps the user's value and is reported; a tool the
 * spec removed goes even if the user edited it (its operation is gone), and
 * that is reported too.
 */
import { isDeepStrictEqual } from "node:util";
import { escapePointerToken } from "../diagnostics.js";

export interface JsonMergeNote {
  pointer: string;
  message: string;
}

export interface JsonMerge {
  value: unknown;
  notes: JsonMergeNote[];
}

type Json = unknown;
type JsonObject = Record<string, Json>;

const isObject = (value: Json): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export function mergeJson(base: Json, user: Json, next: Json): JsonMerge {
  const notes: JsonMergeNote[] = [];
  const value = mergeValue(base, user, next, "", notes);
  return { value, notes };
}

function mergeValue(base: Json, user: Json, next: Json, pointer: string, notes: JsonMergeNote[]): Json {
  if (isDeepStrictEqual(user, base) || isDeepStrictEqual(user, next)) return next;
  if (isDeepStrictEqual(next, base)) return user;
  if (isObject(base) && isObject(user) && isObject(next)) return mergeObjects(base, user, next, pointer, notes);
  const named = [base, user, next].every(isNamedList);
  if (named) return mergeNamedLists(base as JsonObject[], user as JsonObject[], next as JsonObject[], pointer, notes);
  notes.push({ pointer: pointer || "#", message: "you and the new generation both changed it — kept yours" });
  return user;
}

function mergeObjects(
  base: JsonObject,
  user: JsonObject,
  next: JsonObject,
  pointer: string,
  notes: JsonMergeNote[],
): JsonObject {
  const keys = [...new Set([...Object.keys(next), ...Object.keys(user), ...Object.keys(base)])];
  const out: JsonObject = {};
  for (const key of keys) {
    const child = `${pointer || "#"}/${escapePointerToken(key)}`;
    const inBase = key in base;
    const inUser = key in user;
    const inNext = key in next;
    if (!inUser && !inNext) continue;
    if (!inUser) {
      // The user deleted it: keep it deleted unless the generator changed it since.
      if (inBase && !isDeepStrictEqual(base[key], next[key])) {
        notes.push({
          pointer: child,
          message: "you removed it and the new generation changed it — kept the new generation's",
        });
        out[key] = next[key];
      } else if (!inBase) out[key] = next[key];
      continue;
    }
    if (!inNext) {
      if (inBase && !isDeepStrictEqual(base[key], user[key]))
        notes.push({ pointer: child, message: "the new generation removed it, but you had changed it — kept yours" });
      if (!inBase || !isDeepStrictEqual(base[key], user[key])) out[key] = user[key];
      continue;
    }
    out[key] = inBase
      ? mergeValue(base[key], user[key], next[key], child, notes)
      : mergeValue(undefined, user[key], next[key], child, notes);
  }
  return out;
}

function isNamedList(value: Json): value is JsonObject[] {
  if (!Array.isArray(value)) return false;
  const names = value.map((item) => (isObject(item) && typeof item.name === "string" ? item.name : undefined));
  return names.every((name) => name !== undefined) && new Set(names).size === names.length;
}

/** Tools merge by name, in the new generation's order; tools the user added stay, at the end. */
function mergeNamedLists(
  base: JsonObject[],
  user: JsonObject[],
  next: JsonObject[],
  pointer: string,
  notes: JsonMergeNote[],
): JsonObject[] {
  const byName = (list: JsonObject[]) => new Map(list.map((item) => [item.name as string, item]));
  const baseByName = byName(base);
  const userByName = byName(user);
  const nextNames = new Set(next.map((item) => item.name as string));
  const out: JsonObject[] = [];
  for (const item of next) {
    const name = item.name as string;
    const mine = userByName.get(name);
    const before = baseByName.get(name);
    if (!mine) {
      // Absent from the user's list: new in this generation, or deleted by the user.
      if (!before) out.push(item);
      continue;
    }
    out.push(mergeValue(before ?? {}, mine, item, `${pointer}/${out.length}`, notes) as JsonObject);
  }
  user.forEach((item, index) => {
    const name = item.name as string;
    if (nextNames.has(name)) return;
    const before = baseByName.get(name);
    if (!before) out.push(item);
    else if (!isDeepStrictEqual(before, item))
      notes.push({
        pointer: `${pointer}/${index}`,
        message: `the new generation no longer has \`${name}\`, so your edit of it was dropped`,
      });
  });
  return out;
}
