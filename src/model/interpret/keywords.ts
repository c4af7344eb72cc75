/**
 * One builder per Ajv rule group: each keyword's check mirrors the Ajv keyword of the same name
 * (node_modules/ajv/lib/vocabularies/{validation,applicator,format}/*.ts) — its condition, its
 * params and message, and which subschemas it evaluates with which paths.
 */
import type { JsonSchema } from "../ir.js";
import { passes, report, type Check, type KeywordBuilder } from "./report.js";
import { alwaysValid, equal, FORMATS, ucs2length, type FormatDefinition } from "./vocabulary.js";

/** Ajv's `loopEnum` default: from this many values on, `enum` compares every value with `equal`. */
const LOOP_ENUM = 200;

/** const, enum, not, anyOf, oneOf, allOf. */
export const anyChecks: KeywordBuilder = (schema, keyword, sub) => {
  const value = schema[keyword];
  switch (keyword) {
    case "const":
      return constCheck(schema, value);
    case "enum":
      return enumCheck(schema, value as unknown[]);
    case "not":
      return notCheck(schema, value, sub);
    case "anyOf":
      return anyOfCheck(schema, value as unknown[], sub);
    case "oneOf":
      return oneOfCheck(schema, value as unknown[], sub);
    case "allOf":
      return allOfCheck(value as unknown[], sub);
    default:
      return undefined;
  }
};

function constCheck(schema: JsonSchema, value: unknown): Check {
  const same =
    value && typeof value === "object" ? (data: unknown) => equal(data, value) : (data: unknown) => data === value;
  return (data, path, at, out) => {
    if (!same(data))
      report(
        out,
        path,
        `${at}/const`,
        "const",
        { allowedValue: value },
        "must be equal to constant",
        value,
        schema,
        data,
      );
  };
}

function enumCheck(schema: JsonSchema, values: unknown[]): Check {
  const loop = values.length >= LOOP_ENUM;
  const matches = (data: unknown) =>
    values.some((v) => (loop || (typeof v === "object" && v !== null) ? equal(data, v) : data === v));
  return (data, path, at, out) => {
    if (!matches(data))
      report(
        out,
        path,
        `${at}/enum`,
        "enum",
        { allowedValues: values },
        "must be equal to one of the allowed values",
        values,
        schema,
        data,
      );
  };
}

/** not.ts: the subschema's own errors are never reported. */
function notCheck(schema: JsonSchema, value: unknown, sub: (schema: unknown) => Check): Check {
  const inner = sub(value);
  const always = alwaysValid(value);
  return (data, path, at, out) => {
    if (always || passes(inner, data, path, `${at}/not`, { errors: [], verbose: false }))
      report(out, path, `${at}/not`, "not", {}, "must NOT be valid", value, schema, data);
  };
}

/** anyOf.ts (code.ts `validateUnion`): the branches' errors stay only when none passes. */
function anyOfCheck(schema: JsonSchema, branches: unknown[], sub: (schema: unknown) => Check): Check {
  const checks = branches.map(sub);
  return (data, path, at, out) => {
    const before = out.errors.length;
    for (let i = 0; i < checks.length; i++) {
      if (passes(checks[i]!, data, path, `${at}/anyOf/${i}`, out)) {
        out.errors.length = before;
        return;
      }
    }
    report(out, path, `${at}/anyOf`, "anyOf", {}, "must match a schema in anyOf", branches, schema, data);
  };
}

/**
 * oneOf.ts, including the shape of Ajv's generated code: branches are evaluated in order until a second
 * one passes (each later branch sits in the `else` of the previous test), so a third is never evaluated.
 */
function oneOfCheck(schema: JsonSchema, branches: unknown[], sub: (schema: unknown) => Check): Check {
  const checks = branches.map((branch) => (alwaysValid(branch) ? undefined : sub(branch)));
  return (data, path, at, out) => {
    const before = out.errors.length;
    let valid = false;
    let passing: number | [number, number] | null = null;
    for (let i = 0; i < checks.length; i++) {
      const check = checks[i];
      const branchValid = check ? passes(check, data, path, `${at}/oneOf/${i}`, out) : true;
      if (i > 0 && branchValid && valid) {
        valid = false;
        passing = [passing as number, i];
        break;
      }
      if (branchValid) {
        valid = true;
        passing = i;
      }
    }
    if (valid) out.errors.length = before;
    else
      report(
        out,
        path,
        `${at}/oneOf`,
        "oneOf",
        { passingSchemas: passing },
        "must match exactly one schema in oneOf",
        branches,
        schema,
        data,
      );
  };
}

function allOfCheck(branches: unknown[], sub: (schema: unknown) => Check): Check {
  const checks = branches.flatMap((branch, i) => (alwaysValid(branch) ? [] : [{ check: sub(branch), i }]));
  return (data, path, at, out) => {
    for (let k = 0; k < checks.length; k++) checks[k]!.check(data, path, `${at}/allOf/${checks[k]!.i}`, out);
  };
}

const COMPARISONS: Record<string, { ok: string; fails: (data: number, limit: number) => boolean }> = {
  maximum: { ok: "<=", fails: (data, limit) => data > limit },
  minimum: { ok: ">=", fails: (data, limit) => data < limit },
  exclusiveMaximum: { ok: "<", fails: (data, limit) => data >= limit },
  exclusiveMinimum: { ok: ">", fails: (data, limit) => data <= limit },
};

/** limitNumber.ts, multipleOf.ts, format.ts (number formats). */
export const numberChecks: KeywordBuilder = (schema, keyword) => {
  const limit = schema[keyword] as number;
  const comparison = COMPARISONS[keyword];
  if (comparison) {
    const { ok, fails } = comparison;
    const message = `must be ${ok} ${limit}`;
    return (data, path, at, out) => {
      const n = data as number;
      if (fails(n, limit) || isNaN(n))
        report(out, path, `${at}/${keyword}`, keyword, { comparison: ok, limit }, message, limit, schema, data);
    };
  }
  if (keyword === "multipleOf")
    return (data, path, at, out) => {
      const ratio = (data as number) / limit;
      if (ratio !== parseInt(String(ratio)))
        report(
          out,
          path,
          `${at}/multipleOf`,
          "multipleOf",
          { multipleOf: limit },
          `must be multiple of ${limit}`,
          limit,
          schema,
          data,
        );
    };
  if (keyword === "format") return formatCheck(schema, "number");
  return undefined;
};

/** limitLength.ts, pattern.ts, format.ts (string formats). */
export const stringChecks: KeywordBuilder = (schema, keyword) => {
  const value = schema[keyword];
  if (keyword === "maxLength" || keyword === "minLength") {
    const limit = value as number;
    const more = keyword === "maxLength";
    const message = `must NOT have ${more ? "more" : "fewer"} than ${limit} characters`;
    return (data, path, at, out) => {
      const length = ucs2length(data as string);
      if (more ? length > limit : length < limit)
        report(out, path, `${at}/${keyword}`, keyword, { limit }, message, limit, schema, data);
    };
  }
  if (keyword === "pattern") {
    const regex = new RegExp(value as string, "u");
    return (data, path, at, out) => {
      if (!regex.test(data as string))
        report(
          out,
          path,
          `${at}/pattern`,
          "pattern",
          { pattern: value },
          `must match pattern "${value}"`,
          value,
          schema,
          data,
        );
    };
  }
  if (keyword === "format") return formatCheck(schema, "string");
  return undefined;
};

/** format.ts: a known format of the group's data type; unknown formats and `true` check nothing. */
function formatCheck(schema: JsonSchema, groupType: "number" | "string"): Check | undefined {
  const name = schema["format"] as string;
  if (!Object.hasOwn(FORMATS, name)) return undefined;
  const test = formatTest(FORMATS[name]!, groupType);
  if (!test) return undefined;
  const message = `must match format "${name}"`;
  return (data, path, at, out) => {
    if (!test(data)) report(out, path, `${at}/format`, "format", { format: name }, message, name, schema, data);
  };
}

function formatTest(definition: FormatDefinition, groupType: string): ((data: unknown) => boolean) | undefined {
  if (definition === true) return undefined;
  if (definition instanceof RegExp)
    return groupType === "string" ? (data) => definition.test(data as string) : undefined;
  if (typeof definition === "function") return groupType === "string" ? (data) => definition(data) : undefined;
  if ((definition.type ?? "string") !== groupType) return undefined;
  const { validate } = definition;
  // Ajv calls `fmtDef.validate(data)`, a method call.
  return validate instanceof RegExp
    ? (data) => validate.test(data as string)
    : (data) => (definition as { validate: (data: unknown) => boolean }).validate(data);
}
