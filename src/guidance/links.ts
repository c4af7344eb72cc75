/**
 * Follow-up calls offered after a successful response (agent-design-patterns
 * pattern 5, "resource linking"), and the list tool of each resource.
 *
 * (a) OpenAPI Link objects: the target `operationId`/`operationRef` becomes a
 *     tool name; parameter keys (wire names, optionally `path.`-qualified)
 *     become the target tool's argument names; runtime expressions are kept.
 * (b) Links inferred from the shape of the paths:
 *     - item ops `/pets/{petId}` → sibling GET/PUT/PATCH/DELETE and
 *       sub-collections `/pets/{petId}/photos` (ids from `$request.path.*`);
 *     - collection GET `/pets` → item getter, id from the first item;
 *     - POST `/pets` → item getter, id from the created resource;
 *     - `owner_id`-style response fields → the owner's getter.
 */
import type { Diagnostic, OpenApiLink, ToolLink, ToolModel } from "../model/ir.js";
import { idField, ownerFields } from "./answer-fields.js";
import { findItemSchema, findItemsPointer } from "./pagination.js";
import {
  escapePointerToken,
  humanNoun,
  normName,
  parsePointer,
  schemaProperties,
  singularize,
  words,
} from "./schema-util.js";

export const MAX_LINKS = 8;

export interface PathInfo {
  tool: ToolModel;
  method: string;
  /** Raw segments of the path template. */
  segments: string[];
  /** Segments with every `{param}` replaced by `{}`. */
  shape: string[];
  /** Wire names of the path parameters by segment index. */
  params: Map<number, string>;
}

const PARAM = /^\{([^}]+)\}$/;

function pathInfo(tool: ToolModel): PathInfo | undefined {
  const op = tool.operation;
  if (!op) return undefined;
  const segments = op.path.split("/").filter((s) => s !== "");
  const params = new Map<number, string>();
  const shape = segments.map((s, i) => {
    const m = PARAM.exec(s);
    if (m) {
      params.set(i, m[1]!);
      return "{}";
    }
    return s;
  });
  return { tool, method: op.method, segments, shape, params };
}

export const key = (shape: string[]): string => "/" + shape.join("/");
export const isItem = (p: PathInfo): boolean => p.shape.length > 0 && p.shape[p.shape.length - 1] === "{}";

/** Indexes over the API's operations, built once per model. */
export interface LinkIndex {
  byOperationId: Map<string, ToolModel>;
  /** Canonical operation pointer → tool; made at the first `operationRef` (most APIs have none). */
  byPointer: () => ReadonlyMap<string, ToolModel>;
  /** `get /pets/{}` → tool. */
  byRoute: Map<string, PathInfo>;
  /** `/pets/{}` → operations one segment below it. */
  children: Map<string, PathInfo[]>;
  /** singular noun (normalised) → item getters of that resource. */
  gettersByNoun: Map<string, PathInfo[]>;
  /** normalised tool name → tool. */
  byName: Map<string, ToolModel>;
  info: Map<ToolModel, PathInfo>;
}

function canonicalPointer(pointer: string): string {
  const hash = pointer.indexOf("#");
  const fragment = hash >= 0 ? pointer.slice(hash) : pointer;
  return parsePointer(fragment).join("\u0000");
}

function lazyPointers(tools: ToolModel[]): () => ReadonlyMap<string, ToolModel> {
  let made: Map<string, ToolModel> | undefined;
  return () => {
    if (!made) {
      made = new Map();
      for (const tool of tools) made.set(canonicalPointer(tool.pointer), tool);
    }
    return made;
  };
}

export function buildLinkIndex(tools: ToolModel[]): LinkIndex {
  const index: LinkIndex = {
    byOperationId: new Map(),
    byPointer: lazyPointers(tools),
    byRoute: new Map(),
    children: new Map(),
    gettersByNoun: new Map(),
    byName: new Map(),
    info: new Map(),
  };
  for (const tool of tools) {
    if (tool.operationId && !index.byOperationId.has(tool.operationId)) index.byOperationId.set(tool.operationId, tool);
    const n = normName(tool.name);
    if (!index.byName.has(n)) index.byName.set(n, tool);
    const info = pathInfo(tool);
    if (!info) continue;
    index.info.set(tool, info);
    const route = `${info.method} ${key(info.shape)}`;
    if (!index.byRoute.has(route)) index.byRoute.set(route, info);
    if (info.shape.length > 0) {
      const parent = key(info.shape.slice(0, -1));
      const list = index.children.get(parent) ?? [];
      list.push(info);
      index.children.set(parent, list);
    }
    if (info.method === "get" && isItem(info) && info.shape.length >= 2) {
      const collection = info.shape[info.shape.length - 2]!;
      if (collection !== "{}") {
        const noun = normName(singularize(collection));
        const list = index.gettersByNoun.get(noun) ?? [];
        list.push(info);
        index.gettersByNoun.set(noun, list);
      }
    }
  }
  return index;
}

// ------------------------------------------------------------------ helpers

function pathArg(tool: ToolModel, wire: string): string {
  const binding = tool.operation?.parameters.find((p) => p.in === "path" && p.name === wire);
  return binding?.arg ?? wire;
}

/** Whether the first `n` segments of two path shapes are equal (segments never hold `/`, so joining them adds nothing). */
function sharesPrefix(a: string[], b: string[], n: number): boolean {
  if (n > a.length || n > b.length) return a.slice(0, n).join("/") === b.slice(0, n).join("/");
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

function hasWire(info: PathInfo, wire: string): boolean {
  for (const w of info.params.values()) if (w === wire) return true;
  return false;
}

/**
 * Fills the target's path parameters from the source request where the two
 * paths share the same prefix up to that parameter.
 */
function pathParamsFromRequest(
  source: PathInfo,
  target: PathInfo,
): { params: Record<string, unknown>; missing: number[] } {
  const params: Record<string, unknown> = {};
  const missing: number[] = [];
  for (const [i, wire] of target.params) {
    const sameShape = i < source.shape.length && sharesPrefix(source.shape, target.shape, i + 1);
    const sourceWire = sameShape ? source.params.get(i) : undefined;
    if (sourceWire !== undefined) params[pathArg(target.tool, wire)] = `$request.path.${sourceWire}`;
    // Same wire name anywhere in the source path (e.g. `{owner}` in `/repos/{owner}/{repo}`).
    else if (hasWire(source, wire)) params[pathArg(target.tool, wire)] = `$request.path.${wire}`;
    else missing.push(i);
  }
  return { params, missing };
}

export function nounOf(info: PathInfo, index: number): string {
  for (let i = index; i >= 0; i--) {
    const seg = info.shape[i];
    if (seg && seg !== "{}") return humanNoun(seg.replace(/[:.].*$/, ""));
  }
  return "item";
}

const VERB: Record<string, string> = { get: "Get", put: "Replace", patch: "Update", post: "Update", delete: "Delete" };

function label(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

// ------------------------------------------------------------- openapi links

function resolveTarget(link: OpenApiLink, index: LinkIndex): ToolModel | undefined {
  if (link.operationId) return index.byOperationId.get(link.operationId);
  if (link.operationRef) return index.byPointer().get(canonicalPointer(link.operationRef));
  return undefined;
}

function targetArgFor(target: ToolModel, rawKey: string): string | undefined {
  const m = /^(path|query|header|cookie)\.(.+)$/.exec(rawKey);
  const where = m?.[1];
  const name = m?.[2] ?? rawKey;
  const op = target.operation;
  const binding = op?.parameters.find((p) => p.name === name && (!where || p.in === where));
  if (binding) return binding.arg;
  const caseless = op?.parameters.find(
    (p) => p.name.toLowerCase() === name.toLowerCase() && (!where || p.in === where),
  );
  if (caseless) return caseless.arg;
  if (op?.body?.mode === "flattened") {
    const hit = Object.entries(op.body.properties).find(([, prop]) => prop === name);
    if (hit) return hit[0];
  }
  if (name in schemaProperties(target.inputSchema)) return name;
  return undefined;
}

export function openApiLinks(tool: ToolModel, index: LinkIndex, diagnostics: Diagnostic[]): ToolLink[] {
  const out: ToolLink[] = [];
  for (const link of tool.openapiLinks) {
    const target = resolveTarget(link, index);
    if (!target) {
      const ref = link.operationId
        ? `operationId "${link.operationId}"`
        : link.operationRef
          ? `operationRef "${link.operationRef}"`
          : "no operation";
      diagnostics.push({
        pointer: link.pointer,
        severity: "warning",
        message: `link "${link.name}" targets ${ref}, which is not an operation in this API`,
        fix: "point operationId/operationRef at an existing operation, or remove the link",
      });
      continue;
    }
    const params: Record<string, unknown> = {};
    for (const [rawKey, value] of Object.entries(link.parameters)) {
      if (rawKey === "requestBody" || rawKey === "$requestBody") continue;
      const arg = targetArgFor(target, rawKey);
      if (arg === undefined) {
        diagnostics.push({
          pointer: link.pointer,
          severity: "warning",
          message: `link "${link.name}" sets parameter "${rawKey}", which operation "${target.name}" does not have`,
          fix: `use one of the target's parameter names (${(target.operation?.parameters ?? []).map((p) => p.name).join(", ") || "none"})`,
        });
        continue;
      }
      params[arg] = value;
    }
    const body = link.parameters["requestBody"] ?? (link as { requestBody?: unknown }).requestBody;
    const binding = target.operation?.body;
    if (body !== undefined && binding) {
      if (binding.mode === "property") params[binding.arg] = body;
      else if (typeof body === "object" && body !== null && !Array.isArray(body)) {
        for (const [prop, value] of Object.entries(body)) {
          const arg = Object.entries(binding.properties).find(([, p]) => p === prop)?.[0];
          if (arg) params[arg] = value;
        }
      }
    }
    const name = label(words(link.name).join(" ") || target.name);
    const out1: ToolLink = { name, tool: target.name, params, source: "openapi" };
    if (link.description) out1.description = link.description;
    out.push(out1);
  }
  return out;
}

// ------------------------------------------------------------ inferred links

export function inferredLinks(tool: ToolModel, index: LinkIndex): ToolLink[] {
  const info = index.info.get(tool);
  if (!info) return [];
  const out: ToolLink[] = [];
  const add = (target: PathInfo, name: string, params: Record<string, unknown>): void => {
    if (target.tool === tool) return;
    out.push({ name, tool: target.tool.name, params, source: "inferred" });
  };
  const here = key(info.shape);
  const last = info.shape.length - 1;

  // (1) Item operations: siblings and sub-collections.
  if (isItem(info) && ["get", "put", "patch", "post"].includes(info.method)) {
    const noun = nounOf(info, last);
    for (const method of ["get", "patch", "put", "post", "delete"]) {
      const sibling = index.byRoute.get(`${method} ${here}`);
      if (!sibling || sibling.tool === tool) continue;
      const { params, missing } = pathParamsFromRequest(info, sibling);
      if (missing.length === 0) add(sibling, `${VERB[method]} this ${noun}`, params);
    }
    for (const child of index.children.get(here) ?? []) {
      if (child.method !== "get" || isItem(child)) continue;
      const { params, missing } = pathParamsFromRequest(info, child);
      if (missing.length > 0) continue;
      const sub = child.shape[child.shape.length - 1]!;
      const isList =
        child.tool.responseSchema !== undefined && findItemsPointer(child.tool.responseSchema) !== undefined;
      const subWords = words(sub).join(" ");
      add(child, isList ? `List ${subWords} of this ${noun}` : `Get ${subWords} of this ${noun}`, params);
    }
  }

  // (2) Collection GET → item getter, id from the first item.
  // (3) POST to a collection → item getter, id from the created resource.
  if (!isItem(info) && (info.method === "get" || info.method === "post")) {
    const response = tool.responseSchema;
    const itemsPointer = info.method === "get" ? (response ? findItemsPointer(response) : "") : undefined;
    const listOk = info.method === "post" || itemsPointer !== undefined;
    if (listOk) {
      for (const child of index.children.get(here) ?? []) {
        if (child.method !== "get" || !isItem(child)) continue;
        const { params, missing } = pathParamsFromRequest(info, child);
        if (missing.length !== 1 || missing[0] !== child.shape.length - 1) continue;
        const wire = child.params.get(child.shape.length - 1)!;
        const noun = nounOf(child, child.shape.length - 2);
        const resource =
          info.method === "get" ? (response ? findItemSchema(response, itemsPointer) : undefined) : response;
        const field = idField(resource, wire, noun);
        if (!field) continue;
        const expr =
          info.method === "get"
            ? `$response.body#${itemsPointer ?? ""}/0/${escapePointerToken(field)}`
            : `$response.body#/${escapePointerToken(field)}`;
        params[pathArg(child.tool, wire)] = expr;
        add(child, info.method === "get" ? `Get one ${noun} from this list` : `Get the created ${noun}`, params);
      }
    }
  }

  // (4) `owner_id` / `ownerId` fields → the owner's getter.
  const response = tool.responseSchema;
  if (response) {
    for (const { field, stem, noun } of ownerFields(response)) {
      const candidates = [...(index.gettersByNoun.get(noun) ?? [])];
      const named = index.byName.get("get" + noun);
      if (named) {
        const namedInfo = index.info.get(named);
        if (namedInfo && !candidates.includes(namedInfo)) candidates.push(namedInfo);
      }
      for (const target of candidates) {
        if (target.tool === tool) continue;
        const { params, missing } = pathParamsFromRequest(info, target);
        if (missing.length !== 1) continue;
        const wire = target.params.get(missing[0]!)!;
        params[pathArg(target.tool, wire)] = `$response.body#/${escapePointerToken(field)}`;
        add(target, `Get the ${humanNoun(stem)}`, params);
        break;
      }
    }
  }
  return out;
}

// ------------------------------------------------------------------ entry

function paramsKey(params: Record<string, unknown>): string {
  return JSON.stringify(
    Object.keys(params)
      .sort()
      .map((k) => [k, params[k]]),
  );
}

/** True when a self-link would just repeat the same call (same value for every argument). */
function reproducesRequest(tool: ToolModel, params: Record<string, unknown>): boolean {
  for (const [arg, value] of Object.entries(params)) {
    const binding = tool.operation?.parameters.find((p) => p.arg === arg);
    const same =
      typeof value === "string" &&
      ((binding !== undefined && value === `$request.${binding.in}.${binding.name}`) ||
        value === `$request.body#/${escapePointerToken(arg)}`);
    if (!same) return false;
  }
  return true;
}

/** All links for one tool: OpenAPI first, then inferred; deduplicated and capped. */
export function buildLinks(tool: ToolModel, index: LinkIndex, diagnostics: Diagnostic[]): ToolLink[] {
  const declared = openApiLinks(tool, index, diagnostics);
  const inferred = inferredLinks(tool, index);
  const declaredTargets = declared.length > 0 ? new Set(declared.map((l) => l.tool)) : undefined;
  const links = declaredTargets ? [...declared, ...inferred.filter((l) => !declaredTargets.has(l.tool))] : inferred;
  // Kept links by target; two repeat each other only with the same target, so parameters are compared
  // (by their JSON) only then.
  const kept = new Map<string, Array<{ params: Record<string, unknown>; key?: string }>>();
  const out: ToolLink[] = [];
  for (const link of links) {
    if (link.tool === tool.name && reproducesRequest(tool, link.params)) continue;
    const sameTarget = kept.get(link.tool);
    if (!sameTarget) kept.set(link.tool, [{ params: link.params }]);
    else {
      const k = paramsKey(link.params);
      if (sameTarget.some((other) => (other.key ??= paramsKey(other.params)) === k)) continue;
      sameTarget.push({ params: link.params, key: k });
    }
    out.push(link);
    if (out.length >= MAX_LINKS) break;
  }
  return out;
}
