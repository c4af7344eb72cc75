/**
 * What a response schema offers other operations, found once per response schema object (operations
 * answering the same resource share it, and every tool's producers and links ask again):
 *   - the scalar fields producers take identifiers from (top level, one object level down, a list's items);
 *   - the `owner_id`-style fields inferred links follow to the owner's getter;
 *   - the field that carries a resource's id.
 */
import type { JsonSchema } from "../model/ir.js";
import { findItemSchema, findItemsPointer } from "./pagination.js";
import {
  declaredTypes,
  escapePointerToken,
  isArraySchema,
  isObjectSchema,
  normName,
  schemaProperties,
  singularize,
} from "./schema-util.js";
import { perObject } from "./per-object.js";

function isScalar(s: JsonSchema): boolean {
  const types = declaredTypes(s);
  for (const type of types)
    if (type !== "string" && type !== "integer" && type !== "number" && type !== "null") return false;
  return types.length > 0;
}
/** Fields of an object-valued property that name it: `owner` → `owner.login`. */
const NAMING_CHILDREN = ["id", "login", "slug", "key", "uuid", "number", "name"];
/** Which of them an identifier named after the object itself means. */
const NAME_FIRST = ["login", "slug", "name", "key"];

export interface AnswerField {
  /** Normalised field name. */
  name: string;
  take: string;
}

/** The fields `indexFields` indexes, in its order; kept per response schema, which many operations share. */
export const answerFields: (response: JsonSchema) => readonly AnswerField[] = perObject(findAnswerFields);

function findAnswerFields(response: JsonSchema): AnswerField[] {
  const out: AnswerField[] = [];
  const itemsPointer = findItemsPointer(response);
  const item = itemsPointer !== undefined ? findItemSchema(response, itemsPointer) : undefined;
  const scopes: Array<[JsonSchema | undefined, string]> = [
    [item, `${itemsPointer ?? ""}/0`],
    [itemsPointer === "" ? undefined : response, ""],
  ];
  for (const [schema, base] of scopes) {
    const props = schemaProperties(schema);
    for (const name of Object.keys(props)) {
      const sub = props[name]!;
      const norm = normName(name);
      // A bare `id` belongs to the resource itself: only its own collection produces it (below).
      if (isScalar(sub)) {
        if (norm !== "id") out.push({ name: norm, take: `${base}/${escapePointerToken(name)}` });
      } else if (isObjectSchema(sub)) namingFields(out, norm, `${base}/${escapePointerToken(name)}`, sub);
    }
  }
  return out;
}

/** The fields of an object-valued answer field `at` that name it, and the one the object itself stands for. */
function namingFields(out: AnswerField[], norm: string, at: string, sub: JsonSchema): void {
  const children = schemaProperties(sub);
  let naming: string | undefined;
  for (const child of NAMING_CHILDREN) {
    const childSchema = children[child];
    if (!childSchema || !isScalar(childSchema)) continue;
    out.push({ name: norm + child, take: `${at}/${child}` });
  }
  // The object itself stands for its name: `owner` → `owner.login`.
  for (const child of NAME_FIRST) {
    const childSchema = children[child];
    if (childSchema && isScalar(childSchema)) {
      naming = child;
      break;
    }
  }
  if (naming) out.push({ name: norm, take: `${at}/${naming}` });
}

export interface OwnerField {
  /** `owner_id`. */
  field: string;
  /** `owner`. */
  stem: string;
  /** Normalised singular of the stem: `owner`. */
  noun: string;
}

/** The `owner_id`-style scalar fields of an answer (none for a list); kept per response schema, which many operations share. */
export const ownerFields: (response: JsonSchema) => readonly OwnerField[] = perObject(findOwnerFields);

function findOwnerFields(response: JsonSchema): OwnerField[] {
  const out: OwnerField[] = [];
  if (isArraySchema(response)) return out;
  for (const [field, fieldSchema] of Object.entries(schemaProperties(response))) {
    const m = /^(.+?)[_-]?(id|Id|ID)$/.exec(field);
    if (!m || !m[1] || declaredTypes(fieldSchema).some((t) => t === "array" || t === "object")) continue;
    out.push({ field, stem: m[1], noun: normName(singularize(m[1])) });
  }
  return out;
}

/** The field of a resource that carries its id for the path parameter `wire`. */
export function idField(schema: JsonSchema | undefined, wire: string, noun: string): string | undefined {
  if (!schema) return "id";
  const byNorm = propertiesByNorm(schema);
  if (byNorm.size === 0) return isObjectSchema(schema) ? undefined : "id";
  // `{issue_number}` on an issue is its `number`; `{petId}` on a pet is its `id`.
  const w = normName(wire);
  const n = normName(noun);
  const rest = w.startsWith(n) && w.length > n.length ? w.slice(n.length) : undefined;
  const wanted = [w, ...(rest ? [rest] : []), "id", n + "id", "uuid", "key", "slug", "name"];
  // `{id}` and `{petId}` both mean the resource's own `id`.
  for (const want of wanted) {
    const hit = byNorm.get(want);
    if (hit) return hit;
  }
  return undefined;
}

/** A schema's property names by normalised name (the first of each), once per schema: resources are asked again and again. */
function propertiesByNorm(schema: JsonSchema): ReadonlyMap<string, string> {
  let known = byNormOf.get(schema);
  if (!known) {
    known = new Map();
    for (const name of Object.keys(schemaProperties(schema)))
      if (!known.has(normName(name))) known.set(normName(name), name);
    byNormOf.set(schema, known);
  }
  return known;
}
const byNormOf = new WeakMap<JsonSchema, Map<string, string>>();
