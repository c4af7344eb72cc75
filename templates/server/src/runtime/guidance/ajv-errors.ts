/**
 * Which of Ajv's errors (compiled with `allErrors`) are worth reporting, and the subschema each is about.
 *
 * `anyOf`/`oneOf` noise is collapsed: Ajv reports every failing branch plus a
 * bare "must match a schema in anyOf". We keep the branch the value was most
 * plausibly aiming at (one that did not fail on `type` at that location, with
 * the fewest errors); when every branch fails on type we report one
 * INVALID_TYPE listing all accepted types (`string or null`).
 */
import type { ErrorObject } from "ajv";
import type { JsonSchema } from "../shared/tool-data.js";
import { getAt } from "./pointer.js";
import { isPlainObject, parsePointer } from "../shared/json.js";
import { effectiveSchema, schemaAtInstance } from "./schema.js";

function within(path: string, parent: string): boolean {
  return path === parent || path.startsWith(parent + "/");
}

function isComposite(e: ErrorObject): boolean {
  return e.keyword === "anyOf" || (e.keyword === "oneOf" && !(e.params as { passingSchemas?: unknown }).passingSchemas);
}

/** Removes `anyOf`/`oneOf` branch noise and `if` wrappers; see the module comment. */
export function collapseErrors(errors: readonly ErrorObject[]): ErrorObject[] {
  let list = errors.filter((e) => e.keyword !== "if");
  const composites = list.filter(isComposite);
  for (let c = composites.length - 1; c >= 0; c--) {
    const comp = composites[c]!;
    const k = list.indexOf(comp);
    if (k < 0) continue;
    const prefix = comp.schemaPath + "/";
    const parentPath = comp.schemaPath.slice(0, comp.schemaPath.lastIndexOf("/") + 1);
    let start = k;
    while (start > 0) {
      const e = list[start - 1]!;
      if (!within(e.instancePath, comp.instancePath)) break;
      const prefixed = e.schemaPath.startsWith(prefix);
      if (
        !prefixed &&
        e.instancePath === comp.instancePath &&
        parentPath.length > 2 &&
        e.schemaPath.startsWith(parentPath)
      )
        break;
      start--;
    }
    const members = list.slice(start, k);
    const groups: ErrorObject[][] = [];
    const byBranch = new Map<string, ErrorObject[]>();
    let previousRef: ErrorObject[] | undefined;
    for (const e of members) {
      if (e.schemaPath.startsWith(prefix)) {
        const branch = e.schemaPath.slice(prefix.length).split("/")[0]!;
        let g = byBranch.get(branch);
        if (!g) {
          g = [];
          byBranch.set(branch, g);
          groups.push(g);
        }
        g.push(e);
        previousRef = undefined;
      } else {
        if (!previousRef) {
          previousRef = [];
          groups.push(previousRef);
        }
        previousRef.push(e);
      }
    }
    let replacement: ErrorObject[];
    if (groups.length === 0) {
      replacement = [comp];
    } else {
      const typeFails = (g: ErrorObject[]) =>
        g.some((e) => e.keyword === "type" && e.instancePath === comp.instancePath);
      const plausible = groups.filter((g) => !typeFails(g));
      if (plausible.length > 0) {
        replacement = plausible.reduce((best, g) => (g.length < best.length ? g : best));
      } else {
        const types: string[] = [];
        for (const g of groups)
          for (const e of g)
            if (e.keyword === "type" && e.instancePath === comp.instancePath) {
              const t = (e.params as { type?: unknown }).type;
              for (const x of Array.isArray(t) ? t : String(t).split(","))
                if (!types.includes(String(x))) types.push(String(x));
            }
        replacement = [
          {
            keyword: "type",
            instancePath: comp.instancePath,
            schemaPath: comp.schemaPath,
            params: { type: types.join(",") },
            message: `must be ${types.join(" or ")}`,
          },
        ];
      }
    }
    list = [...list.slice(0, start), ...replacement, ...list.slice(k + 1)];
  }
  return list;
}

const LIMIT_KEYWORDS = new Set([
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "minProperties",
  "maxProperties",
  "multipleOf",
]);

/** The subschema an error is about: the one holding its keyword, else the one at the value's place. */
export function schemaForError(root: JsonSchema, e: ErrorObject, segments: readonly string[]): JsonSchema | undefined {
  const sp = e.schemaPath;
  const parentPath = sp.slice(0, sp.lastIndexOf("/"));
  const candidate = getAt(root, parsePointer(parentPath));
  if (isPlainObject(candidate) && e.keyword in candidate) {
    const params = e.params as Record<string, unknown>;
    const value = candidate[e.keyword];
    const consistent = LIMIT_KEYWORDS.has(e.keyword)
      ? value === (e.keyword === "multipleOf" ? params["multipleOf"] : params["limit"])
      : e.keyword === "format"
        ? value === params["format"]
        : e.keyword === "pattern"
          ? value === params["pattern"]
          : true;
    if (consistent) return effectiveSchema(root, candidate as JsonSchema);
  }
  return schemaAtInstance(root, segments);
}
