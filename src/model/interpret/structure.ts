/**
 * The array and object rule groups (node_modules/ajv/lib/vocabularies/validation/{limitItems,uniqueItems,
 * limitProperties,required}.ts and applicator/{items2020,additionalProperties,properties}.ts).
 */
import type { JsonSchema } from "../ir.js";
import { propertyPaths, report, type Check, type KeywordBuilder } from "./report.js";
import { alwaysValid, equal, escapePointer, hasType } from "./vocabulary.js";

/** maxItems, minItems, items, uniqueItems. */
export const arrayChecks: KeywordBuilder = (schema, keyword, sub) => {
  const value = schema[keyword];
  switch (keyword) {
    case "maxItems":
    case "minItems":
      return countCheck(schema, keyword, "items", (data) => (data as unknown[]).length);
    case "items":
      return alwaysValid(value) ? undefined : itemsCheck(sub(value));
    case "uniqueItems":
      return value === true ? uniqueItemsCheck(schema) : undefined;
    default:
      return undefined;
  }
};

/** maxProperties, minProperties, required, additionalProperties, properties. */
export const objectChecks: KeywordBuilder = (schema, keyword, sub) => {
  const value = schema[keyword];
  switch (keyword) {
    case "maxProperties":
    case "minProperties":
      return countCheck(schema, keyword, "properties", (data) => Object.keys(data as object).length);
    case "required":
      return (value as string[]).length === 0 ? undefined : requiredCheck(schema, value as string[]);
    case "additionalProperties":
      return alwaysValid(value) ? undefined : additionalCheck(schema, value, sub);
    case "properties":
      return propertiesCheck(value as Record<string, unknown>, sub);
    default:
      return undefined;
  }
};

/** limitItems.ts, limitProperties.ts. */
function countCheck(schema: JsonSchema, keyword: string, noun: string, count: (data: unknown) => number): Check {
  const limit = schema[keyword] as number;
  const more = keyword.startsWith("max");
  const message = `must NOT have ${more ? "more" : "fewer"} than ${limit} ${noun}`;
  return (data, path, at, out) => {
    const n = count(data);
    if (more ? n > limit : n < limit)
      report(out, path, `${at}/${keyword}`, keyword, { limit }, message, limit, schema, data);
  };
}

/** items2020.ts without prefixItems (code.ts `validateArray`). */
function itemsCheck(item: Check): Check {
  return (data, path, at, out) => {
    const items = data as unknown[];
    const len = items.length;
    for (let i = 0; i < len; i++) item(items[i], `${path}/${i}`, `${at}/items`, out);
  };
}

/** uniqueItems.ts: both of Ajv's loops, as generated (the typed one keys a plain object by the item). */
function uniqueItemsCheck(schema: JsonSchema): Check {
  const items = schema["items"];
  const itemTypes = items && typeof items === "object" ? typeList((items as JsonSchema)["type"]) : [];
  const typed = itemTypes.length > 0 && !itemTypes.some((t) => t === "object" || t === "array");
  const duplicate = typed ? typedDuplicate(itemTypes) : deepDuplicate;
  return (data, path, at, out) => {
    const found = duplicate(data as unknown[]);
    if (found)
      report(
        out,
        path,
        `${at}/uniqueItems`,
        "uniqueItems",
        { i: found.i, j: found.j },
        `must NOT have duplicate items (items ## ${found.j} and ${found.i} are identical)`,
        true,
        schema,
        data,
      );
  };
}

type Duplicate = (items: unknown[]) => { i: number; j: number } | undefined;

/** uniqueItems.ts `loopN`. */
function typedDuplicate(itemTypes: string[]): Duplicate {
  const several = itemTypes.length > 1;
  return (items) => {
    let i = items.length;
    if (!(i > 1)) return undefined;
    const indices: Record<string, unknown> = {};
    for (; i--;) {
      let item = items[i];
      if (!itemTypes.some((type) => hasType(type, item))) continue;
      if (several && typeof item == "string") item += "_";
      const seen = indices[item as string];
      if (typeof seen == "number") return { i, j: seen };
      indices[item as string] = i;
    }
    return undefined;
  };
}

/** uniqueItems.ts `loopN2`. */
const deepDuplicate: Duplicate = (items) => {
  let i = items.length;
  if (!(i > 1)) return undefined;
  for (; i--;) for (let j = i; j--;) if (equal(items[i], items[j])) return { i, j };
  return undefined;
};

/** required.ts (allErrors): every missing property, in the schema's order; inherited ones count as present. */
function requiredCheck(schema: JsonSchema, names: string[]): Check {
  const value = schema["required"];
  return (data, path, at, out) => {
    const object = data as Record<string, unknown>;
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      if (object[name] === undefined)
        report(
          out,
          path,
          `${at}/required`,
          "required",
          { missingProperty: name },
          `must have required property '${name}'`,
          value,
          schema,
          data,
        );
    }
  };
}

/** code.ts `allSchemaProperties`: Ajv never treats `__proto__` as a declared property. */
function declaredProperties(properties: unknown): string[] {
  return properties && typeof properties === "object" ? Object.keys(properties).filter((p) => p !== "__proto__") : [];
}

/** additionalProperties.ts: keys of the object (`for…in`) not declared; more than 8 declared: an own-key test. */
function additionalCheck(schema: JsonSchema, value: unknown, sub: (schema: unknown) => Check): Check {
  const properties = schema["properties"] as Record<string, unknown> | undefined;
  const declared = declaredProperties(properties);
  const isDeclared =
    declared.length > 8
      ? (key: string) => Object.prototype.hasOwnProperty.call(properties, key)
      : (key: string) => declared.includes(key);
  return value === false ? rejectAdditional(schema, isDeclared) : validateAdditional(isDeclared, sub(value));
}

function rejectAdditional(schema: JsonSchema, isDeclared: (key: string) => boolean): Check {
  return (data, path, at, out) => {
    for (const key in data as object)
      if (!isDeclared(key))
        report(
          out,
          path,
          `${at}/additionalProperties`,
          "additionalProperties",
          { additionalProperty: key },
          "must NOT have additional properties",
          false,
          schema,
          data,
        );
  };
}

function validateAdditional(isDeclared: (key: string) => boolean, extra: Check): Check {
  return (data, path, at, out) => {
    const object = data as Record<string, unknown>;
    for (const key in object)
      if (!isDeclared(key)) extra(object[key], `${path}/${escapePointer(key)}`, `${at}/additionalProperties`, out);
  };
}

/**
 * properties.ts: each declared property that is present (`!== undefined`, inherited included). A property's
 * check and paths are made when it is first present: an example holds a few of a large object's properties.
 */
function propertiesCheck(properties: Record<string, unknown>, sub: (schema: unknown) => Check): Check | undefined {
  const checked: DeclaredProperty[] = declaredProperties(properties)
    .filter((name) => !alwaysValid(properties[name]))
    .map((name) => ({ name, made: undefined }));
  if (checked.length === 0) return undefined;
  return (data, path, at, out) => {
    const object = data as Record<string, unknown>;
    for (let i = 0; i < checked.length; i++) {
      const property = checked[i]!;
      const value = object[property.name];
      if (value === undefined) continue;
      const made = (property.made ??= { check: sub(properties[property.name]), paths: propertyPaths(property.name) });
      made.check(value, path + made.paths.instance, `${at}/properties${made.paths.schema}`, out);
    }
  };
}

interface DeclaredProperty {
  name: string;
  made: { check: Check; paths: { instance: string; schema: string } } | undefined;
}

function typeList(type: unknown): string[] {
  if (Array.isArray(type)) return type as string[];
  return typeof type === "string" ? [type] : [];
}
