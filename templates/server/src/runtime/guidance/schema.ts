/**
 * Small, read-only helpers over a tool's JSON Schema: following local `$ref`s,
 * finding the subschema for an instance path, and describing constraints in
 * words (`integer between 1 and 100`). Only used on the error path.
 */
import type { JsonSchema, ToolData } from "../shared/tool-data.js";
import { getAt } from "./pointer.js";
import { isPlainObject, parsePointer, jsonType } from "../shared/json.js";

function asSchema(value: unknown): JsonSchema | undefined {
  return isPlainObject(value) ? (value as JsonSchema) : undefined;
}

/** Follows local `$ref`s, merges `allOf`, and unwraps a nullable `anyOf`/`oneOf` with one real branch. */
export function effectiveSchema(root: JsonSchema, schema: JsonSchema | undefined, depth = 0): JsonSchema | undefined {
  if (!schema || depth > 12) return schema;
  let s = schema;
  const ref = s["$ref"];
  if (typeof ref === "string" && ref.startsWith("#")) {
    const target = asSchema(getAt(root, parsePointer(ref)));
    if (target) {
      const { $ref: _ignored, ...rest } = s;
      s = { ...(effectiveSchema(root, target, depth + 1) ?? target), ...rest };
    }
  }
  if (Array.isArray(s["allOf"])) {
    let merged: JsonSchema = { ...s };
    delete merged["allOf"];
    for (const part of s["allOf"] as unknown[]) {
      const e = effectiveSchema(root, asSchema(part), depth + 1);
      if (!e) continue;
      merged = {
        ...e,
        ...merged,
        properties: { ...(asSchema(e["properties"]) ?? {}), ...(asSchema(merged["properties"]) ?? {}) },
        required: [
          ...((Array.isArray(e["required"]) ? e["required"] : []) as string[]),
          ...((Array.isArray(merged["required"]) ? merged["required"] : []) as string[]),
        ],
      };
    }
    s = merged;
  }
  for (const keyword of ["anyOf", "oneOf"] as const) {
    const branches = s[keyword];
    if (!Array.isArray(branches)) continue;
    const real = branches.filter((b) => !(isPlainObject(b) && b["type"] === "null"));
    if (real.length === 1 && real.length < branches.length) {
      const e = effectiveSchema(root, asSchema(real[0]), depth + 1);
      if (e) {
        const rest: JsonSchema = { ...s };
        delete rest[keyword];
        s = { ...e, ...rest, nullable: true };
      }
    }
  }
  return s;
}

/** The subschema that describes the value at `segments` of an instance, if it can be found. */
export function schemaAtInstance(root: JsonSchema, segments: readonly string[]): JsonSchema | undefined {
  let current = effectiveSchema(root, root);
  for (const segment of segments) {
    if (!current) return undefined;
    current = effectiveSchema(root, childSchema(root, current, segment));
  }
  return current;
}

function childSchema(root: JsonSchema, schema: JsonSchema, segment: string, depth = 0): JsonSchema | undefined {
  const props = asSchema(schema["properties"]);
  if (props && isPlainObject(props[segment])) return props[segment] as JsonSchema;
  const patterns = asSchema(schema["patternProperties"]);
  if (patterns) {
    for (const [pattern, sub] of Object.entries(patterns)) {
      try {
        if (new RegExp(pattern, "u").test(segment) && isPlainObject(sub)) return sub as JsonSchema;
      } catch {
        /* ignore patterns this engine cannot compile */
      }
    }
  }
  if (/^(0|[1-9]\d*)$/.test(segment)) {
    const prefix = schema["prefixItems"];
    const index = Number(segment);
    if (Array.isArray(prefix) && index < prefix.length && isPlainObject(prefix[index]))
      return prefix[index] as JsonSchema;
    if (isPlainObject(schema["items"])) return schema["items"] as JsonSchema;
    if (Array.isArray(schema["items"]) && isPlainObject(schema["items"][index]))
      return schema["items"][index] as JsonSchema;
  }
  if (isPlainObject(schema["additionalProperties"])) return schema["additionalProperties"] as JsonSchema;
  if (depth < 4) {
    for (const keyword of ["anyOf", "oneOf", "allOf"]) {
      const branches = schema[keyword];
      if (!Array.isArray(branches)) continue;
      for (const branch of branches) {
        const e = effectiveSchema(root, asSchema(branch));
        const found = e && childSchema(root, e, segment, depth + 1);
        if (found) return found;
      }
    }
  }
  return undefined;
}

/** Property names declared by an object schema (after `$ref`/`allOf` resolution). */
export function propertyNames(root: JsonSchema, schema: JsonSchema | undefined): string[] {
  const e = effectiveSchema(root, schema);
  const props = e && asSchema(e["properties"]);
  return props ? Object.keys(props) : [];
}

export function schemaTypes(schema: JsonSchema | undefined): string[] {
  if (!schema) return [];
  const t = schema["type"];
  const types =
    typeof t === "string" ? [t] : Array.isArray(t) ? t.filter((x): x is string => typeof x === "string") : [];
  if (schema["nullable"] === true && !types.includes("null")) types.push("null");
  if (types.length === 0) {
    if (Array.isArray(schema["enum"])) {
      for (const v of schema["enum"]) {
        const jt = jsonType(v);
        if (!types.includes(jt)) types.push(jt);
      }
    } else if (schema["properties"]) types.push("object");
    else if (schema["items"]) types.push("array");
  }
  return types;
}

function num(schema: JsonSchema, key: string): number | undefined {
  const v = schema[key];
  return typeof v === "number" ? v : undefined;
}

/** Enum values rendered for a sentence: `available, pending, sold` (long lists are cut). */
export function formatEnum(values: readonly unknown[], max = 20): string {
  const shown = values.slice(0, max).map((v) => (typeof v === "string" ? v : JSON.stringify(v)));
  return values.length > max ? `${shown.join(", ")}, … (${values.length - max} more)` : shown.join(", ");
}

/** `between 1 and 100`, `>= 1`, `< 10`; empty when the schema sets no numeric bounds. */
export function rangeText(schema: JsonSchema): string {
  const min = num(schema, "minimum");
  const max = num(schema, "maximum");
  const xmin = num(schema, "exclusiveMinimum");
  const xmax = num(schema, "exclusiveMaximum");
  const parts: string[] = [];
  if (min !== undefined && max !== undefined) parts.push(`between ${min} and ${max}`);
  else {
    if (min !== undefined) parts.push(`>= ${min}`);
    if (xmin !== undefined) parts.push(`> ${xmin}`);
    if (max !== undefined) parts.push(`<= ${max}`);
    if (xmax !== undefined) parts.push(`< ${xmax}`);
  }
  if (min !== undefined && max !== undefined) {
    if (xmin !== undefined) parts.push(`> ${xmin}`);
    if (xmax !== undefined) parts.push(`< ${xmax}`);
  }
  const multipleOf = num(schema, "multipleOf");
  if (multipleOf !== undefined) parts.push(`a multiple of ${multipleOf}`);
  return parts.join(" and ");
}

function lengthText(schema: JsonSchema, minKey: string, maxKey: string, unit: string): string {
  const min = num(schema, minKey);
  const max = num(schema, maxKey);
  if (min !== undefined && max !== undefined)
    return min === max ? `exactly ${min} ${unit}` : `${min} to ${max} ${unit}`;
  if (min !== undefined) return `at least ${min} ${unit}`;
  if (max !== undefined) return `at most ${max} ${unit}`;
  return "";
}

export function stringLengthText(schema: JsonSchema): string {
  return lengthText(schema, "minLength", "maxLength", "characters");
}

export function arrayLengthText(schema: JsonSchema): string {
  return lengthText(schema, "minItems", "maxItems", "items");
}

/** What a schema accepts, in words: `integer between 1 and 100`, `one of: a, b`, `string in email format`. */
export function describeExpected(schema: JsonSchema | undefined): string {
  if (!schema) return "a valid value";
  if ("const" in schema) return `exactly ${JSON.stringify(schema["const"])}`;
  if (Array.isArray(schema["enum"])) return `one of: ${formatEnum(schema["enum"])}`;
  const types = schemaTypes(schema);
  const base = types.length ? types.join(" or ") : "any value";
  const parts: string[] = [base];
  if (types.some((t) => t === "integer" || t === "number")) {
    const r = rangeText(schema);
    if (r) parts.push(r);
  }
  if (types.includes("string")) {
    const l = stringLengthText(schema);
    if (l) parts.push(`of ${l}`);
    if (typeof schema["format"] === "string") parts.push(`in ${schema["format"]} format`);
    if (typeof schema["pattern"] === "string") parts.push(`matching ${schema["pattern"]}`);
  }
  if (types.includes("array")) {
    const l = arrayLengthText(schema);
    if (l) parts.push(`with ${l}`);
    const items = asSchema(schema["items"]);
    const itemTypes = schemaTypes(items);
    if (itemTypes.length) parts[0] = `${base} of ${itemTypes.join(" or ")}`;
    if (schema["uniqueItems"] === true) parts.push("(unique)");
  }
  return parts.join(" ");
}

/** `a string`, `an integer between 1 and 100`. */
export function withArticle(text: string): string {
  if (/^(one of|exactly|any)\b/.test(text)) return text;
  return /^[aeiou]/i.test(text) ? `an ${text}` : `a ${text}`;
}

/**
 * A known-valid value for the field at `segments`, from the tool's generated
 * examples (full first, then minimal); array indexes fall back to item 0.
 */
export function exampleValue(tool: ToolData, segments: readonly string[]): unknown {
  const examples = tool.guidance.examples;
  if (!examples) return undefined;
  const sources = [examples.full, examples.minimal];
  for (const source of sources) {
    const direct = getAt(source, segments);
    if (direct !== undefined) return direct;
  }
  if (segments.some((s) => /^(0|[1-9]\d*)$/.test(s))) {
    const zeroed = segments.map((s) => (/^(0|[1-9]\d*)$/.test(s) ? "0" : s));
    for (const source of sources) {
      const v = getAt(source, zeroed);
      if (v !== undefined) return v;
    }
  }
  return undefined;
}

/** Canonical sample values for common formats, used in fix texts when no example exists. */
export const FORMAT_SAMPLES: Record<string, string> = {
  "date-time": "2024-01-31T12:00:00Z",
  date: "2024-01-31",
  time: "12:00:00Z",
  email: "user@example.com",
  uri: "https://example.com/path",
  url: "https://example.com/path",
  "uri-reference": "/path",
  uuid: "123e4567-e89b-12d3-a456-426614174000",
  ipv4: "192.0.2.1",
  ipv6: "2001:db8::1",
  hostname: "example.com",
  duration: "P1DT2H",
};
