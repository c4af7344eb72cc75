/**
 * Progressive schema disclosure (client-guidance pattern 4): three levels of
 * detail about a tool's arguments, computed once from its inputSchema.
 *
 * - minimal: which arguments are required / optional (for error messages);
 * - typed: per argument its type, whether required, default and enum;
 * - full: every property schema with all constraints, descriptions and examples.
 */
import { jsonType } from "../../templates/server/src/runtime/shared/json.js";
import type { JsonSchema, SchemaHints } from "../model/ir.js";
import type { TypedParameterHint } from "../../templates/server/src/runtime/shared/tool-data.js";
import { jsonAround, schemaMemberText } from "../model/schema-text.js";
import { asSchema, declaredTypes, schemaProperties, schemaRequired } from "./schema-util.js";

/**
 * The type of a schema as a `|`-joined union: `string`, `string|null`,
 * `string|integer` for oneOf/anyOf, `any` when nothing constrains it.
 */
export function describeType(schema: JsonSchema | undefined, depth = 0): string {
  // One declared type (nearly every argument) is the answer as it is.
  const declared = schema && depth <= 8 ? declaredTypes(schema) : undefined;
  if (declared?.length === 1) return declared[0]!;
  const types = collectTypes(schema, depth);
  return types.length === 0 ? "any" : types.join("|");
}

function collectTypes(schema: JsonSchema | undefined, depth: number): string[] {
  if (!schema || depth > 8) return [];
  const out: string[] = [];
  const add = (t: string): void => {
    if (!out.includes(t)) out.push(t);
  };
  const declared = declaredTypes(schema);
  if (declared.length > 0) {
    declared.forEach(add);
  } else if ("const" in schema) {
    add(jsonType(schema["const"]));
  } else if (Array.isArray(schema["enum"]) && schema["enum"].length > 0) {
    for (const v of schema["enum"]) add(jsonType(v));
  } else {
    for (const key of ["oneOf", "anyOf"] as const) {
      const branches = schema[key];
      if (!Array.isArray(branches)) continue;
      const branchTypes = branches.map((b) => collectTypes(asSchema(b), depth + 1));
      // A branch with no type constraint means the union is unconstrained.
      if (branchTypes.some((t) => t.length === 0)) return [];
      branchTypes.flat().forEach(add);
    }
    if (out.length === 0 && Array.isArray(schema["allOf"])) {
      for (const b of schema["allOf"]) {
        const t = collectTypes(asSchema(b), depth + 1);
        if (t.length > 0) {
          t.forEach(add);
          break;
        }
      }
    }
    if (out.length === 0) {
      if ("properties" in schema) add("object");
      else if ("items" in schema || "prefixItems" in schema) add("array");
    }
  }
  // `integer|number` says nothing `number` does not.
  if (out.includes("integer") && out.includes("number")) out.splice(out.indexOf("integer"), 1);
  return out;
}

function enumOf(schema: JsonSchema): unknown[] | undefined {
  if (Array.isArray(schema["enum"])) return schema["enum"] as unknown[];
  if ("const" in schema) return [schema["const"]];
  // A nullable enum after normalisation: anyOf [{enum}, {type: null}].
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = schema[key];
    if (!Array.isArray(branches)) continue;
    const values: unknown[] = [];
    for (const b of branches) {
      const s = asSchema(b);
      if (!s) return undefined;
      if (Array.isArray(s["enum"])) values.push(...(s["enum"] as unknown[]));
      else if ("const" in s) values.push(s["const"]);
      else if (declaredTypes(s).length === 1 && declaredTypes(s)[0] === "null") values.push(null);
      else return undefined;
    }
    return values.length > 0 ? values : undefined;
  }
  return undefined;
}

/** The label on identifier arguments, whose example values cannot be real. */
export const PLACEHOLDER_NOTE = "placeholder example, not a real id: use a value an earlier call returned";

/** `identifiers`: top-level arguments whose hints say their example is a placeholder. */
export function buildHints(inputSchema: JsonSchema, identifiers: ReadonlySet<string> = new Set()): SchemaHints {
  const all = schemaProperties(inputSchema);
  const required = schemaRequired(inputSchema);
  // Argument names the caller may send: readOnly properties that are not required are left out.
  const props: Record<string, JsonSchema> = {};
  const optional: string[] = [];
  // Whether `props` holds every member of the input schema's own `properties` (see `hintsJson`).
  let whole = all === inputSchema["properties"];
  for (const name of Object.keys(all)) {
    const sub = all[name]!;
    const isRequired = required.includes(name);
    if (sub["readOnly"] === true && !isRequired) {
      whole = false;
      continue;
    }
    // (A `__proto__` name would set the copy's prototype rather than make a member.)
    if (name === "__proto__") whole = false;
    props[name] = sub;
    if (!isRequired) optional.push(name);
  }
  // Required arguments in their order, those without a property last.
  const requiredNames: string[] = [];
  const withoutProperty: string[] = [];
  for (const name of required) (Object.hasOwn(props, name) ? requiredNames : withoutProperty).push(name);

  const typed: Record<string, TypedParameterHint> = {};
  for (const name of requiredNames) typed[name] = typedHint(props[name]!, true, identifiers.has(name));
  for (const name of optional) typed[name] = typedHint(props[name]!, false, identifiers.has(name));
  requiredNames.push(...withoutProperty);

  const full: SchemaHints["full"] = { required: requiredNames, properties: props };
  if (typeof inputSchema["description"] === "string" && inputSchema["description"] !== "") {
    full.description = inputSchema["description"];
  }
  const hints = { minimal: { required: requiredNames, optional }, typed, full };
  if (whole) propertiesOf.set(hints, inputSchema);
  return hints;
}

/**
 * By hints object: the input schema whose `properties` member its full hints' `properties` copies, the same names in
 * the same order with the same values, so that the two have the same JSON.
 */
const propertiesOf = new WeakMap<SchemaHints, JsonSchema>();

/**
 * `JSON.stringify(hints)`. The full hints' properties are the input schema's (Stripe: ≈ 0.9 MB of JSON, its largest
 * part), whose text was made once already (src/model/schema-text.ts): it is cut out of that text instead of serialised
 * again. Later changes to hints touch only the typed ones (src/guidance/producer-calls.ts `nameSources`).
 */
export function hintsJson(hints: SchemaHints): string {
  const schema = propertiesOf.get(hints);
  const properties = schema && schemaMemberText(schema, "properties");
  const full = properties !== undefined && jsonAround(hints.full, "properties");
  const whole = full && jsonAround(hints, "full");
  if (!full || !whole) return JSON.stringify(hints);
  return `${whole.prefix}${full.prefix}${properties}${full.suffix}${whole.suffix}`;
}

function typedHint(sub: JsonSchema, required: boolean, identifier: boolean): TypedParameterHint {
  const hint: TypedParameterHint = { type: describeType(sub), required };
  if ("default" in sub) hint.default = sub["default"];
  const e = enumOf(sub);
  if (e) hint.enum = e;
  if (identifier && !e) hint.placeholder = PLACEHOLDER_NOTE;
  return hint;
}
