/**
 * Values computed straight from a scalar schema's constraints: numbers inside
 * their bounds and steps, strings of the right format, length and pattern.
 */
import { generateSync } from "json-schema-faker";
import type { JsonSchema } from "../../model/ir.js";
import { declaredTypes, fitsString } from "../schema-util.js";
import type { Budget } from "./context.js";
import type { Picker } from "./realistic.js";

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

export function numberFor(s: JsonSchema): number {
  const integer = declaredTypes(s).includes("integer") && !declaredTypes(s).includes("number");
  const step = typeof s["multipleOf"] === "number" && s["multipleOf"] > 0 ? s["multipleOf"] : integer ? 1 : undefined;
  let lo = typeof s["minimum"] === "number" ? s["minimum"] : undefined;
  let hi = typeof s["maximum"] === "number" ? s["maximum"] : undefined;
  const exLo = typeof s["exclusiveMinimum"] === "number" ? s["exclusiveMinimum"] : undefined;
  const exHi = typeof s["exclusiveMaximum"] === "number" ? s["exclusiveMaximum"] : undefined;
  if (step !== undefined) {
    const start =
      lo !== undefined
        ? lo
        : exLo !== undefined
          ? exLo
          : hi !== undefined
            ? Math.min(hi, 1)
            : exHi !== undefined
              ? exHi - step
              : 1;
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

export function stringFor(s: JsonSchema, seed: number, budget: Budget): string {
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
export function leafValue(
  s: JsonSchema,
  seed: number,
  budget: Budget,
  pick?: Picker,
): { ok: true; value: unknown } | { ok: false } {
  if ("const" in s) return { ok: true, value: s["const"] };
  if (Array.isArray(s["enum"]) && s["enum"].length > 0) {
    const types = declaredTypes(s);
    const first = (s["enum"] as unknown[]).find((v) => v !== null || types.length === 0 || types.includes("null"));
    return { ok: true, value: first === undefined ? s["enum"][0] : first };
  }
  const types = declaredTypes(s);
  const t = types.find((x) => x !== "null") ?? types[0];
  const picked = pick?.(s, t);
  if (picked !== undefined) return { ok: true, value: picked };
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
