/**
 * Which argument each subschema of a tool's input describes: the property
 * name (array items get the singular), and whether it is an identifier.
 * Keyed by schema object identity, so the shaping and repair steps, which
 * see only subschemas, can still choose values by name.
 */
import type { JsonSchema } from "../../model/ir.js";
import { describedAsIdentifier, isIdentifierName } from "../identifiers.js";
import { asSchema, isObject, singularize } from "../schema-util.js";
import type { ValueRole } from "./realistic.js";

const MAX_DEPTH = 12;
/** Hoisted: the walk visits every subschema of every distinct input schema. */
const BRANCH_KEYS = ["allOf", "anyOf", "oneOf"] as const;

/** Roles by subschema object; shared by every tool with this input schema object, so never written to. */
export type Roles = Pick<WeakMap<object, ValueRole>, "get">;

/**
 * The roles of one input schema object, worked out once: tools with equal
 * input schemas are handed the same object (`addGuidance`), and only their
 * seeds differ (Graph: 11,422 tools, 6,800 distinct input schemas).
 */
export function schemaRoles(inputSchema: JsonSchema): Roles {
  let roles = rolesBySchema.get(inputSchema);
  if (!roles) rolesBySchema.set(inputSchema, (roles = walkRoles(inputSchema)));
  return roles;
}
const rolesBySchema = new WeakMap<JsonSchema, Roles>();

function walkRoles(inputSchema: JsonSchema): Roles {
  // A Map, not a WeakMap: its keys are parts of the input schema, and `rolesBySchema` keeps it only as
  // long as that schema lives; a Map is cheaper to fill, read and collect.
  const roles = new Map<object, ValueRole>();
  // Every node with a role was visited when it got it; only the nodes reached without one (the input schema
  // and its branches and items) need a set of their own to be visited once.
  const seenWithout = new Set<object>();
  const visit = (node: unknown, role: ValueRole | undefined, depth: number): void => {
    const s = asSchema(node);
    if (!s || depth > MAX_DEPTH) return;
    if (role) {
      if (roles.has(s)) return;
      roles.set(s, role);
      if (seenWithout.has(s)) return;
    } else {
      if (roles.has(s) || seenWithout.has(s)) return;
      seenWithout.add(s);
    }
    const props = s["properties"];
    if (isObject(props)) {
      // Indexed loops: `for…of` makes an iterator and a result object per step in code V8 has not optimised.
      const names = Object.keys(props);
      for (let i = 0; i < names.length; i++) {
        const name = names[i]!;
        const sub = props[name];
        // A node already placed keeps its first role: do not make another.
        if (!roles.has(sub as object)) visit(sub, roleOf(name, asSchema(sub), role?.name), depth + 1);
      }
    }
    if ("items" in s || "prefixItems" in s) {
      const itemRole = role ? { ...role, name: singularName(role.name) } : undefined;
      visit(s["items"], itemRole, depth + 1);
      if (Array.isArray(s["prefixItems"])) for (const item of s["prefixItems"]) visit(item, itemRole, depth + 1);
    }
    for (let k = 0; k < BRANCH_KEYS.length; k++) {
      const branches = s[BRANCH_KEYS[k]!];
      if (Array.isArray(branches)) for (let i = 0; i < branches.length; i++) visit(branches[i], role, depth + 1);
    }
  };
  visit(inputSchema, undefined, 0);
  return roles;
}

function roleOf(name: string, schema: JsonSchema | undefined, parent: string | undefined): ValueRole {
  const description = typeof schema?.["description"] === "string" ? schema["description"] : undefined;
  const role: ValueRole = { name, identifier: identifierName(name) || describedAsIdentifier(schema) };
  if (description) role.description = description;
  if (parent) role.parent = parent;
  return role;
}

/** `singularize`, kept per name: the items of every array argument ask for it. */
function singularName(name: string): string {
  let known = singularNames.get(name);
  if (known === undefined) singularNames.set(name, (known = singularize(name)));
  return known;
}
const singularNames = new Map<string, string>();

/** `isIdentifierName`, kept per name: large APIs repeat the same property names in every tool. */
function identifierName(name: string): boolean {
  let known = identifierNames.get(name);
  if (known === undefined) identifierNames.set(name, (known = isIdentifierName(name)));
  return known;
}
const identifierNames = new Map<string, boolean>();
