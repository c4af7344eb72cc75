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
import { documentKeys, keysAfterEdit, pathItemFields, type DocumentKeys } from "./refs.js";
import { isRecord, ownedPrunedSpec, prunedDocument } from "./pruned-document.js";
import { HTTP_METHODS } from "../model/openapi.js";

export { loadSpecCached } from "./sparse-load.js";

/** One operation modelled again after an edit that left every other operation's key as it was (see `TextEdit`). */
export interface EditedOperation {
  keys: DocumentKeys;
  /** Its position among `keys.operations`. */
  index: number;
  outcome: OperationOutcome;
  /** The API-level prelude as this run made it (the model's), and as the cache keeps it (`saved`). */
  prelude: OpenApiPrelude;
  saved: OpenApiPrelude;
}

/** Takes a regeneration past the model given its one operation modelled again (src/cache/text-edit.ts), or not. */
export type TextEdit<T> = (edited: EditedOperation) => Promise<T | undefined>;

/** The model of a loaded spec, from the cache where it can be (see the module comment); or what `textEdit` took. */
export async function buildModelCached<T = never>(
  given: LoadedSpec,
  options: ModelOptions & DereferenceOptions,
  cache: ModelCache | undefined,
  timed: Timed,
  textEdit?: TextEdit<T>,
): Promise<ApiModel | { textEdit: T }> {
  let loaded = given;
  const regeneration = regenerationOf(loaded);
  if (regeneration && cache) {
    // Any failure here (none is expected) is the full path's to meet and report, as a cold run would.
    const model = await sparseRegeneration(loaded, regeneration, options, cache, timed, textEdit).catch(
      () => undefined,
    );
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
async function sparseRegeneration<T>(
  loaded: LoadedSpec,
  { file, previous, edit, salt, skeleton }: Regeneration,
  options: ModelOptions & DereferenceOptions,
  cache: ModelCache,
  timed: Timed,
  textEdit?: TextEdit<T>,
): Promise<ApiModel | { textEdit: T } | undefined> {
  const document = loaded.document as SpecObject;
  const edited = edit === "unchanged" ? undefined : edit;
  const keys = await timed("cache keys", () => keysAfterEdit(document, previous.record, edited, true));
  if (!keys) return undefined;
  // An unchanged spec keeps the record and copy on disk (see `keysOf`), unless the record lacks the skeleton.
  const record = () => {
    if ((edited || !previous.skeleton) && file.textHash)
      recordKeys(cache, salt, file.location, { bytes: file.bytes, textHash: file.textHash }, keys, {
        skeleton,
        since: { previous, edit },
      });
  };
  const attempt = textEdit && (await takenPast(loaded, keys, cache, options, textEdit));
  if (attempt && "taken" in attempt) {
    record();
    return { textEdit: attempt.taken };
  }
  // An operation modelled for `textEdit` is what the pruned pipeline would model: it is not modelled again.
  const modelled = attempt?.edited;
  const prelude = cache.get("preludes", keys.prelude);
  const hits = keys.operations.map(({ key }, at) =>
    at === modelled?.index ? modelled.outcome : cache.get("operations", key),
  );
  if (hits.every((hit) => hit === undefined)) return undefined;
  const warm = await timed("model (incremental)", () => prunedPipeline(loaded, keys, prelude, hits, options));
  if (!warm) return undefined;
  record();
  keepAll(cache, keys, warm.prelude, warm.outcomes);
  return warm.model;
}

/**
 * What `textEdit` takes of a regeneration in which one operation's key changed and every other one has an entry, or
 * else that operation as modelled again on the pruned document (as `prunedPipeline` models it).
 */
async function takenPast<T>(
  loaded: LoadedSpec,
  keys: DocumentKeys,
  cache: ModelCache,
  options: ModelOptions & DereferenceOptions,
  textEdit: TextEdit<T>,
): Promise<{ taken: T } | { edited: EditedOperation } | undefined> {
  // (Asked of the model cache's record when it has one: the file itself is read only if the run goes on without it.)
  const missed = keys.operations.flatMap(({ key }, index) => (cache.has("operations", key) ? [] : [index]));
  const missing = !isSparseDocument(loaded.document) || !cache.has("preludes", keys.prelude);
  if (missing || missed.length !== 1) return undefined;
  const index = missed[0]!;
  const miss = keys.operations[index]!;
  const openapi = await import("../model/openapi.js");
  try {
    const spec = await normaliseAndDereference(
      ownedPrunedSpec(loaded, prunedDocument(loaded.document as SpecObject, keys, [miss])),
      options,
      async (_stage, run) => run(),
    );
    if (spec.kind !== "openapi") return undefined;
    const prelude = openapi.openApiPrelude(spec.document, spec.location, modelOptions(options));
    const saved = structuredClone(prelude);
    const outcomes: OperationOutcome[] = [];
    const paths = isRecord(spec.document.paths) ? spec.document.paths : {};
    // The pruned paths hold this one operation; a step of any other kind (a path item's diagnostics) is not taken.
    const steps = openapi.walkOperations(paths, (path, method, pathItem, operation, pathOverride) => {
      const outcome = openapi.modelOperation(prelude, path, method, pathItem, operation, pathOverride);
      if (path === miss.path && method === miss.method) outcomes.push(outcome);
      return outcome;
    });
    if (steps.length !== 1 || outcomes.length !== 1) return undefined;
    const edited = { keys, index, outcome: outcomes[0]!, prelude, saved };
    const taken = await textEdit(edited);
    return taken === undefined ? { edited } : { taken };
  } catch {
    return undefined;
  }
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
