/**
 * Tool, argument and environment-variable names. Every name is derived only
 * from the thing it names (never from its position in the spec), so adding
 * operations elsewhere does not rename existing tools.
 */
import { createHash } from "node:crypto";

export const MAX_TOOL_NAME = 64;
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
/** What Anthropic's API and others accept as property keys in a tool's input schema. */
export const ARG_NAME_PATTERN = /^[a-zA-Z0-9_.-]{1,64}$/;

export function shortHash(text: string, length = 6): string {
  return createHash("sha256").update(text).digest("hex").slice(0, length);
}

/** `listPetsByID` → `list_pets_by_id`; `repos/get-content` → `repos_get_content`. */
export function snakeCase(text: string): string {
  // ASCII (nearly every name) has nothing to decompose: two passes saved on each of thousands of names.
  const folded = /^[\x00-\x7f]*$/.test(text) ? text : text.normalize("NFKD").replace(/[\u0300-\u036f]/g, "");
  return folded
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .replace(/[^a-zA-Z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .replace(/_+/g, "_")
    .toLowerCase();
}

/** Fits a name into `max` characters, keeping it unique by suffixing a hash of the full name. */
export function fitLength(name: string, max = MAX_TOOL_NAME): string {
  if (name.length <= max) return name;
  const suffix = "_" + shortHash(name, 8);
  return name.slice(0, max - suffix.length).replace(/_+$/, "") + suffix;
}

/** `get /pets/{petId}/photos` → `get_pets_by_pet_id_photos`. */
export function nameFromRoute(method: string, path: string): string {
  const segments = path
    .split("/")
    .filter(Boolean)
    .map((segment) => {
      const parameter = /^\{(.+)\}$/.exec(segment);
      return parameter ? `by_${snakeCase(parameter[1] ?? "")}` : snakeCase(segment);
    })
    .filter(Boolean);
  return [method.toLowerCase(), ...segments].join("_");
}

export function baseToolName(operationId: string | undefined, method: string, path: string): string {
  const fromId = operationId ? snakeCase(operationId) : "";
  const raw = fromId || nameFromRoute(method, path) || "operation";
  return fitLength(/^[0-9]/.test(raw) ? `op_${raw}` : raw);
}

export interface NameRequest {
  base: string;
  /** Stable identity of the named thing, e.g. `get /pets`; used to break ties. */
  identity: string;
  /** Names derived from an explicit choice (operationId, x-mcp name) win ties. */
  explicit: boolean;
}

/**
 * Resolves collisions deterministically. Within a group sharing a base name,
 * the explicit one (then the smallest identity) keeps the bare name; the
 * others get a hash of their own identity, which does not depend on the rest
 * of the spec.
 */
export function assignUniqueNames(requests: NameRequest[]): string[] {
  const groups = new Map<string, number[]>();
  requests.forEach((request, index) => {
    const group = groups.get(request.base) ?? [];
    group.push(index);
    groups.set(request.base, group);
  });
  const names = requests.map((request) => request.base);
  const taken = new Set(names);
  for (const [base, members] of groups) {
    if (members.length < 2) continue;
    const ordered = [...members].sort((a, b) => {
      const left = requests[a]!;
      const right = requests[b]!;
      if (left.explicit !== right.explicit) return left.explicit ? -1 : 1;
      return left.identity < right.identity ? -1 : left.identity > right.identity ? 1 : 0;
    });
    for (const index of ordered.slice(1)) {
      let candidate = fitLength(`${base}_${shortHash(requests[index]!.identity, 4)}`);
      for (let length = 6; taken.has(candidate); length += 2) {
        candidate = fitLength(`${base}_${shortHash(requests[index]!.identity, length)}`);
      }
      taken.add(candidate);
      names[index] = candidate;
    }
  }
  return names;
}

/**
 * Names of Object.prototype's members (`constructor`, `__proto__`, `toString`…):
 * an argument so named would read the inherited member whenever the caller
 * leaves it out (`args.constructor` is `Object`), so arguments never get them.
 */
const PROTOTYPE_MEMBERS = new Set(Object.getOwnPropertyNames(Object.prototype));

export function isPrototypeMember(name: string): boolean {
  return PROTOTYPE_MEMBERS.has(name);
}

/** A valid property key for a tool's input schema; the wire name is kept in the binding. */
export function argName(name: string): string {
  if (ARG_NAME_PATTERN.test(name) && !PROTOTYPE_MEMBERS.has(name)) return name;
  const cleaned =
    name
      .replace(/[^a-zA-Z0-9_.-]+/g, "_")
      .replace(/^_+(?=.)/, "")
      .replace(/_+$/, "") || "arg";
  return fitLength(PROTOTYPE_MEMBERS.has(cleaned) ? `${cleaned}_arg` : cleaned);
}

/** `Swagger Petstore` → `SWAGGER_PETSTORE`. */
export function envName(...parts: string[]): string {
  return parts
    .map((part) => snakeCase(part).toUpperCase())
    .filter(Boolean)
    .join("_")
    .replace(/^([0-9])/, "_$1");
}

/**
 * An npm-safe package name: `Swagger Petstore - OpenAPI 3.0` → `swagger-petstore-openapi-3-0`,
 * `GitHub's official OpenAPI spec` → `githubs-official-openapi-spec` (words are not split at capitals).
 */
export function packageSlug(text: string, maxLength = 40): string {
  const slug = text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f'’]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  if (slug.length <= maxLength) return slug || "api";
  const cut = slug.slice(0, maxLength);
  return cut.slice(0, cut.lastIndexOf("-") > 0 ? cut.lastIndexOf("-") : maxLength) || "api";
}

/** `base`, or `base_2`, `base_3`… — the first that is not already a key of `taken`. */
export function uniqueKey(base: string, taken: Record<string, unknown>): string {
  let key = base;
  for (let counter = 2; Object.hasOwn(taken, key); counter++) key = `${base}_${counter}`;
  return key;
}
