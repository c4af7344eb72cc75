/**
 * `corrective_params`: a complete argument object that passes the validator,
 * built from the caller's own values wherever possible (coerced, clamped,
 * normalised), else from the generated example.
 */

import { formatPointer, isPlainObject } from "../shared/json.js";
import type { JsonSchema, ToolData } from "../shared/tool-data.js";
import { analyzeErrors, closestEnumValue, type AnalyzedIssue } from "./issues.js";
import { cloneJson, deleteAt, fieldName, getAt, jsonEqual, setAt } from "./pointer.js";
import { exampleValue, schemaTypes } from "./schema.js";
import { ID_NAME, toolIndex, type ToolIndex } from "./tool-index.js";
import { runValidator, type Validator } from "./validator.js";

const NO = Symbol("no-coercion");

/** Converts a value to one of `types` when the intent is unambiguous (`"50"` -> 50). */
export function coerceValue(value: unknown, types: readonly string[]): unknown {
  if (typeof value === "string") {
    const t = value.trim();
    if (types.includes("integer") && /^[-+]?\d+(\.0+)?$/.test(t)) return Number(t);
    if (types.includes("number") && t !== "" && Number.isFinite(Number(t))) return Number(t);
    if (types.includes("boolean") && /^(true|false)$/i.test(t)) return t.toLowerCase() === "true";
    if (types.includes("null") && (t === "null" || t === "")) return null;
    if ((types.includes("array") || types.includes("object")) && /^[[{]/.test(t)) {
      try {
        const parsed: unknown = JSON.parse(t);
        const kind = Array.isArray(parsed) ? "array" : isPlainObject(parsed) ? "object" : "";
        if (types.includes(kind)) return parsed;
      } catch {
        /* fall through */
      }
    }
    if (types.includes("array")) return t.includes(",") ? t.split(",").map((s) => s.trim()) : [value];
    return NO;
  }
  if (typeof value === "number") {
    if (types.includes("integer") && Number.isFinite(value) && !Number.isInteger(value)) return Math.round(value);
    if (types.includes("string")) return String(value);
    if (types.includes("boolean") && (value === 0 || value === 1)) return value === 1;
  }
  if (typeof value === "boolean" && types.includes("string")) return String(value);
  if (types.includes("array") && value !== undefined && !Array.isArray(value)) return [value];
  return NO;
}

function num(schema: JsonSchema | undefined, key: string): number | undefined {
  const v = schema?.[key];
  return typeof v === "number" ? v : undefined;
}

/** Clamps a number into the schema's range (and onto its `multipleOf` grid). */
export function clampNumber(value: number, schema: JsonSchema | undefined): number {
  const types = schemaTypes(schema);
  const integer = types.includes("integer") && !types.includes("number");
  const step = num(schema, "multipleOf");
  let lower = num(schema, "minimum") ?? -Infinity;
  let upper = num(schema, "maximum") ?? Infinity;
  const xmin = num(schema, "exclusiveMinimum");
  const xmax = num(schema, "exclusiveMaximum");
  if (xmin !== undefined) {
    const room = Math.min(upper, xmax ?? Infinity) - xmin;
    lower = Math.max(
      lower,
      integer ? Math.floor(xmin) + 1 : xmin + Math.min(step ?? 1, Number.isFinite(room) ? room / 2 : 1),
    );
  }
  if (xmax !== undefined) {
    const room = xmax - Math.max(lower, xmin ?? -Infinity);
    upper = Math.min(
      upper,
      integer ? Math.ceil(xmax) - 1 : xmax - Math.min(step ?? 1, Number.isFinite(room) ? room / 2 : 1),
    );
  }
  let n = Math.min(Math.max(value, lower), upper);
  if (integer) n = Math.round(n);
  if (step) {
    let k = Math.round(n / step);
    if (k * step < lower) k = Math.ceil(lower / step);
    if (k * step > upper) k = Math.floor(upper / step);
    n = Number((k * step).toFixed(12));
  }
  return n;
}

function normalizeFormat(value: unknown, format: string): unknown {
  if (typeof value !== "string") return NO;
  const v = value.trim();
  switch (format) {
    case "date-time":
      if (/^\d{4}-\d{2}-\d{2}$/.test(v)) return `${v}T00:00:00Z`;
      if (/^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(v))
        return `${v.replace(" ", "T")}${v.length === 16 ? ":00" : ""}Z`;
      break;
    case "date":
      if (/^\d{4}-\d{2}-\d{2}[ T]/.test(v)) return v.slice(0, 10);
      break;
    default:
      break;
  }
  return v !== value ? v : NO;
}

interface CorrectiveResult {
  params?: Record<string, unknown>;
  exampleFields: string[];
  note?: string;
}

function isPrefix(prefix: readonly string[], path: readonly string[]): boolean {
  return prefix.length <= path.length && prefix.every((s, i) => s === path[i]);
}

/**
 * Builds a complete argument object that passes `validate`, or explains why
 * none is offered. Values the caller sent are kept or minimally repaired;
 * values taken from the example are listed in `exampleFields`. Example values
 * are never substituted for identifiers (path parameters, `*Id` fields) nor on
 * destructive tools: a plausible-looking wrong id is worse than no suggestion.
 */
export function buildCorrectiveParams(
  tool: ToolData,
  working: Record<string, unknown>,
  unknown: readonly AnalyzedIssue[],
  validate: Validator,
  index: ToolIndex = toolIndex(tool),
): CorrectiveResult {
  const candidate = cloneJson(working);
  const exampleFields: string[] = [];
  for (const u of unknown) {
    const key = u.segments[0]!;
    const target = u.issue.did_you_mean;
    const value = candidate[key];
    delete candidate[key];
    if (typeof target === "string" && !Object.prototype.hasOwnProperty.call(candidate, target))
      candidate[target] = value;
  }
  const attempts = new Map<string, number>();
  for (let pass = 0; pass < 6; pass++) {
    const check = runValidator(validate, candidate);
    if (check.valid) break;
    const issues = analyzeErrors(tool, candidate, check.errors);
    issues.sort((a, b) => a.segments.length - b.segments.length);
    const touched: string[][] = [];
    let changed = false;
    for (const a of issues) {
      if (touched.some((p) => isPrefix(p, a.segments))) continue;
      const key = formatPointer(a.segments) + "|" + a.issue.code;
      const attempt = attempts.get(key) ?? 0;
      attempts.set(key, attempt + 1);
      if (attempt >= 2) return { exampleFields, note: `No confident correction for ${a.issue.field}.` };
      const outcome = fixOne(tool, candidate, a, attempt);
      if (outcome === "fail")
        return { exampleFields, note: `No confident correction for ${a.issue.field}: ${a.issue.fix}.` };
      if (outcome === "example") {
        const field = fieldName(a.segments);
        const root = a.segments[0];
        if (
          tool.annotations.destructiveHint ||
          (root !== undefined && index.identifiers.has(root)) ||
          ID_NAME.test(a.segments[a.segments.length - 1] ?? "")
        ) {
          return {
            exampleFields,
            note:
              `${field} needs a real value from you${tool.guidance.listTool ? ` (look it up with ${tool.guidance.listTool})` : ""}; ` +
              `an example value would be a guess.`,
          };
        }
        if (!exampleFields.includes(field)) exampleFields.push(field);
      }
      touched.push(a.segments);
      changed = true;
    }
    if (!changed) break;
  }
  if (!runValidator(validate, candidate).valid)
    return { exampleFields, note: "No correction could be verified against the schema." };
  return { params: candidate, exampleFields };
}

type FixOutcome = "fixed" | "example" | "fail";

function fixOne(tool: ToolData, candidate: Record<string, unknown>, a: AnalyzedIssue, attempt: number): FixOutcome {
  const segs = a.segments;
  const value = getAt(candidate, segs);
  const schema = a.schema;
  const useExample = (): FixOutcome => {
    let ex = exampleValue(tool, segs);
    if (ex === undefined && schema && schema["default"] !== undefined) ex = schema["default"];
    if (ex === undefined && schema && "const" in schema) ex = schema["const"];
    if (ex === undefined && Array.isArray(schema?.["enum"]) && (schema["enum"] as unknown[]).length === 1)
      ex = (schema["enum"] as unknown[])[0];
    if (ex === undefined || segs.length === 0) return "fail";
    return setAt(candidate, segs, cloneJson(ex)) ? "example" : "fail";
  };
  const set = (v: unknown): FixOutcome => (setAt(candidate, segs, v) ? "fixed" : "fail");

  switch (a.issue.code) {
    case "UNKNOWN_PARAMETER": {
      const parent = getAt(candidate, segs.slice(0, -1));
      const target = a.issue.did_you_mean;
      deleteAt(candidate, segs);
      if (typeof target === "string" && isPlainObject(parent) && !(target in parent)) parent[target] = value;
      return "fixed";
    }
    case "MISSING_REQUIRED":
      return useExample();
    case "INVALID_TYPE": {
      if (segs.length === 0) return "fail";
      const types = String(a.params["type"] ?? "").split(",");
      const coerced = attempt === 0 ? coerceValue(value, types) : NO;
      if (coerced !== NO) return set(coerced);
      return useExample();
    }
    case "OUT_OF_RANGE":
      if (typeof value !== "number") return useExample();
      return set(clampNumber(value, schema));
    case "INVALID_ENUM": {
      if (a.keyword === "const") return set(cloneJson(a.params["allowedValue"]));
      const allowed = (a.params["allowedValues"] as unknown[] | undefined) ?? [];
      const closest = closestEnumValue(value, allowed);
      return closest === undefined ? "fail" : set(closest);
    }
    case "INVALID_FORMAT": {
      const normalized = attempt === 0 ? normalizeFormat(value, String(a.params["format"])) : NO;
      return normalized !== NO ? set(normalized) : useExample();
    }
    case "INVALID_PATTERN": {
      if (attempt === 0 && typeof value === "string" && value.trim() !== value) return set(value.trim());
      return useExample();
    }
    case "INVALID_LENGTH": {
      const limit = Number(a.params["limit"]);
      if (typeof value === "string") {
        const chars = Array.from(value);
        if (a.keyword === "maxLength") return set(chars.slice(0, limit).join(""));
        const ex = exampleValue(tool, segs);
        if (typeof ex !== "string" || ex.length === 0) return "fail";
        let padded = value;
        while (Array.from(padded).length < limit) padded += ex;
        return set(Array.from(padded).slice(0, limit).join(""));
      }
      if (Array.isArray(value)) {
        if (a.keyword === "maxItems") return set(value.slice(0, limit));
        const ex = exampleValue(tool, segs);
        if (!Array.isArray(ex)) return useExample();
        const out = [...value];
        for (const item of ex) {
          if (out.length >= limit) break;
          if (!out.some((o) => jsonEqual(o, item))) out.push(cloneJson(item));
        }
        return out.length >= limit ? set(out) : useExample();
      }
      return useExample();
    }
    case "INVALID_VALUE":
      if (a.keyword === "uniqueItems" && Array.isArray(value)) {
        const out: unknown[] = [];
        for (const item of value) if (!out.some((o) => jsonEqual(o, item))) out.push(item);
        return set(out);
      }
      return useExample();
    default:
      return "fail";
  }
}
