/**
 * Shaping: a bounded copy of a schema for json-schema-faker (caps on array and
 * string sizes and on nesting, readOnly properties removed, one branch of each
 * oneOf/anyOf chosen, the non-null member of each type union, the spec's first
 * `examples`/`default`/`enum` value preferred), and the faker call itself.
 */
import { generateSync } from "json-schema-faker";
import type { JsonSchema } from "../../model/ir.js";
import { declaredTypes, isObject } from "../schema-util.js";
import type { Budget, ExampleContext, ExampleMode } from "./context.js";
import type { Picker } from "./realistic.js";

export interface ShapeOptions {
  mode: ExampleMode;
  useExamples: boolean;
  branch: number;
  /** Inside a `uniqueItems` array: keep every enum value so items can differ. */
  keepEnums?: boolean;
  /** Realistic values by argument name; not used inside `uniqueItems` arrays, whose items must differ. */
  pick?: Picker;
}

export function shape(ctx: ExampleContext, node: unknown, o: ShapeOptions, depth: number): unknown {
  if (!isObject(node)) return node;
  if (depth > 24) return {};
  const s = node as JsonSchema;
  const out: JsonSchema = {};
  // Indexed loops here and below: `for…of` makes an iterator and a result object per step in code V8 has not
  // optimised, as most of the example worker's is.
  const keys = Object.keys(s);
  for (let i = 0; i < keys.length; i++) copyKeyword(ctx, s, out, keys[i]!, s[keys[i]!], o, depth);
  chooseBranches(ctx, s, out, o, depth);
  pickRealistic(s, out, o);
  capSizes(ctx, s, out, o, depth);
  return out;
}

/** A free string or number gets the realistic value for its name, unless the spec's own example is in use. */
function pickRealistic(s: JsonSchema, out: JsonSchema, o: ShapeOptions): void {
  if (!o.pick || "enum" in out || "const" in out) return;
  if (o.useExamples && ("examples" in s || "default" in s)) return;
  const types = declaredTypes(out);
  if (types.length !== 1) return;
  const value = o.pick(s, types[0]);
  if (value !== undefined) out["enum"] = [value];
}

/** The shaped `properties`: required ones, plus the optional ones the mode and depth keep. */
function shapeProperties(
  ctx: ExampleContext,
  s: JsonSchema,
  value: Record<string, unknown>,
  o: ShapeOptions,
  depth: number,
) {
  const required = Array.isArray(s["required"]) ? (s["required"] as unknown[]) : [];
  const props: Record<string, unknown> = {};
  let optionalKept = 0;
  // `full` keeps every top-level argument, and a few in nested objects.
  const keepOptional = o.mode === "full" && depth < ctx.cfg.optionalDepth;
  const names = Object.keys(value);
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    const sub = value[name];
    const isRequired = required.includes(name);
    if (!isRequired) {
      if (isObject(sub) && sub["readOnly"] === true) continue;
      if (!keepOptional) continue;
      if (depth > 0 && optionalKept >= ctx.cfg.nestedOptionals) continue;
      optionalKept++;
    }
    props[name] = shape(ctx, sub, o, depth + 1);
  }
  return props;
}

/** Copies one keyword of `s` into `out`, shaping subschemas and dropping what faker should not see. */
function copyKeyword(
  ctx: ExampleContext,
  s: JsonSchema,
  out: JsonSchema,
  key: string,
  value: unknown,
  o: ShapeOptions,
  depth: number,
): void {
  switch (key) {
    case "properties":
      if (isObject(value)) out["properties"] = shapeProperties(ctx, s, value, o, depth);
      break;
    case "items":
      out[key] = shape(
        ctx,
        value,
        s["uniqueItems"] === true ? { ...o, keepEnums: true, pick: undefined } : o,
        depth + 1,
      );
      break;
    case "additionalProperties":
    case "unevaluatedProperties":
    case "unevaluatedItems":
    case "contains":
    case "propertyNames":
    case "not":
    case "if":
    case "then":
    case "else":
      out[key] = shape(ctx, value, o, depth + 1);
      break;
    case "prefixItems":
    case "allOf":
      out[key] = Array.isArray(value) ? value.map((v) => shape(ctx, v, o, depth + 1)) : value;
      break;
    case "patternProperties":
    case "dependentSchemas":
      if (isObject(value)) {
        out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shape(ctx, v, o, depth + 1)]));
      }
      break;
    case "oneOf":
    case "anyOf":
      break; // chooseBranches
    case "examples":
      if (o.useExamples && Array.isArray(value) && value.length > 0) out["examples"] = [value[0]];
      break;
    case "example":
    case "description":
    case "title":
    case "$comment":
      break;
    case "default":
      if (o.useExamples) out["default"] = value;
      break;
    case "enum":
      if (Array.isArray(value) && value.length > 0 && !o.keepEnums) {
        const first = value.find((v) => v !== null);
        out["enum"] = [first === undefined ? value[0] : first];
      } else out["enum"] = value;
      break;
    case "type":
      if (Array.isArray(value) && value.length > 1) {
        const nonNull = value.filter((t) => t !== "null");
        out["type"] = nonNull.length > 0 ? nonNull[o.branch % nonNull.length] : "null";
      } else out["type"] = value;
      break;
    default:
      out[key] = value;
  }
}

/** Hoisted: asked of every shaped node. */
const CHOICE_KEYS = ["oneOf", "anyOf"] as const;

/** Chooses one branch of oneOf/anyOf (the first non-null one, rotated by `branch`) and adds it to allOf. */
function chooseBranches(ctx: ExampleContext, s: JsonSchema, out: JsonSchema, o: ShapeOptions, depth: number): void {
  for (const key of CHOICE_KEYS) {
    const branches = s[key];
    if (!Array.isArray(branches) || branches.length === 0) continue;
    const nonNull = branches.filter((b) => !(isObject(b) && b["type"] === "null"));
    const pool = nonNull.length > 0 ? nonNull : branches;
    const chosen = pool[o.branch % pool.length];
    const allOf = Array.isArray(out["allOf"]) ? [...(out["allOf"] as unknown[])] : [];
    allOf.push(shape(ctx, chosen, o, depth + 1));
    out["allOf"] = allOf;
  }
}

/** Keeps arrays and free text short, and unconstrained numbers small and positive. */
function capSizes(ctx: ExampleContext, s: JsonSchema, out: JsonSchema, o: ShapeOptions, depth: number): void {
  const types = declaredTypes(out);
  const isArr = types.includes("array") || "items" in out || "prefixItems" in out;
  if (isArr) {
    const min = typeof s["minItems"] === "number" ? s["minItems"] : 0;
    const max = typeof s["maxItems"] === "number" ? s["maxItems"] : Infinity;
    // Items that can only take one value would just repeat it: one is enough.
    const single = isObject(out["items"]) && Array.isArray(out["items"]["enum"]) && out["items"]["enum"].length === 1;
    const cap = o.mode === "full" && !single ? (depth <= 1 ? ctx.cfg.maxItems : 1) : 1;
    const n = Math.max(min, Math.min(max, cap));
    out["minItems"] = n;
    out["maxItems"] = n;
  }
  // Unconstrained numbers read better small and positive (limit: 10, not -683).
  const isNum = (types.includes("integer") || types.includes("number")) && !("enum" in out) && !("const" in out);
  if (isNum && s["minimum"] === undefined && s["exclusiveMinimum"] === undefined) {
    const max =
      typeof s["maximum"] === "number"
        ? s["maximum"]
        : typeof s["exclusiveMaximum"] === "number"
          ? s["exclusiveMaximum"]
          : undefined;
    if (max === undefined || max > 1) out["minimum"] = 1;
    if (max === undefined) out["maximum"] = 100;
  }
  const isStr =
    types.includes("string") && !("format" in out) && !("pattern" in out) && !("enum" in out) && !("const" in out);
  if (isStr) {
    const min = typeof s["minLength"] === "number" ? s["minLength"] : 0;
    const max = typeof s["maxLength"] === "number" ? s["maxLength"] : Infinity;
    const cap = Math.max(min, Math.min(max, ctx.cfg.maxStringLength));
    out["maxLength"] = cap;
    if (min === 0) out["minLength"] = Math.min(cap, 3);
  } else if (types.includes("string") && "format" in out && hugeMaxLength(out)) delete out["maxLength"];
}

/** Above this, a maxLength only makes json-schema-faker slow (see hugeMaxLength). */
const HUGE_STRING = 4096;

/**
 * json-schema-faker builds a string of a format it does not know character by character, to a random length up to
 * maxLength: AWS's binary "password" members (6 MiB … 2 GiB) took seconds to forever per example. Without the
 * keyword it makes a short one (a known format is unaffected), and any short value meets so large a maximum.
 */
function hugeMaxLength(out: JsonSchema): boolean {
  const max = out["maxLength"];
  const min = typeof out["minLength"] === "number" ? out["minLength"] : 0;
  return typeof max === "number" && max > HUGE_STRING && min < HUGE_STRING - 10;
}

/** One json-schema-faker value for the shaped schema (undefined when faker fails or the budget is spent). */
export function fake(ctx: ExampleContext, schema: JsonSchema, o: ShapeOptions, seed: number, budget: Budget): unknown {
  if (budget.left-- <= 0) return undefined;
  try {
    const shaped = shape(ctx, schema, o, 0) as JsonSchema;
    const value = generateSync(shaped as never, {
      seed,
      alwaysFakeOptionals: o.mode === "full",
      optionalsProbability: o.mode === "full" ? 1 : 0,
      fixedProbabilities: true,
      useExamplesValue: o.useExamples,
      useDefaultValue: o.useExamples,
      maxDepth: 16,
      maxDefaultItems: ctx.cfg.maxItems,
      failOnInvalidTypes: false,
      defaultInvalidTypeProduct: null,
      refDepth: 1,
    });
    // Faker may hand back the schema's own example objects: never share them.
    return value === undefined ? undefined : structuredClone(value);
  } catch {
    return undefined;
  }
}
