/**
 * Repeated sub-schemas across an API's input schemas, compiled once.
 *
 * Large APIs repeat big sub-schemas in many tools (Microsoft Graph: the
 * properties of `microsoft.graph.entity` and its descendants in thousands of
 * request bodies; Stripe: `metadata`, addresses, `expand`). Ajv compiles each
 * tool schema as one function, so every repetition is code generated and
 * parsed again. Here each sub-schema gets a content identity, bottom-up; one
 * that occurs at least twice and is big enough becomes a unit: registered once
 * in the Ajv instance under its own URN, and `$ref`ed from a rewritten copy of
 * every schema that contains it (units nest).
 *
 * Only for a yes/no verdict: errors of a `$ref`ed unit carry schema paths
 * relative to the unit, so example repair compiles the original schema.
 */
import type { JsonSchema } from "./ir.js";

/** Keywords whose value is a map of sub-schemas. */
const KEYED = new Set(["properties", "patternProperties", "dependentSchemas"]);
/** Keywords whose value is a list of sub-schemas. */
const LISTED = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);
/** Keywords whose value is one sub-schema. */
const SINGLE = new Set(["items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames"]);
/**
 * Keywords whose meaning depends on where the schema sits (identifiers, references
 * resolved against a base URI, evaluation tracked across siblings): a schema holding
 * one anywhere is compiled as it is, never split.
 */
const CONTEXTUAL = new Set([
  "$ref",
  "$dynamicRef",
  "$recursiveRef",
  "$id",
  "id",
  "$anchor",
  "$dynamicAnchor",
  "$recursiveAnchor",
  "$schema",
  "$defs",
  "definitions",
  "unevaluatedProperties",
  "unevaluatedItems",
]);

/** Sub-schemas with fewer schema objects than this stay inline: a unit has a fixed cost (a function, a call). */
export const MIN_UNIT_NODES = 4;

interface Node {
  /** Equal ids ⇔ equal content (child ids stand for the children). */
  id: number;
  /** Schema objects in the subtree. */
  size: number;
  /** Can be compiled on its own: no contextual keyword in the subtree, every child a schema object. */
  movable: boolean;
}

export interface SchemaUnits {
  /** Counts the sub-schemas of every schema of the API (each distinct root once). */
  count(roots: Iterable<JsonSchema>): void;
  /**
   * A copy of `root` whose repeated sub-schemas are `$ref`s to units, registering
   * each new unit with `register`; `undefined` when the schema must be compiled as it is.
   */
  rewrite(
    root: JsonSchema,
    register: (uri: string, unit: JsonSchema) => void,
    known: Set<number>,
  ): JsonSchema | undefined;
  /** `root`'s schema objects, and how many of them stay outside units (all when it cannot be split). */
  sizes(root: JsonSchema): { local: number; size: number };
}

export function createSchemaUnits(): SchemaUnits {
  const ids = new Map<string, number>();
  const nodes = new WeakMap<object, Node>();
  const occurrences = new Map<number, number>();

  const describe = (schema: JsonSchema): Node => {
    const known = nodes.get(schema);
    if (known) return known;
    let size = 1;
    let movable = true;
    // The schema's JSON with each sub-schema written `#id`: equal texts ⇔ equal content (JSON has no bare `#`).
    let text = "{";
    for (const [keyword, value] of Object.entries(schema)) {
      if (CONTEXTUAL.has(keyword)) movable = false;
      const written = writeChildren(keyword, value, (child) => {
        if (!isSchemaObject(child)) {
          movable = false;
          return String(JSON.stringify(child));
        }
        const node = describe(child);
        size += node.size;
        movable &&= node.movable;
        return `#${node.id}`;
      });
      text += `${JSON.stringify(keyword)}:${written ?? String(JSON.stringify(value))},`;
    }
    let id = ids.get(text);
    if (id === undefined) ids.set(text, (id = ids.size));
    const node = { id, size, movable };
    nodes.set(schema, node);
    return node;
  };

  const tally = (schema: JsonSchema): void => {
    const node = describe(schema);
    occurrences.set(node.id, (occurrences.get(node.id) ?? 0) + 1);
    forEachChild(schema, (child) => {
      if (isSchemaObject(child)) tally(child);
    });
  };

  const isUnit = (node: Node): boolean =>
    node.movable && node.size >= MIN_UNIT_NODES && (occurrences.get(node.id) ?? 0) >= 2;

  const local = (schema: JsonSchema, top: boolean): number => {
    if (!top && isUnit(describe(schema))) return 1;
    let size = 1;
    forEachChild(schema, (child) => {
      if (isSchemaObject(child)) size += local(child, false);
    });
    return size;
  };

  return {
    sizes(root) {
      const node = describe(root);
      return { local: node.movable ? local(root, true) : node.size, size: node.size };
    },
    count(roots) {
      for (const root of roots) tally(root);
    },
    rewrite(root, register, known) {
      if (!describe(root).movable) return undefined;
      const copy = (schema: JsonSchema, top: boolean): JsonSchema => {
        const node = describe(schema);
        if (!top && isUnit(node)) {
          const uri = `urn:guided-mcp:unit:${node.id}`;
          if (!known.has(node.id)) {
            register(uri, copy(schema, true));
            known.add(node.id);
          }
          return { $ref: uri };
        }
        const out: Record<string, unknown> = {};
        for (const [keyword, value] of Object.entries(schema))
          setOwn(
            out,
            keyword,
            mapChildren(keyword, value, (child) => (isSchemaObject(child) ? copy(child, false) : child)),
          );
        return out as JsonSchema;
      };
      return copy(root, true);
    },
  };
}

function isSchemaObject(value: unknown): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The keyword's value with each sub-schema in it mapped; other values as they are. */
function mapChildren(keyword: string, value: unknown, map: (child: unknown) => unknown): unknown {
  if (SINGLE.has(keyword) && typeof value !== "boolean") return map(value);
  if (LISTED.has(keyword) && Array.isArray(value))
    return value.map((child) => (typeof child === "boolean" ? child : map(child)));
  if (KEYED.has(keyword) && isSchemaObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [name, child] of Object.entries(value))
      setOwn(out, name, typeof child === "boolean" ? child : map(child));
    return out;
  }
  return value;
}

/** The keyword's value as text with each sub-schema in it written by `write`; undefined when it holds none. */
function writeChildren(keyword: string, value: unknown, write: (child: unknown) => string): string | undefined {
  const one = (child: unknown) => (typeof child === "boolean" ? String(child) : write(child));
  if (SINGLE.has(keyword) && typeof value !== "boolean") return write(value);
  if (LISTED.has(keyword) && Array.isArray(value)) return `[${value.map(one).join(",")}]`;
  if (KEYED.has(keyword) && isSchemaObject(value))
    return `{${Object.entries(value)
      .map(([name, child]) => `${JSON.stringify(name)}:${one(child)}`)
      .join(",")}}`;
  return undefined;
}

/** `target[key] = value` as an own property, even for `__proto__` (a property name like any other in a spec). */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function forEachChild(schema: JsonSchema, visit: (child: unknown) => void): void {
  for (const [keyword, value] of Object.entries(schema)) {
    if (SINGLE.has(keyword)) visit(value);
    else if (LISTED.has(keyword) && Array.isArray(value)) value.forEach(visit);
    else if (KEYED.has(keyword) && isSchemaObject(value)) Object.values(value).forEach(visit);
  }
}
