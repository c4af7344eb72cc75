/**
 * Reading and writing values by instance path, and finding the subschema for a path. An instance path is Ajv's:
 * a plain JSON pointer, whose `%` is a character (unlike a `$ref` fragment's, which is percent-encoded).
 */
import type { JsonSchema } from "../../model/ir.js";
import { parsePointer } from "../../../templates/server/src/runtime/shared/json.js";
import { asSchema, isObject, schemaProperties } from "../schema-util.js";

export function getAt(root: unknown, instancePath: string): unknown {
  return valueAt(root, parsePointer(instancePath), 0);
}

function valueAt(root: unknown, tokens: readonly string[], leaveOut: number): unknown {
  let cur = root;
  for (let index = 0; index < tokens.length - leaveOut; index++) {
    const token = tokens[index]!;
    if (Array.isArray(cur)) cur = cur[Number(token)];
    else if (isObject(cur)) cur = cur[token];
    else return undefined;
  }
  return cur;
}

export function setAt(holder: { root: unknown }, instancePath: string, value: unknown): void {
  const tokens = parsePointer(instancePath);
  if (tokens.length === 0) {
    holder.root = value;
    return;
  }
  const parent = valueAt(holder.root, tokens, 1);
  const last = tokens[tokens.length - 1]!;
  if (Array.isArray(parent)) parent[Number(last)] = value;
  else if (isObject(parent)) parent[last] = value;
}

export function findPropertySchema(schema: JsonSchema | undefined, name: string): JsonSchema | undefined {
  if (!schema) return undefined;
  const props = schemaProperties(schema);
  if (name in props) return props[name];
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = schema[key];
    if (!Array.isArray(branches)) continue;
    for (const b of branches) {
      const found = findPropertySchema(asSchema(b), name);
      if (found) return found;
    }
  }
  const ap = asSchema(schema["additionalProperties"]);
  return ap;
}

/** The (first) subschema that describes the value at an instance path, following properties/items. */
export function schemaAtPath(root: JsonSchema, instancePath: string): JsonSchema | undefined {
  let cur: JsonSchema | undefined = root;
  for (const token of parsePointer(instancePath)) {
    if (!cur) return undefined;
    const props = schemaProperties(cur);
    if (token in props) cur = props[token];
    else if (/^\d+$/.test(token)) {
      const prefix = cur["prefixItems"];
      cur =
        Array.isArray(prefix) && asSchema(prefix[Number(token)])
          ? asSchema(prefix[Number(token)])
          : asSchema(cur["items"]);
    } else cur = asSchema(cur["additionalProperties"]);
  }
  return cur;
}
