/**
 * One object per sub-schema inside one tool's input schema (see `withoutRepeats`): the memo (schema-memo.ts)
 * shares conversions, which one input may then reach twice.
 */
import type { JsonSchema } from "./ir.js";
import { MAP_KEYWORD_COUNT, SUB_SCHEMA_KEYWORDS, subSchemaKeywordBits } from "./schema-keywords.js";
import { isPlainObject as isRecord } from "../../templates/server/src/runtime/shared/json.js";

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
 * Allocates nothing until an answer differs: most inputs have no repeats.
 * Visits the keywords present in convertObject's order (which of two repeats
 * stays the original depends on it).
 */
function withSubSchemas(schema: JsonSchema, replace: (node: unknown) => unknown, copy: boolean): JsonSchema {
  let out: JsonSchema | undefined = copy ? { ...schema } : undefined;
  const bits = subSchemaKeywordBits(Object.keys(schema));
  for (let index = 0; bits >>> index !== 0; index++) {
    if ((bits & (1 << index)) === 0) continue;
    const keyword = SUB_SCHEMA_KEYWORDS[index]!;
    const value = schema[keyword];
    const next =
      index < MAP_KEYWORD_COUNT
        ? isRecord(value)
          ? replaceInMap(value, replace, copy)
          : undefined
        : Array.isArray(value)
          ? replaceInList(value, replace, copy)
          : isRecord(value)
            ? replace(value)
            : undefined;
    if (next !== undefined && (copy || next !== value)) (out ??= { ...schema })[keyword] = next;
  }
  return out ?? schema;
}

/** A map of sub-schemas with `replace`'s answers: undefined when none differs, unless `copy`. */
function replaceInMap(
  map: Record<string, unknown>,
  replace: (node: unknown) => unknown,
  copy: boolean,
): Record<string, unknown> | undefined {
  let next: Record<string, unknown> | undefined = copy ? {} : undefined;
  for (const name in map) {
    const value = map[name];
    const answer = replace(value);
    if (answer !== value && !next) {
      next = {};
      for (const earlier in map) {
        if (earlier === name) break;
        setOwn(next, earlier, map[earlier]);
      }
    }
    if (next) setOwn(next, name, answer);
  }
  return next;
}

/** A list of sub-schemas with `replace`'s answers: undefined when none differs, unless `copy`. */
function replaceInList(list: unknown[], replace: (node: unknown) => unknown, copy: boolean): unknown[] | undefined {
  let next: unknown[] | undefined = copy ? [] : undefined;
  for (let index = 0; index < list.length; index++) {
    const answer = replace(list[index]);
    if (answer !== list[index] && !next) next = list.slice(0, index);
    next?.push(answer);
  }
  return next;
}

/** `target[key] = value`, a key named `__proto__` staying an own property. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__")
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
