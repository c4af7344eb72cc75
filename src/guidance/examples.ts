/**
 * Valid example arguments for a tool, generated once at generation time.
 *
 * Strategy, per tool:
 *  1. Shape a bounded copy of the input schema for json-schema-faker (caps on
 *     array and string sizes and on nesting, readOnly properties removed, one
 *     branch of each oneOf/anyOf chosen, the non-null member of each type
 *     union, the spec's first `examples`/`default`/`enum` value preferred).
 *  2. Generate with a fixed seed (reproducible) and validate the result with the
 *     very Ajv configuration the generated server uses (`createAjv()`).
 *  3. When invalid, REPAIR: walk the Ajv errors and fix each failing value from
 *     its own subschema (enum/const, numeric bounds, string length/pattern,
 *     canned values for well-known formats, item counts, missing or forbidden
 *     properties, one oneOf/anyOf branch at a time), then validate again.
 *  4. Still invalid: retry without the spec's own examples and with other
 *     seeds; then fall back to a smaller valid object (`full` := `minimal`).
 *     If nothing valid can be built the examples are omitted and a problem is
 *     reported — an invalid example is never returned.
 */
import { generateSync } from "json-schema-faker";
import type { Ajv2020, ErrorObject, ValidateFunction } from "ajv/dist/2020.js";
import { createAjv } from "../../templates/server/src/runtime/shared/ajv.js";
import type { JsonSchema } from "../model/ir.js";
import { asSchema, declaredTypes, isObject, parsePointer, schemaProperties, schemaRequired } from "./schema-util.js";

export type ExampleMode = "minimal" | "full";
type Args = Record<string, unknown>;

export interface ToolExamples {
  minimal: Args;
  full: Args;
}

export interface ExampleOutcome {
  /** Absent only when no value passing the tool's validator could be built. */
  examples?: ToolExamples;
  /** Human-readable reasons (for warning diagnostics); empty when all went well. */
  problems: string[];
}

export interface ExampleGeneratorOptions {
  /** Items per array in the `full` example at the top level (deeper arrays get 1). Default 2. */
  maxItems?: number;
  /** Cap for free-text strings without format/pattern. Default 16. */
  maxStringLength?: number;
  /** Optional properties kept in nested objects of the `full` example. Default 6. */
  nestedOptionals?: number;
  /** From this depth on, objects only get their required properties. Default 2. */
  optionalDepth?: number;
  /** Upper bound on generate/compile steps spent on one tool. Default 80. */
  budget?: number;
}

/** Values for well-known formats that pass ajv-formats' (full mode) checks. */
const CANNED_FORMATS: Record<string, string> = {
  "date-time": "2024-01-15T09:30:00Z",
  date: "2024-01-15",
  time: "09:30:00Z",
  "iso-time": "09:30:00Z",
  "iso-date-time": "2024-01-15T09:30:00Z",
  duration: "P1D",
  email: "user@example.com",
  "idn-email": "user@example.com",
  hostname: "example.com",
  "idn-hostname": "example.com",
  ipv4: "192.0.2.1",
  ipv6: "2001:db8::1",
  uri: "https://example.com/",
  url: "https://example.com/",
  "uri-reference": "https://example.com/resource",
  iri: "https://example.com/",
  "iri-reference": "https://example.com/resource",
  "uri-template": "https://example.com/{id}",
  uuid: "3fa85f64-5717-4562-b3fc-2c963f66afa6",
  guid: "3fa85f64-5717-4562-b3fc-2c963f66afa6",
  "json-pointer": "/example",
  "relative-json-pointer": "0",
  regex: "^[a-z]+$",
  byte: "ZXhhbXBsZQ==",
  binary: "example",
  password: "example-password",
  int32: "1",
  int64: "1",
  float: "1.5",
  double: "1.5",
  decimal: "1.5",
  "date-time-rfc1123": "Mon, 15 Jan 2024 09:30:00 GMT",
};

/** Strings tried, in order, against a pattern faker could not satisfy. */
const PATTERN_FALLBACKS = [
  "example",
  "abc",
  "ABC",
  "a",
  "A",
  "1",
  "123",
  "a1",
  "Aa1",
  "Abcdef12",
  "abc-123",
  "abc_123",
  "2024-01-15",
  "user@example.com",
  "https://example.com/",
  "3fa85f64-5717-4562-b3fc-2c963f66afa6",
  "00",
  "0",
];

interface Budget {
  left: number;
}

interface Compiled {
  validate?: ValidateFunction;
  error?: string;
}

/**
 * Creates a generator holding one Ajv instance and a validator cache keyed by
 * schema object identity; reuse it across the tools of one API.
 */
export function createExampleGenerator(options: ExampleGeneratorOptions = {}) {
  const cfg = {
    maxItems: options.maxItems ?? 2,
    maxStringLength: options.maxStringLength ?? 16,
    nestedOptionals: options.nestedOptionals ?? 6,
    optionalDepth: options.optionalDepth ?? 2,
    budget: options.budget ?? 80,
  };
  // Two instances of the shared configuration: a plain one for the (usually
  // single) validity check per tool, and a verbose one compiled only when a
  // value needs repair. `verbose` only adds `parentSchema`/`data` to errors;
  // it does not change what validates.
  /** Verbose validator (errors carry `parentSchema`), for repair. */
  const compile = cachedCompiler(true);
  /** Plain validator, exactly as the generated server compiles it. */
  const compilePlain = cachedCompiler(false);

  function newAjv(verbose: boolean): Ajv2020 {
    const a = createAjv();
    (a.opts as { verbose?: boolean }).verbose = verbose;
    // The model stage already reported what Ajv would warn about (unknown formats...).
    const quiet = { log() {}, warn() {}, error() {} };
    (a as unknown as { logger: typeof quiet }).logger = quiet;
    return a;
  }

  /** One Ajv instance and a cache keyed by schema identity. */
  function cachedCompiler(verbose: boolean): (schema: JsonSchema) => Compiled {
    let ajv = newAjv(verbose);
    const cache = new WeakMap<object, Compiled>();
    return (schema) => {
      const hit = cache.get(schema);
      if (hit) return hit;
      let result: Compiled;
      try {
        result = { validate: ajv.compile(schema) };
      } catch (first) {
        // e.g. an `$id` already used by another tool's schema: retry in a fresh instance.
        try {
          ajv = newAjv(verbose);
          result = { validate: ajv.compile(schema) };
        } catch {
          result = { error: first instanceof Error ? first.message : String(first) };
        }
      }
      cache.set(schema, result);
      return result;
    };
  }

  // ---------------------------------------------------------------- shaping

  interface ShapeOptions {
    mode: ExampleMode;
    useExamples: boolean;
    branch: number;
    /** Inside a `uniqueItems` array: keep every enum value so items can differ. */
    keepEnums?: boolean;
  }

  function shape(node: unknown, o: ShapeOptions, depth: number): unknown {
    if (!isObject(node)) return node;
    if (depth > 24) return {};
    const s = node as JsonSchema;
    const out: JsonSchema = {};
    const required = Array.isArray(s["required"]) ? (s["required"] as unknown[]) : [];
    for (const [key, value] of Object.entries(s)) {
      switch (key) {
        case "properties": {
          if (!isObject(value)) break;
          const props: Record<string, unknown> = {};
          let optionalKept = 0;
          // `full` keeps every top-level argument, and a few in nested objects.
          const keepOptional = o.mode === "full" && depth < cfg.optionalDepth;
          for (const [name, sub] of Object.entries(value)) {
            const isRequired = required.includes(name);
            if (!isRequired) {
              if (isObject(sub) && sub["readOnly"] === true) continue;
              if (!keepOptional) continue;
              if (depth > 0 && optionalKept >= cfg.nestedOptionals) continue;
              optionalKept++;
            }
            props[name] = shape(sub, o, depth + 1);
          }
          out["properties"] = props;
          break;
        }
        case "items":
          out[key] = shape(value, s["uniqueItems"] === true ? { ...o, keepEnums: true } : o, depth + 1);
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
          out[key] = shape(value, o, depth + 1);
          break;
        case "prefixItems":
        case "allOf":
          out[key] = Array.isArray(value) ? value.map((v) => shape(v, o, depth + 1)) : value;
          break;
        case "patternProperties":
        case "dependentSchemas":
          if (isObject(value)) {
            out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shape(v, o, depth + 1)]));
          }
          break;
        case "oneOf":
        case "anyOf":
          break; // handled below
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

    // Choose one branch of oneOf/anyOf (the first non-null one, rotated by `branch`).
    for (const key of ["oneOf", "anyOf"] as const) {
      const branches = s[key];
      if (!Array.isArray(branches) || branches.length === 0) continue;
      const nonNull = branches.filter((b) => !(isObject(b) && b["type"] === "null"));
      const pool = nonNull.length > 0 ? nonNull : branches;
      const chosen = pool[o.branch % pool.length];
      const allOf = Array.isArray(out["allOf"]) ? [...(out["allOf"] as unknown[])] : [];
      allOf.push(shape(chosen, o, depth + 1));
      out["allOf"] = allOf;
    }

    // Keep arrays and free text short.
    const types = declaredTypes(out);
    const isArr = types.includes("array") || "items" in out || "prefixItems" in out;
    if (isArr) {
      const min = typeof s["minItems"] === "number" ? s["minItems"] : 0;
      const max = typeof s["maxItems"] === "number" ? s["maxItems"] : Infinity;
      const cap = o.mode === "full" ? (depth <= 1 ? cfg.maxItems : 1) : 1;
      const n = Math.max(min, Math.min(max, cap));
      out["minItems"] = n;
      out["maxItems"] = n;
    }
    // Unconstrained numbers read better small and positive (limit: 10, not -683).
    const isNum = (types.includes("integer") || types.includes("number")) && !("enum" in out) && !("const" in out);
    if (isNum && s["minimum"] === undefined && s["exclusiveMinimum"] === undefined) {
      const max = typeof s["maximum"] === "number" ? s["maximum"] : typeof s["exclusiveMaximum"] === "number" ? s["exclusiveMaximum"] : undefined;
      if (max === undefined || max > 1) out["minimum"] = 1;
      if (max === undefined) out["maximum"] = 100;
    }
    const isStr = types.includes("string") && !("format" in out) && !("pattern" in out) && !("enum" in out) && !("const" in out);
    if (isStr) {
      const min = typeof s["minLength"] === "number" ? s["minLength"] : 0;
      const max = typeof s["maxLength"] === "number" ? s["maxLength"] : Infinity;
      const cap = Math.max(min, Math.min(max, cfg.maxStringLength));
      out["maxLength"] = cap;
      if (min === 0) out["minLength"] = Math.min(cap, 3);
    }
    return out;
  }

  function fake(schema: JsonSchema, o: ShapeOptions, seed: number, budget: Budget): unknown {
    if (budget.left-- <= 0) return undefined;
    try {
      const shaped = shape(schema, o, 0) as JsonSchema;
      const value = generateSync(shaped as never, {
        seed,
        alwaysFakeOptionals: o.mode === "full",
        optionalsProbability: o.mode === "full" ? 1 : 0,
        fixedProbabilities: true,
        useExamplesValue: o.useExamples,
        useDefaultValue: o.useExamples,
        maxDepth: 16,
        maxDefaultItems: cfg.maxItems,
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

  // ------------------------------------------------------------- leaf values

  function numberFor(s: JsonSchema): number {
    const integer = declaredTypes(s).includes("integer") && !declaredTypes(s).includes("number");
    const step = typeof s["multipleOf"] === "number" && s["multipleOf"] > 0 ? s["multipleOf"] : integer ? 1 : undefined;
    let lo = typeof s["minimum"] === "number" ? s["minimum"] : undefined;
    let hi = typeof s["maximum"] === "number" ? s["maximum"] : undefined;
    const exLo = typeof s["exclusiveMinimum"] === "number" ? s["exclusiveMinimum"] : undefined;
    const exHi = typeof s["exclusiveMaximum"] === "number" ? s["exclusiveMaximum"] : undefined;
    if (step !== undefined) {
      const start = lo !== undefined ? lo : exLo !== undefined ? exLo : hi !== undefined ? Math.min(hi, 1) : exHi !== undefined ? exHi - step : 1;
      let n = Math.ceil(start / step) * step;
      if (exLo !== undefined && n <= exLo) n += step;
      if (n === 0 && lo === undefined && exLo === undefined) n = step;
      if ((hi !== undefined && n > hi) || (exHi !== undefined && n >= exHi)) {
        // Walk down from the upper bound instead.
        const top = hi ?? exHi!;
        n = Math.floor(top / step) * step;
        if (exHi !== undefined && n >= exHi) n -= step;
      }
      return integer ? Math.round(n) : Number(n.toPrecision(12));
    }
    if (exLo !== undefined) lo = lo === undefined ? exLo : Math.max(lo, exLo);
    if (exHi !== undefined) hi = hi === undefined ? exHi : Math.min(hi, exHi);
    if (lo !== undefined && hi !== undefined) return (lo + hi) / 2;
    if (lo !== undefined) return exLo !== undefined && lo === exLo ? lo + 1 : lo;
    if (hi !== undefined) return exHi !== undefined && hi === exHi ? hi - 1 : Math.min(hi, 1);
    return 1;
  }

  function fitsString(s: JsonSchema, value: string): boolean {
    const len = [...value].length;
    if (typeof s["minLength"] === "number" && len < s["minLength"]) return false;
    if (typeof s["maxLength"] === "number" && len > s["maxLength"]) return false;
    if (typeof s["pattern"] === "string") {
      try {
        if (!new RegExp(s["pattern"], "u").test(value)) return false;
      } catch {
        return false;
      }
    }
    return true;
  }

  function stringFor(s: JsonSchema, seed: number, budget: Budget): string {
    const format = typeof s["format"] === "string" ? s["format"] : undefined;
    const canned = format ? CANNED_FORMATS[format] : undefined;
    if (canned !== undefined && fitsString(s, canned)) return canned;
    if (typeof s["pattern"] === "string") {
      const sub: JsonSchema = { type: "string", pattern: s["pattern"] };
      if (typeof s["minLength"] === "number") sub["minLength"] = s["minLength"];
      if (typeof s["maxLength"] === "number") sub["maxLength"] = s["maxLength"];
      for (let i = 0; i < 3 && budget.left > 0; i++) {
        budget.left--;
        try {
          const v = generateSync(sub as never, { seed: seed + i });
          if (typeof v === "string" && fitsString(s, v)) return v;
        } catch {
          /* try the next seed */
        }
      }
      for (const candidate of PATTERN_FALLBACKS) if (fitsString(s, candidate)) return candidate;
    }
    const min = typeof s["minLength"] === "number" ? s["minLength"] : 0;
    const max = typeof s["maxLength"] === "number" ? s["maxLength"] : Infinity;
    let base = canned ?? "example";
    while (base.length < min) base += "x";
    if (base.length > max) base = base.slice(0, Math.max(min, max));
    return base;
  }

  /** A value for a scalar-ish schema computed straight from its constraints. */
  function leafValue(s: JsonSchema, seed: number, budget: Budget): { ok: true; value: unknown } | { ok: false } {
    if ("const" in s) return { ok: true, value: s["const"] };
    if (Array.isArray(s["enum"]) && s["enum"].length > 0) {
      const types = declaredTypes(s);
      const first = (s["enum"] as unknown[]).find((v) => v !== null || types.length === 0 || types.includes("null"));
      return { ok: true, value: first === undefined ? s["enum"][0] : first };
    }
    const types = declaredTypes(s);
    const t = types.find((x) => x !== "null") ?? types[0];
    switch (t) {
      case "integer":
      case "number":
        return { ok: true, value: numberFor(s) };
      case "string":
        return { ok: true, value: stringFor(s, seed, budget) };
      case "boolean":
        return { ok: true, value: true };
      case "null":
        return { ok: true, value: null };
      default:
        return { ok: false };
    }
  }

  // ------------------------------------------------------------------ repair

  function makeValid(
    schema: JsonSchema,
    mode: ExampleMode,
    seed: number,
    budget: Budget,
    depth: number,
    quick?: ValidateFunction,
  ): { ok: true; value: unknown } | { ok: false; reason: string } {
    if (depth > 6 || budget.left <= 0) return { ok: false, reason: "gave up (repair budget exhausted)" };
    let validate = quick;
    if (!validate) {
      const compiled = compile(schema);
      if (!compiled.validate) return { ok: false, reason: `schema does not compile: ${compiled.error}` };
      validate = compiled.validate;
    }
    // The spec's own values first, when they are valid.
    const own: unknown[] = [];
    if (Array.isArray(schema["examples"])) own.push(...(schema["examples"] as unknown[]).slice(0, 3));
    if ("default" in schema) own.push(schema["default"]);
    for (const v of own) if (validate(v)) return { ok: true, value: structuredClone(v) };
    const leaf = leafValue(schema, seed, budget);
    if (leaf.ok && validate(leaf.value)) return { ok: true, value: leaf.value };
    let lastReason = "no candidate value";
    for (let attempt = 0; attempt < 4 && budget.left > 0; attempt++) {
      const candidate = fake(schema, { mode, useExamples: attempt === 0, branch: attempt }, seed + attempt * 7919, budget);
      if (candidate === undefined && attempt > 0) continue;
      const repaired = repair(candidate ?? {}, schema, validate, mode, seed + attempt, budget, depth);
      if (repaired.ok) return repaired;
      lastReason = repaired.reason;
    }
    return { ok: false, reason: lastReason };
  }

  function repair(
    initial: unknown,
    schema: JsonSchema,
    validate: ValidateFunction,
    mode: ExampleMode,
    seed: number,
    budget: Budget,
    depth: number,
  ): { ok: true; value: unknown } | { ok: false; reason: string } {
    let value = initial;
    // Errors come from the verbose twin of `validate`, compiled only when needed.
    const explain = (v: unknown): ErrorObject[] => {
      const verbose = compile(schema).validate;
      if (!verbose || verbose(v)) return [];
      return [...(verbose.errors ?? [])];
    };
    for (let round = 0; round < 6; round++) {
      if (validate(value)) return { ok: true, value };
      const errors = explain(value);
      if (budget.left <= 0 || errors.length === 0) break;
      const holder = { root: value };
      applyFixes(holder, errors, schema, mode, seed + round, budget, depth);
      value = holder.root;
    }
    if (validate(value)) return { ok: true, value };
    const first = explain(value)[0];
    return {
      ok: false,
      reason: first ? `${first.instancePath || "(root)"} ${first.message ?? first.keyword}` : "invalid",
    };
  }

  const COMPOSITE = new Set(["oneOf", "anyOf", "not", "if", "false schema", "dependentSchemas", "contains"]);

  function applyFixes(
    holder: { root: unknown },
    errors: ErrorObject[],
    rootSchema: JsonSchema,
    mode: ExampleMode,
    seed: number,
    budget: Budget,
    depth: number,
  ): void {
    // Composite failures first: regenerate the whole value they cover and
    // ignore the per-branch noise Ajv reports beneath them.
    const composite = errors.filter((e) => COMPOSITE.has(e.keyword));
    const handled: string[] = [];
    const covered = (e: ErrorObject): boolean =>
      handled.some((p) => e.instancePath === p || e.instancePath.startsWith(p + "/") || p === "");
    // Outermost first.
    composite.sort((a, b) => a.instancePath.length - b.instancePath.length);
    for (const e of composite) {
      if (covered(e)) continue;
      handled.push(e.instancePath);
      const parent = asSchema(e.parentSchema);
      if (!parent) continue;
      const fixed = regenerateComposite(parent, e, rootSchema, mode, seed, budget, depth);
      if (fixed.ok) setAt(holder, e.instancePath, fixed.value);
    }
    // Then leaf failures, each fixed from its own subschema.
    const done = new Set<string>();
    for (const e of errors) {
      if (COMPOSITE.has(e.keyword) || covered(e)) continue;
      // Errors inside oneOf/anyOf branches are covered by the composite error.
      if (/\/(oneOf|anyOf|not|if|then|else)\//.test(e.schemaPath) && composite.length > 0) continue;
      const parent = asSchema(e.parentSchema) ?? {};
      const params = e.params as Record<string, unknown>;
      switch (e.keyword) {
        case "required":
        case "dependentRequired":
        case "dependencies": {
          const missing = String(params["missingProperty"]);
          const key = `${e.instancePath}/${missing}`;
          if (done.has(key)) break;
          done.add(key);
          const propSchema = findPropertySchema(parent, missing) ?? findPropertySchema(schemaAtPath(rootSchema, e.instancePath), missing);
          const v = propSchema ? makeValid(propSchema, mode, seed, budget, depth + 1) : { ok: true as const, value: "example" };
          if (v.ok) {
            const target = getAt(holder.root, e.instancePath);
            if (isObject(target)) target[missing] = v.value;
          }
          break;
        }
        case "additionalProperties":
        case "unevaluatedProperties": {
          const target = getAt(holder.root, e.instancePath);
          const extra = String(params["additionalProperty"] ?? params["unevaluatedProperty"]);
          if (isObject(target)) delete target[extra];
          break;
        }
        case "propertyNames": {
          const target = getAt(holder.root, e.instancePath);
          if (isObject(target)) delete target[String(params["propertyName"])];
          break;
        }
        case "maxItems": {
          const target = getAt(holder.root, e.instancePath);
          if (Array.isArray(target)) target.length = Number(params["limit"]);
          break;
        }
        case "uniqueItems": {
          const target = getAt(holder.root, e.instancePath);
          if (Array.isArray(target)) setAt(holder, e.instancePath, uniqueItemsFor(target, parent, mode, seed, budget, depth));
          break;
        }
        case "maxProperties": {
          const target = getAt(holder.root, e.instancePath);
          if (isObject(target)) {
            const req = schemaRequired(parent);
            for (const k of Object.keys(target)) {
              if (Object.keys(target).length <= Number(params["limit"])) break;
              if (!req.includes(k)) delete target[k];
            }
          }
          break;
        }
        default: {
          if (done.has(e.instancePath)) break;
          done.add(e.instancePath);
          if (e.instancePath === "" && parent === rootSchema) break; // the caller retries from scratch
          const leaf = leafValue(parent, seed, budget);
          const v = leaf.ok && !["minItems", "uniqueItems", "minProperties"].includes(e.keyword)
            ? leaf
            : makeValid(parent, mode, seed + 1, budget, depth + 1);
          if (v.ok) setAt(holder, e.instancePath, v.value);
        }
      }
    }
  }

  function regenerateComposite(
    parent: JsonSchema,
    e: ErrorObject,
    rootSchema: JsonSchema,
    mode: ExampleMode,
    seed: number,
    budget: Budget,
    depth: number,
  ): { ok: true; value: unknown } | { ok: false } {
    if (parent !== rootSchema) {
      const v = makeValid(parent, mode, seed + 31, budget, depth + 1);
      if (v.ok) return v;
    }
    // Same schema as the one being repaired (or regenerating failed): try each
    // oneOf/anyOf branch merged with its siblings, in order.
    const branches = Array.isArray(parent[e.keyword]) ? (parent[e.keyword] as unknown[]) : [];
    const rest: JsonSchema = { ...parent };
    delete rest[e.keyword];
    for (let i = 0; i < Math.min(branches.length, 6) && budget.left > 0; i++) {
      const branch = branches[i];
      const allOf = Array.isArray(rest["allOf"]) ? [...(rest["allOf"] as unknown[]), branch] : [branch];
      const merged: JsonSchema = { ...rest, allOf };
      const candidate = makeValid(merged, mode, seed + i, budget, depth + 1);
      if (candidate.ok) {
        // The merged schema may accept values the original rejects (oneOf: several branches match).
        const compiled = compile(parent);
        if (compiled.validate?.(candidate.value)) return candidate;
      }
    }
    return { ok: false };
  }

  /** Dedupes an array, then tops it up to `minItems` with distinct values. */
  function uniqueItemsFor(
    arr: unknown[],
    s: JsonSchema,
    mode: ExampleMode,
    seed: number,
    budget: Budget,
    depth: number,
  ): unknown[] {
    const seen = new Set<string>();
    const out: unknown[] = [];
    const push = (v: unknown): void => {
      const key = JSON.stringify(v);
      if (seen.has(key)) return;
      seen.add(key);
      out.push(v);
    };
    arr.forEach(push);
    const min = typeof s["minItems"] === "number" ? s["minItems"] : 0;
    const items = asSchema(s["items"]);
    if (out.length >= min || !items) return out;
    if (Array.isArray(items["enum"])) (items["enum"] as unknown[]).forEach((v) => out.length < min && push(v));
    const check = compile(items).validate;
    for (let i = 1; out.length < min && i <= min * 3 && budget.left > 0; i++) {
      const v = fake(items, { mode, useExamples: false, branch: i, keepEnums: true }, seed + i * 104729, budget);
      if (v !== undefined && check?.(v)) push(v);
    }
    void depth;
    return out;
  }

  // --------------------------------------------------------------- minimal

  /** Drops everything that is not required, recursively, following the schema. */
  function pruneToRequired(value: unknown, schema: JsonSchema | undefined, depth = 0): unknown {
    if (!schema || depth > 32) return value;
    if (Array.isArray(value)) {
      const items = asSchema(schema["items"]);
      return items ? value.map((v) => pruneToRequired(v, items, depth + 1)) : value;
    }
    if (!isObject(value)) return value;
    const required = schemaRequired(schema);
    const props = schemaProperties(schema);
    const out: Args = {};
    for (const [k, v] of Object.entries(value)) {
      if (!required.includes(k)) continue;
      out[k] = pruneToRequired(v, props[k], depth + 1);
    }
    return out;
  }

  // ------------------------------------------------------------------ entry

  /**
   * Examples for one input schema. `validate` may be the tool's validator
   * compiled elsewhere with createAjv() (saves compiling big schemas twice).
   */
  function build(schema: JsonSchema, seed: number, validate?: ValidateFunction): ExampleOutcome {
    const problems: string[] = [];
    if (!validate) {
      const compiled = compilePlain(schema);
      if (!compiled.validate) {
        return { problems: [`the input schema does not compile with Ajv (${compiled.error}), so no example can be checked`] };
      }
      validate = compiled.validate;
    }
    const budget: Budget = { left: cfg.budget };

    let full: Args | undefined;
    const fullResult = makeValid(schema, "full", seed, budget, 0, validate);
    if (fullResult.ok && isObject(fullResult.value)) full = fullResult.value;
    const fullFailure = fullResult.ok ? undefined : fullResult.reason;

    let minimal: Args | undefined;
    if (full) {
      const pruned = pruneToRequired(structuredClone(full), schema);
      if (isObject(pruned) && validate(pruned)) minimal = pruned;
    }
    if (!minimal) {
      budget.left = Math.max(budget.left, Math.ceil(cfg.budget / 2));
      const minResult = makeValid(schema, "minimal", seed, budget, 0, validate);
      if (minResult.ok && isObject(minResult.value)) minimal = minResult.value;
      else if (!minResult.ok && !full) {
        problems.push(`could not build a valid example: ${fullFailure ?? minResult.reason}`);
      }
    }
    if (!full && minimal) full = structuredClone(minimal);
    if (!minimal && full) minimal = structuredClone(full);
    if (!minimal || !full) return { problems };
    // Belt and braces: nothing leaves here unvalidated.
    if (!validate(minimal) || !validate(full)) return { problems: [...problems, "internal: example failed final validation"] };
    return { examples: { minimal, full }, problems };
  }

  return { build, compile };
}

// ------------------------------------------------------------ pointer helpers

function getAt(root: unknown, instancePath: string): unknown {
  let cur = root;
  for (const token of parsePointer(instancePath)) {
    if (Array.isArray(cur)) cur = cur[Number(token)];
    else if (isObject(cur)) cur = cur[token];
    else return undefined;
  }
  return cur;
}

function setAt(holder: { root: unknown }, instancePath: string, value: unknown): void {
  const tokens = parsePointer(instancePath);
  if (tokens.length === 0) {
    holder.root = value;
    return;
  }
  const parent = getAt(holder.root, tokens.slice(0, -1).map((t) => "/" + escape(t)).join(""));
  const last = tokens[tokens.length - 1]!;
  if (Array.isArray(parent)) parent[Number(last)] = value;
  else if (isObject(parent)) parent[last] = value;
}

function escape(token: string): string {
  return token.replace(/~/g, "~0").replace(/\//g, "~1");
}

function findPropertySchema(schema: JsonSchema | undefined, name: string): JsonSchema | undefined {
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
function schemaAtPath(root: JsonSchema, instancePath: string): JsonSchema | undefined {
  let cur: JsonSchema | undefined = root;
  for (const token of parsePointer(instancePath)) {
    if (!cur) return undefined;
    const props = schemaProperties(cur);
    if (token in props) cur = props[token];
    else if (/^\d+$/.test(token)) {
      const prefix = cur["prefixItems"];
      cur = Array.isArray(prefix) && asSchema(prefix[Number(token)]) ? asSchema(prefix[Number(token)]) : asSchema(cur["items"]);
    } else cur = asSchema(cur["additionalProperties"]);
  }
  return cur;
}
