/**
 * Keys for the per-operation model cache, computed on the document as parsed:
 * before normalising and dereferencing, which are what a warm run saves.
 *
 * An operation's tool depends on the operation object, its path item's own
 * fields (path-level parameters, `x-mcp`…), the document's top-level parts
 * (security, security schemes, the API's title, root `x-mcp`…; not webhooks,
 * which never become tools, nor what only the API-level prelude reads, such
 * as `info.version` or `servers`: the prelude has its own key) and every
 * component its `$ref`s reach, transitively. Components are hashed one "unit"
 * at a time (`#/components/schemas/Pet`, `#/definitions/Pet`), each once, and
 * an operation's key is the hash of its own JSON plus the units it reaches.
 *
 * A document this cannot key faithfully (a `$ref` to another file or into
 * `paths`, a `$ref` that does not resolve, a path item that is itself a
 * `$ref`, an `x-mcp` holding a `$ref`) gets no keys: the run takes the full
 * pipeline, which also reports those problems as a cold run would.
 */
import { isPlainObject } from "../../templates/server/src/runtime/shared/json.js";
import { HTTP_METHODS, type HttpMethod } from "../model/openapi.js";
import { hash, refsInJson, UnitTable, UNIT_DEPTH, Unkeyable, type UnitRecord } from "./unit-table.js";

export type { UnitRecord };

type JsonObject = Record<string, unknown>;

export interface OperationKey {
  path: string;
  method: HttpMethod;
  key: string;
  /** Unit pointers (`#/components/schemas/Pet`) the operation refers to directly (see `DocumentKeys.reach`). */
  units: string[];
}

export interface DocumentKeys {
  /** The key of everything outside `paths` that every tool depends on. */
  prelude: string;
  /** Units reached from the top level, webhooks aside (no stage reads them; they only need to resolve, which the keys check). */
  preludeUnits: string[];
  operations: OperationKey[];
  /** The units reached from these, transitively, sorted. */
  reach(units: string[]): string[];
  /** What a later run needs to key this document again after one operation's edit (see src/cache/key-table.ts). */
  record(): KeyRecord;
}

/**
 * The keys of a document and what went into them: the hash of the operations' view of the top level, and each
 * unit's own hash, deep hash and successors. Valid for a document whose every part but one operation is the same.
 */
export interface KeyRecord {
  prelude: string;
  preludeUnits: string[];
  context: string;
  /** Whether every `$ref` of the document was checked (see `documentKeys`' `checkAll`). */
  complete: boolean;
  operations: OperationKey[];
  units: Record<string, UnitRecord>;
}

/**
 * The cache keys of a parsed OpenAPI document's operations, or undefined when it cannot be keyed (see above).
 * `checkAll`: also check that the `$ref`s no operation reaches resolve (webhooks, unused components). Only a
 * run that may reuse entries needs that (a pruned run would not notice a broken one where a full run fails);
 * a run that takes the full pipeline anyway fails on them itself, and the keys are the same either way.
 */
export function documentKeys(document: JsonObject, salt: string, { checkAll = true } = {}): DocumentKeys | undefined {
  try {
    return computeKeys(document, salt, checkAll);
  } catch (error) {
    if (error instanceof Unkeyable) return undefined;
    throw error;
  }
}

function computeKeys(document: JsonObject, salt: string, checkAll: boolean): DocumentKeys {
  const units = new UnitTable(document);
  const top = topLevelPart(document);
  if (containsRefUnder(top["x-mcp"])) throw new Unkeyable();
  // Webhooks never become tools and no stage reads them: their `$ref`s must resolve (a cold run dereferences
  // them), but their content is no part of any key, so editing a component only webhooks use recomputes nothing.
  if (checkAll) for (const key of WEBHOOK_KEYS) units.unitsOf(collectRefs(top[key]));
  const core = withoutWebhooks(top);
  const coreJson = JSON.stringify(core);
  const coreUnits = units.unitsOf(refsInJson(coreJson));
  const prelude = hash(`${salt}\0${coreJson}\0${units.describe(coreUnits)}`);
  const preludeUnits = units.closure(coreUnits);
  // What operations see of the top level: not the API's version, descriptions or servers (only the prelude reads
  // them), so a release that bumps `info.version` still reuses every operation.
  const operationContext = withoutPreludeOnly(core);
  const contextJson = JSON.stringify(operationContext);
  const context = hash(`${salt}\0${contextJson}\0${units.describe(units.unitsOf(refsInJson(contextJson)))}`);
  const paths = document.paths;
  if (paths !== undefined && !isPlainObject(paths)) throw new Unkeyable();
  const operations: OperationKey[] = [];
  for (const [path, pathItem] of Object.entries(paths ?? {})) {
    if (!isPlainObject(pathItem)) continue;
    if ("$ref" in pathItem || containsRefUnder(pathItem["x-mcp"])) throw new Unkeyable();
    const shared = sharedPart(pathItem);
    for (const method of HTTP_METHODS) {
      const operation = pathItem[method];
      if (isPlainObject(operation)) operations.push(operationKey(units, context, path, method, shared, operation));
    }
  }
  // A cold run dereferences every component, so a broken `$ref` anywhere fails it: check the unreached ones too.
  if (checkAll) units.checkUnreached();
  return keysOf(units, { prelude, preludeUnits, context, complete: checkAll, operations });
}

/**
 * The keys of a document that differs from the one `previous` was recorded for in the `edited` operation only, or
 * not at all (the caller has made sure of that; see src/cache/key-table.ts): every other key, and every unit's
 * hashes, are the recorded ones, and the edited operation's key is computed again. `checkAll` as in `documentKeys` (a record made
 * without it had its unreached `$ref`s unchecked: they are checked now). Undefined when it cannot be keyed.
 */
export function keysAfterEdit(
  document: JsonObject,
  previous: KeyRecord,
  edited: { path: string; method: HttpMethod } | undefined,
  checkAll: boolean,
): DocumentKeys | undefined {
  try {
    const units = new UnitTable(document, previous.units);
    const operations = [...previous.operations];
    if (edited) {
      const pathItem = isPlainObject(document.paths) ? document.paths[edited.path] : undefined;
      const operation = isPlainObject(pathItem) ? pathItem[edited.method] : undefined;
      const index = operations.findIndex(({ path, method }) => path === edited.path && method === edited.method);
      if (!isPlainObject(pathItem) || !isPlainObject(operation) || index < 0) return undefined;
      const shared = sharedPart(pathItem);
      operations[index] = operationKey(units, previous.context, edited.path, edited.method, shared, operation);
    }
    if (checkAll && !previous.complete) {
      const top = topLevelPart(document);
      for (const key of WEBHOOK_KEYS) units.unitsOf(collectRefs(top[key]));
      units.checkUnreached();
    }
    return keysOf(units, { ...previous, complete: previous.complete || checkAll, operations });
  } catch (error) {
    if (error instanceof Unkeyable) return undefined;
    throw error;
  }
}

/** A path item's own fields as keys read them: their JSON. */
function sharedPart(pathItem: JsonObject): { json: string } {
  return { json: JSON.stringify(pathItemFields(pathItem)) };
}

function operationKey(
  units: UnitTable,
  context: string,
  path: string,
  method: HttpMethod,
  shared: { json: string },
  operation: JsonObject,
): OperationKey {
  if (containsRefUnder(operation["x-mcp"])) throw new Unkeyable();
  const operationJson = JSON.stringify(operation);
  const direct = units.unitsIn(shared.json, operationJson);
  const text = `${context}\0${path}\0${method}\0${shared.json}\0${operationJson}\0${units.describe(direct)}`;
  return { path, method, key: hash(text), units: direct };
}

function keysOf(units: UnitTable, record: Omit<KeyRecord, "units">): DocumentKeys {
  return {
    prelude: record.prelude,
    preludeUnits: record.preludeUnits,
    operations: record.operations,
    reach: (from) => units.closure(from),
    record: () => ({ ...record, units: units.record() }),
  };
}

/** The document without `paths` and without the component containers' entries (security schemes stay: every tool reads them). */
function topLevelPart(document: JsonObject): JsonObject {
  const top: JsonObject = {};
  for (const [key, value] of Object.entries(document)) {
    if (key === "paths") continue;
    if (key === "components" && isPlainObject(value))
      top[key] = value.securitySchemes === undefined ? {} : { securitySchemes: value.securitySchemes };
    else if (!(key in UNIT_DEPTH)) top[key] = value;
  }
  return top;
}

/**
 * Top-level parts only the API-level prelude reads (see src/model/prelude.ts):
 * `info` but its title (the environment variables' prefix comes from it), and
 * OpenAPI 3's `servers`, `tags`, `externalDocs`. Swagger 2.0's `host`,
 * `basePath` and `schemes` stay: the upgrade reads them.
 */
function withoutPreludeOnly(top: JsonObject): JsonObject {
  const { info, servers: _servers, tags: _tags, externalDocs: _externalDocs, ...rest } = top;
  return isPlainObject(info) ? { ...rest, info: { title: info.title } } : { ...rest, info };
}

/** Top-level webhooks (3.1 `webhooks`, the `x-webhooks` of 3.0 specs such as GitHub's) never become tools. */
export const WEBHOOK_KEYS = ["webhooks", "x-webhooks"];

export function withoutWebhooks(top: JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(top).filter(([key]) => !WEBHOOK_KEYS.includes(key)));
}

/** A path item's own fields (everything but its operations, which are not read: see src/cache/sparse-document.ts). */
export function pathItemFields(pathItem: JsonObject): JsonObject {
  const fields: JsonObject = {};
  for (const key of Object.keys(pathItem))
    if (!(HTTP_METHODS as readonly string[]).includes(key)) fields[key] = pathItem[key];
  return fields;
}

function containsRefUnder(value: unknown): boolean {
  return value !== undefined && collectRefs(value).size > 0;
}

/** Every `$ref` string under a value. */
function collectRefs(value: unknown): Set<string> {
  return refsInJson(JSON.stringify(value) ?? "");
}
