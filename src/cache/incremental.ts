/**
 * Load → model with the per-operation cache. A cold run (no entry for this
 * document) takes the full pipeline and stores every operation's outcome. A
 * warm run takes the cached outcomes of the operations whose key is unchanged,
 * and normalises and dereferences a pruned copy of the document holding only
 * the other operations and the components they reach: after a one-operation
 * edit that is a few objects, not the whole spec.
 *
 * Anything the pruned run cannot reproduce exactly (an operation adding a
 * security scheme, which changes what later operations see; an error) falls
 * back to the full pipeline on a fresh parse, which behaves as a cold run.
 */
import type { DereferenceOptions } from "../dereference/index.js";
import { isParsedJsonTree, parseSpecFile, parseSpecText, type LoadedSpec } from "../load/index.js";
import type { ApiModel } from "../model/ir.js";
import type { ModelOptions, OpenApiPrelude, OperationOutcome } from "../model/openapi.js";
import type { SpecObject } from "../normalise/index.js";
import type { Timed } from "../timed.js";
import type { ModelCache } from "./model-cache.js";
import { recordToolOrigins } from "./guidance-keys.js";
import { editSince, type KeysSince, readPreviousKeys, saveKeys } from "./key-table.js";
import { holdsObject, isSparseDocument, type Skeleton } from "./sparse-document.js";
import { regenerationOf, withText, type Regeneration } from "./sparse-load.js";
import { documentKeys, keysAfterEdit, pathItemFields, WEBHOOK_KEYS, type DocumentKeys } from "./refs.js";
import { HTTP_METHODS } from "../model/openapi.js";

export { loadSpecCached } from "./sparse-load.js";

/** The model of a loaded spec, from the cache where it can be (see the module comment). */
export async function buildModelCached(
  given: LoadedSpec,
  options: ModelOptions & DereferenceOptions,
  cache: ModelCache | undefined,
  timed: Timed,
): Promise<ApiModel> {
  let loaded = given;
  const regeneration = regenerationOf(loaded);
  if (regeneration && cache) {
    // Any failure here (none is expected) is the full path's to meet and report, as a cold run would.
    const model = await sparseRegeneration(loaded, regeneration, options, cache, timed).catch(() => undefined);
    if (model) return model;
    // As if the spec had been parsed in full to begin with.
    loaded = parseSpecFile(regeneration.file);
  }
  const document = loaded.document as SpecObject;
  const openapi = isOpenApi(document);
  // Only the keys read the file's bytes: let them go with the keys (Graph's are tens of MB).
  const bytes = loaded.bytes;
  delete loaded.bytes;
  const keys =
    cache && openapi
      ? await timed("cache keys", () =>
          keysOf(loaded, bytes, `${cache.code}\0${locationSalt(loaded)}\0${options.name ?? ""}`, cache),
        )
      : undefined;
  if (!cache || !keys) return fullPipeline(loaded, options, timed, undefined);
  const prelude = cache.get("preludes", keys.prelude);
  const hits = keys.operations.map(({ key }) => cache.get("operations", key));
  const cold = hits.every((hit) => hit === undefined);
  if (!cold) {
    const warm = await timed("model (incremental)", () => prunedPipeline(loaded, keys, prelude, hits, options));
    if (warm) {
      keepAll(cache, keys, warm.prelude, warm.outcomes);
      return warm.model;
    }
  }
  return fullPipeline(
    { ...loaded, document: cold ? document : parseSpecText(loaded.text, loaded.source) },
    options,
    timed,
    {
      cache,
      keys,
    },
  );
}

/**
 * The document's keys: from the last run's record when its spec differs from this one inside one operation at
 * most (src/cache/key-table.ts), else computed in full. Either way recorded for the next run, when the spec is a
 * local file.
 */
function keysOf(
  loaded: LoadedSpec,
  bytes: Buffer | undefined,
  salt: string,
  cache: ModelCache,
): DocumentKeys | undefined {
  const document = loaded.document as SpecObject;
  // Without a single entry to reuse, this run takes the full pipeline (see `documentKeys`).
  const checkAll = !cache.fresh;
  // Only JSON text is compared (src/cache/key-table.ts): a YAML spec is keyed in full, and nothing is recorded.
  const json = bytes !== undefined && isParsedJsonTree(document);
  const previous = checkAll && json && readPreviousKeys(cache.projectDir, salt, loaded.textHash);
  const edit = previous && bytes ? editSince(previous, bytes) : undefined;
  const keys =
    (previous && edit && keysAfterEdit(document, previous.record, edit === "unchanged" ? undefined : edit, checkAll)) ||
    documentKeys(document, salt, { checkAll });
  const { textHash } = loaded;
  // The same spec, keyed as completely as before: the record and the copy on disk stay as they are.
  const asRecorded = edit === "unchanged" && previous && (previous.record.complete || !checkAll);
  if (keys && json && textHash && !asRecorded) {
    const since = previous && edit !== undefined ? { previous, edit } : undefined;
    recordKeys(cache, salt, loaded.location, { bytes, textHash }, keys, { since });
  }
  return keys;
}

/** Saves the keys and a copy of the spec with the caches, for the next run (a local file's only). */
function recordKeys(
  cache: ModelCache,
  salt: string,
  location: string,
  /** The spec's bytes as this run read them, and their hash. */
  spec: { bytes: Buffer; textHash: string },
  keys: DocumentKeys,
  /** `since`: the last run's record and where this spec differs from it (see `saveKeys`). */
  { skeleton, since }: { skeleton?: Skeleton; since?: KeysSince | undefined },
): void {
  if (!location.startsWith("file:")) return;
  // Taken now: the keys hold the document, which must not live until the caches are saved.
  const record = keys.record();
  cache.alsoSave((root) => saveKeys(root, salt, spec.textHash, record, spec.bytes, skeleton, since));
}

/**
 * A regeneration on a sparse document (see `loadSpecCached`): the keys from the last run's record, then the pruned
 * pipeline, reading only the edited operation, the path items' own fields, the top level and the components they
 * reach. Undefined where the caller must parse the spec in full and go on as before (it then finds what stopped
 * this: a key it cannot compute, no entry to reuse, an error for the full pipeline to report).
 */
async function sparseRegeneration(
  loaded: LoadedSpec,
  { file, previous, edit, salt, skeleton }: Regeneration,
  options: ModelOptions & DereferenceOptions,
  cache: ModelCache,
  timed: Timed,
): Promise<ApiModel | undefined> {
  const document = loaded.document as SpecObject;
  const edited = edit === "unchanged" ? undefined : edit;
  const keys = await timed("cache keys", () => keysAfterEdit(document, previous.record, edited, true));
  if (!keys) return undefined;
  const prelude = cache.get("preludes", keys.prelude);
  const hits = keys.operations.map(({ key }) => cache.get("operations", key));
  if (hits.every((hit) => hit === undefined)) return undefined;
  const warm = await timed("model (incremental)", () => prunedPipeline(loaded, keys, prelude, hits, options));
  if (!warm) return undefined;
  // An unchanged spec keeps the record and copy on disk (see `keysOf`), unless the record lacks the skeleton.
  if ((edited || !previous.skeleton) && file.textHash)
    recordKeys(cache, salt, file.location, { bytes: file.bytes, textHash: file.textHash }, keys, {
      skeleton,
      since: { previous, edit },
    });
  keepAll(cache, keys, warm.prelude, warm.outcomes);
  return warm.model;
}

/**
 * Where the spec was read from matters to the model only for a spec fetched
 * over http(s) (relative server URLs resolve against it); a local file's path
 * does not, so a copy of the spec elsewhere still hits.
 */
function locationSalt(loaded: LoadedSpec): string {
  return /^https?:/i.test(loaded.location) ? loaded.location : "file";
}

function isOpenApi(document: unknown): boolean {
  return typeof document === "object" && document !== null && ("openapi" in document || "swagger" in document);
}

/** Normalise → dereference → model over the whole document, recording outcomes when asked. */
async function fullPipeline(
  loaded: LoadedSpec,
  options: ModelOptions & DereferenceOptions,
  timed: Timed,
  record: { cache: ModelCache; keys: DocumentKeys } | undefined,
): Promise<ApiModel> {
  const dereferenced = await normaliseAndDereference(loaded, options, timed);
  const { buildModel } = await import("../model/index.js");
  const openapi = await import("../model/openapi.js");
  if (!record || dereferenced.kind !== "openapi")
    return timed("model", () => buildModel(dereferenced, modelOptions(options)));
  return timed("model", () => {
    const prelude = openapi.openApiPrelude(dereferenced.document, dereferenced.location, modelOptions(options));
    const saved = structuredClone(prelude);
    const outcomes: OperationOutcome[] = [];
    const paths = isRecord(dereferenced.document.paths) ? dereferenced.document.paths : {};
    let aligned = true;
    const steps = openapi.walkOperations(paths, (path, method, pathItem, operation, pathOverride) => {
      const outcome = openapi.modelOperation(prelude, path, method, pathItem, operation, pathOverride);
      const key = record.keys.operations[outcomes.length];
      if (key?.path !== path || key.method !== method || outcome.addedSchemes > 0) aligned = false;
      outcomes.push(outcome);
      return outcome;
    });
    const model = openapi.assembleOpenApiModel(prelude, steps);
    // Stored only when every outcome stands on its own (see the module comment) and lines up with the keys.
    if (aligned && outcomes.length === record.keys.operations.length) {
      keepAll(record.cache, record.keys, saved, outcomes);
      recordToolOrigins(model.tools, outcomes, record.keys.operations);
    }
    return model;
  });
}

async function normaliseAndDereference(loaded: LoadedSpec, options: DereferenceOptions, timed: Timed) {
  const { normaliseSpec } = await import("../normalise/index.js");
  const { dereferenceSpec } = await import("../dereference/index.js");
  const normalised = await timed("normalise", () => normaliseSpec(loaded));
  return timed("dereference", () =>
    dereferenceSpec(normalised, {
      allowRemoteRefs: options.allowRemoteRefs ?? false,
      allowExternalFiles: options.allowExternalFiles ?? false,
    }),
  );
}

function modelOptions(options: ModelOptions): ModelOptions {
  return options.name ? { name: options.name } : {};
}

function keepAll(cache: ModelCache, keys: DocumentKeys, prelude: OpenApiPrelude, outcomes: OperationOutcome[]): void {
  cache.keep("preludes", keys.prelude, prelude);
  keys.operations.forEach(({ key }, index) => cache.keep("operations", key, outcomes[index]!));
}

/**
 * The warm run: cached outcomes for hits, the pruned document's model for the
 * rest, assembled in document order. Undefined when it cannot stand in for a
 * full run.
 */
async function prunedPipeline(
  loaded: LoadedSpec,
  keys: DocumentKeys,
  cachedPrelude: OpenApiPrelude | undefined,
  hits: Array<OperationOutcome | undefined>,
  options: ModelOptions & DereferenceOptions,
): Promise<{ model: ApiModel; prelude: OpenApiPrelude; outcomes: OperationOutcome[] } | undefined> {
  const document = loaded.document as SpecObject;
  const openapi = await import("../model/openapi.js");
  const rawPaths = isRecord(document.paths) ? document.paths : {};
  const misses = keys.operations.filter((_, index) => hits[index] === undefined);
  let prelude = cachedPrelude;
  let pruned: SpecObject | undefined;
  if (misses.length > 0 || !prelude) {
    try {
      const input = prunedDocument(document, keys, misses);
      const spec = await normaliseAndDereference(
        isSparseDocument(document)
          ? ownedPrunedSpec(loaded, input)
          : withText({ source: loaded.source, location: loaded.location, document: input }, () => loaded.text),
        options,
        async (_stage, run) => run(),
      );
      if (spec.kind !== "openapi") return undefined;
      pruned = spec.document;
      prelude = openapi.openApiPrelude(pruned, spec.location, modelOptions(options));
    } catch {
      // The full pipeline reports the problem exactly as a cold run does.
      return undefined;
    }
  }
  const saved = structuredClone(prelude!);
  const prunedPaths = pruned && isRecord(pruned.paths) ? pruned.paths : {};
  const outcomes: OperationOutcome[] = [];
  let index = 0;
  let faithful = true;
  const walked = isSparseDocument(document) ? operationShapes(rawPaths) : rawPaths;
  const steps = openapi.walkOperations(walked, (path, method, _rawItem, _rawOperation, pathOverride) => {
    const cached = hits[index++];
    if (cached) return record(cached);
    const pathItem = prunedPaths[path];
    const operation = isRecord(pathItem) ? pathItem[method] : undefined;
    if (!isRecord(pathItem) || !isRecord(operation)) {
      faithful = false;
      return record({ diagnostics: [], credentialNotes: [], addedSchemes: 0 });
    }
    return record(openapi.modelOperation(prelude!, path, method, pathItem, operation, pathOverride));
  });
  function record(outcome: OperationOutcome): OperationOutcome {
    outcomes.push(outcome);
    if (outcome.addedSchemes > 0) faithful = false;
    return outcome;
  }
  if (!faithful || outcomes.length !== keys.operations.length) return undefined;
  const model = openapi.assembleOpenApiModel(prelude!, steps);
  recordToolOrigins(model.tools, outcomes, keys.operations);
  return { model, prelude: saved, outcomes };
}

/**
 * A sparse document's pruned copy as a spec of its own: a fresh parse of its JSON, which the normalise stage may
 * upgrade in place (src/normalise/upgrade-in-place.ts) instead of the library's copy of every object (GitHub's
 * pruned document after a summary edit: ≈ 4 ms → ≈ 1 ms with the copy). The pruned copy itself shares its values
 * with the sparse document, which the walk below reads again, so it must not change; a fresh parse is a tree
 * nothing else holds, and its text is what the in-place walk's fallback parses again. (Only the full pipeline's
 * fallback needs the original document untouched too, and it parses the spec afresh after a sparse run.)
 */
function ownedPrunedSpec(loaded: LoadedSpec, pruned: SpecObject): LoadedSpec {
  const text = JSON.stringify(pruned);
  const document = parseSpecText(text, loaded.source);
  return withText({ source: loaded.source, location: loaded.location, document }, () => text);
}

/**
 * The paths as `walkOperations` reads them, without reading the operations (a sparse document parses what is
 * read): each path item's own fields, and an empty object for each operation object. The walk reads a cached
 * operation's object nowhere; a missed one is read from the pruned document.
 */
function operationShapes(paths: SpecObject): SpecObject {
  const shapes: SpecObject = {};
  for (const path of Object.keys(paths)) {
    const item = paths[path];
    if (!isRecord(item)) {
      shapes[path] = item;
      continue;
    }
    const shape = pathItemFields(item);
    for (const method of HTTP_METHODS) if (holdsObject(item, method)) shape[method] = {};
    shapes[path] = shape;
  }
  return shapes;
}

/**
 * A shallow copy of the parsed document with only the missed operations under
 * `paths` (every path key stays, so document-level checks see the same paths)
 * and, of the component containers, only the units those operations and the
 * top level reach.
 */
function prunedDocument(document: SpecObject, keys: DocumentKeys, misses: DocumentKeys["operations"]): SpecObject {
  const pruned: SpecObject = {};
  // Values are read only where kept (a sparse document parses what is read; webhooks can be large).
  for (const key of Object.keys(document)) {
    if (key === "paths" || WEBHOOK_KEYS.includes(key)) continue;
    if (key === "definitions" || key === "parameters" || key === "responses") {
      pruned[key] = {};
      continue;
    }
    const value = document[key];
    if (key === "components" && isRecord(value))
      pruned[key] = value.securitySchemes === undefined ? {} : { securitySchemes: value.securitySchemes };
    else pruned[key] = value;
  }
  const units = new Set(keys.preludeUnits);
  for (const unit of keys.reach(misses.flatMap((miss) => miss.units))) units.add(unit);
  for (const unit of units) copyUnit(document, pruned, unit);
  if (isRecord(document.paths)) {
    const paths: SpecObject = {};
    for (const [path, item] of Object.entries(document.paths))
      paths[path] = isRecord(item) ? pathItemFields(item) : item;
    for (const { path, method } of misses)
      (paths[path] as SpecObject)[method] = (document.paths[path] as SpecObject)[method];
    pruned.paths = paths;
  } else if (document.paths !== undefined) pruned.paths = document.paths;
  return pruned;
}

/** Copies the value at a unit pointer (`#/components/schemas/Pet`) into the pruned document, creating its parents. */
function copyUnit(from: SpecObject, to: SpecObject, unit: string): void {
  const tokens = unit
    .slice(2)
    .split("/")
    .map((token) => token.replace(/~1/g, "/").replace(/~0/g, "~"));
  let source: unknown = from;
  let target = to;
  for (const [position, token] of tokens.entries()) {
    const parent = source;
    source = isRecord(parent) ? parent[token] : undefined;
    if (source === undefined) return;
    if (position === tokens.length - 1) {
      target[token] = source;
      return;
    }
    // Never write into the original document's objects: the pruned copy gets its own parents.
    const existing = target[token];
    if (!isRecord(existing)) target[token] = {};
    else if (existing === source) target[token] = { ...existing };
    target = target[token] as SpecObject;
  }
}

function isRecord(value: unknown): value is SpecObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
