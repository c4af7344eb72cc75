/**
 * The whole pipeline: load → normalise → dereference → model → guidance →
 * emit → write. Each stage is a function from one typed value to the next;
 * only load and write touch the outside world.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { GeneratorError } from "./diagnostics.js";
import { TOOLS_DATA_PATH, type EmitModel, type EmittedFile } from "./emit/index.js";
import { emitAfterTextEdit, emitFiles, renderAhead, toolsBytes, type RenderedAhead } from "./emit-stage.js";
import { serialiseGuidanceAhead, serialiseMembersAhead } from "./emit/tool-members.js";
import { textKeysOf } from "./cache/tool-texts.js";
import type { ShipTarget } from "./emit/ship.js";
import { loadTemplateHelpers } from "./emit/templates.js";
import { packageRoot } from "./emit/template-files.js";
import { openExampleCache, type ExampleCache } from "./cache/index.js";
import { withUndamagedCaches } from "./cache/damaged.js";
import { buildModelCached, loadSpecCached, type TextEdit as TakePast } from "./cache/incremental.js";
import { openModelCache, type ModelCache } from "./cache/model-cache.js";
import { startExampleWorker, type ExampleWorker } from "./parallel/index.js";
// The guidance stage without the example search: that (json-schema-faker, faker) is loaded when a tool needs it.
import { lazyGuidanceCache, toolSeed } from "./guidance/guide.js";
import { guideModel, type GuideAhead } from "./guide-stage.js";
import { guidanceCacheFor, primeExampleKeys } from "./cache/guidance-keys.js";
import { operationCount } from "./load/index.js";
import type { ApiData, ApiModel, Diagnostic, GuidedApiModel } from "./model/ir.js";
import type { TextEdit } from "./cache/text-edit.js";
import { readLastGeneration, textEditProgress, textEditSetup } from "./text-edit-stage.js";
import { cachesSaver, reuseOf } from "./run-caches.js";
import { filterTools, type ToolFilter } from "../templates/server/src/runtime/shared/filter.js";
import { DEFAULT_AUTO_THRESHOLD } from "../templates/server/src/runtime/config/settings.js";
import type { ToolMode } from "../templates/server/src/runtime/shared/tool-data.js";
import { formatReport, type ChangeReport } from "./report/index.js";
import { compareToolsText } from "./report/text.js";
import {
  hashContent,
  isUpToDate,
  prepareWrite,
  readManifest,
  unresolvedConflicts,
  writeProject,
  type Manifest,
  type WriteResult,
} from "./write/index.js";
import { readRegenerationAhead } from "./write/previous.js";
import { preloadKnownBases } from "./write/known-bases.js";
import { recordedOptions, recordedSource } from "./recorded-options.js";

export { regenerationOptions } from "./recorded-options.js";
import { hashBytesOnce } from "./write/hash.js";
import { EarlyFiles, freshStagingPath, isFreshTarget } from "./write/early.js";
import { SHIP_TARGETS, SHIP_TEMPLATE_OUTPUTS } from "./emit/ship.js";
import type { Timed } from "./timed.js";

export interface GenerateOptions {
  from: string;
  out?: string;
  name?: string;
  force?: boolean;
  dryRun?: boolean;
  /** Compare with the existing project and write nothing; `stale` says whether it differs. */
  check?: boolean;
  templatesDir?: string;
  allowRemoteRefs?: boolean;
  allowExternalRefs?: boolean;
  seed?: number;
  /** Which operations become tools (the server can narrow this further when it starts). */
  filter?: ToolFilter;
  /** How tools are exposed; the server can override it when it starts. Default `auto`. */
  toolMode?: ToolMode;
  /** Distribution files to write (default all: MCPB manifest, MCP Registry server.json, Dockerfile). */
  ship?: ShipTarget[];
  /** MCP Registry name for server.json and package.json `mcpName`, e.g. `io.github.me/petstore-mcp`. */
  mcpName?: string;
  /** HTTP transport: each MCP request's bearer token is sent upstream as its Authorization header (`api.forwardAuthorization`). */
  forwardAuthorization?: boolean;
  /** Receives progress lines (the CLI prints them to stderr). */
  onProgress?: (message: string) => void;
}

export interface GenerateResult {
  /** The guided model; after a text-only regeneration (src/cache/text-edit.ts), its tools as data/tools.json holds them. */
  model: EmitModel;
  files: EmittedFile[];
  write: WriteResult;
  diagnostics: Diagnostic[];
  timings: Record<string, number>;
  /** Present when the output folder held an earlier generation. */
  report?: ChangeReport;
  reportText?: string;
  /** With `check`: the generated files that differ from the project's. */
  stale?: string[];
  /** Tools whose example outcome came from the project's cache (hits) or was computed (misses). */
  exampleCache: { hits: number; misses: number };
  /** Operations whose model came from the project's cache (hits) or was computed (misses); absent without a cache. */
  modelCache?: { hits: number; misses: number };
  /** Tools whose guidance came from the project's cache (hits) or was computed (misses); absent without a cache. */
  guidanceCache?: { hits: number; misses: number };
  /** A large API's tools whose JSON came from the last generation's data/tools.json (hits) or was serialised (misses). */
  toolTexts?: { hits: number; misses: number };
  /** With `check`: generated files that still hold merge conflict markers (also counted in `stale`). */
  conflicted?: string[];
}

export function generatorVersion(): string {
  const pkg = JSON.parse(readFileSync(resolve(packageRoot(), "package.json"), "utf8")) as { version: string };
  return pkg.version;
}

export function generate(options: GenerateOptions): Promise<GenerateResult> {
  const progress = options.onProgress ?? (() => {});
  return withUndamagedCaches((readCaches) => generateOnce(options, readCaches, progress), progress);
}

async function generateOnce(
  options: GenerateOptions,
  readCaches: boolean,
  progress: (line: string) => void,
): Promise<GenerateResult> {
  const timings: Record<string, number> = {};
  const timed = async <T>(stage: string, run: () => T | Promise<T>): Promise<T> => {
    const start = process.hrtime.bigint(); // (Not `performance`: its first use loads perf_hooks, ≈ 0.7 ms.)
    const value = await run();
    timings[stage] = Math.round(Number(process.hrtime.bigint() - start) / 1e6);
    progress(`${stage}: ${timings[stage]} ms`);
    return value;
  };

  const version = generatorVersion();
  const helpers = await loadTemplateHelpers(options.templatesDir);
  const stageOptions = (outDir: string) => ({ ...options, outDir, generatorVersion: version, helpers });
  let rendered: RenderedAhead | undefined;
  // Emit's work that needs no example (see src/emit/tool-members.ts and src/emit-stage.ts `renderAhead`).
  const ahead: GuideAhead = (model, own, busy) => {
    rendered = renderAhead(model, stageOptions(outDirOf(options, model)));
    // The build's compressed merge bases, for the write.
    preloadKnownBases();
    serialiseMembersAhead(own.tools, model.tools.length, busy);
    serialiseGuidanceAhead(own.guidance, model.tools.length, busy);
  };
  const caches = { readCaches, progress, ahead };
  const run = await guidedModel(options, version, timed, caches);
  const { specHash, outDir, reuse, saveCaches, textKeys, early } = run;
  try {
    const { manifest: previousManifest, tools: lastTools } = await (run.last ?? readLastGeneration(outDir));
    const previousTools = lastTools?.generated;
    const previous = previousTools && { bytes: previousTools, hash: previousManifest?.files[TOOLS_DATA_PATH]?.hash };
    const {
      files,
      toolData,
      toolsFile,
      model: guided,
    } = await timed("emit", () =>
      run.textEdit
        ? emitAfterTextEdit(run.textEdit, stageOptions(outDir), lastTools?.room)
        : { ...emitFiles(run.guided, stageOptions(outDir), textKeys, previous, rendered), model: run.guided },
    );
    reportReuse(progress, toolsFile?.stats, "tools' JSON");
    const reused = toolsFile ? { ...reuse, toolTexts: toolsFile.stats } : reuse;

    // Encoded once, for the change report and the write.
    const prepared = options.check || options.dryRun ? files : prepareWrite(files);
    const report =
      previousTools !== undefined
        ? compareToolsText(previousTools, toolsBytes(prepared), toolData, toolsFile?.spans)
        : undefined;
    const reportText = report ? formatReport(report, `${guided.api.title} ${guided.api.version}`) : undefined;
    const manifestBase: Omit<Manifest, "files"> = {
      generator: { name: "create-guided-mcp", version },
      spec: { source: recordedSource(options.from, outDir), hash: specHash },
      options: recordedOptions(options, outDir),
    };

    const result = {
      model: guided,
      files,
      diagnostics: guided.diagnostics,
      timings,
      ...reused,
      ...(report ? { report, reportText } : {}),
    };
    if (options.check) {
      if (!previousManifest)
        throw new GeneratorError(
          outDir,
          "is not a generated project (no .guided-mcp/manifest.json)",
          "generate it first, or point --out at the project",
        );
      const { differing: changed } = isUpToDate(previousManifest, files);
      const conflicted = await unresolvedConflicts(outDir, previousManifest);
      const differing = [...new Set([...changed, ...conflicted])].sort();
      const write: WriteResult = { outDir, fresh: false, plan: [], manifest: { ...manifestBase, files: {} } };
      return { ...result, write, stale: differing, conflicted };
    }

    // Indexed by the hash of what this run generated (a conflict keeps the previous hash in the manifest).
    const toolsIndex = toolsFile && { ...toolsFile, hash: hashBytesOnce(toolsFile.bytes) };
    const write = await timed("write", () =>
      writeProject(outDir, prepared, manifestBase, {
        force: options.force ?? false,
        dryRun: options.dryRun ?? false,
        read: { manifest: previousManifest, current: lastTools?.current && { [TOOLS_DATA_PATH]: lastTools.current } },
        ...(reportText && report && report.changes.length > 0 ? { changelogEntry: reportText } : {}),
        // The caches are saved into the staging folder of a fresh project (see WriteOptions.alongside).
        alongside: (root) => saveCaches(root, toolsIndex),
        ...(early ? { early } : {}),
      }),
    );
    return { ...result, write };
  } catch (error) {
    // The example worker may still be writing the project's files ahead: it is waited for, and they go.
    await early?.discard();
    throw error;
  }
}

/**
 * Load → model → validate → guidance, with the project's caches (see src/cache); also what the run reuses and how to
 * save the caches. A text-only regeneration stops at the model (`textEdit`, see src/cache/text-edit.ts).
 */
async function guidedModel(
  options: GenerateOptions,
  version: string,
  timed: Timed,
  { readCaches, progress, ahead }: { readCaches: boolean; progress: (line: string) => void; ahead: GuideAhead },
) {
  // Without --out the folder is named after the API, known only after the model: no model cache then.
  const cacheDir = options.out ? resolve(options.out) : undefined;
  // A regeneration's spec and tools file, read on the thread pool meanwhile (see src/load/read-ahead.ts).
  readRegenerationAhead(options.from, readCaches ? cacheDir : undefined);
  const modelCache = cacheDir ? openModelCache(cacheDir, version, readCaches) : undefined;
  // Example outcomes of an earlier run of this generator on this project (see src/cache).
  let examples: ExampleCache | undefined;
  const exampleCacheOf = (outDir: string) =>
    (examples ??= openExampleCache(outDir, version, { readExisting: readCaches }));
  const setup =
    modelCache && cacheDir
      ? await textEditSetup(
          options,
          cacheDir,
          modelCache,
          () => exampleCacheOf(cacheDir),
          (api) => chosenApi(api, options),
        )
      : undefined;
  const { built, specHash, worker } = await readModel(options, modelCache, timed, setup?.take);
  const report = (stats: { hits: number; misses: number } | undefined, what: string) =>
    reportReuse(progress, stats, what);
  if ("textEdit" in built) {
    const { textEdit } = built;
    const exampleCache = exampleCacheOf(cacheDir!);
    textEditProgress(textEdit, modelCache!, exampleCache, report, progress);
    const { textKeys } = textEdit;
    const saveCaches = cachesSaver(exampleCache, modelCache, textKeys);
    const reuse = reuseOf(exampleCache, modelCache);
    return { textEdit, specHash, outDir: cacheDir!, reuse, saveCaches, textKeys, last: setup!.last, early: undefined };
  }
  let model: ApiModel;
  try {
    model = applyGenerationChoices(built, options);
  } catch (error) {
    worker?.release();
    throw error;
  }
  progress(
    `model: ${model.tools.length} tools${model.tools.length < built.tools.length ? ` (${built.tools.length - model.tools.length} filtered out)` : ""}`,
  );
  report(modelCache?.stats("operations"), "operations' models");
  const seed = options.seed ?? 1;
  const outDir = outDirOf(options, model);
  const exampleCache = exampleCacheOf(outDir);
  primeExampleKeys(exampleCache, model.tools);
  // Keyed when first asked, so a large run's worker gets its units before this thread hashes every tool.
  let keyed: ReturnType<typeof guidanceCacheFor> | undefined;
  const keyedCache = modelCache && (() => (keyed ??= guidanceCacheFor(modelCache, model.tools, seed)));
  const guidanceCache = keyedCache && lazyGuidanceCache(keyedCache);
  // Then the model cache's new entries, encoded for its save (in the serial tail too), while the worker computes.
  const allAhead: GuideAhead = (model, own, busy) => {
    ahead(model, own, busy);
    modelCache?.serialiseAhead(busy);
  };
  const early = writtenAhead(options, outDir, worker);
  let guided: GuidedApiModel;
  try {
    guided = await guideModel(model, seed, { exampleCache, guidanceCache, worker }, timed, allAhead);
  } catch (error) {
    await early?.discard();
    throw error;
  }
  report(modelCache?.stats("guidance"), "tools' guidance");
  report(exampleCache.stats(), "tools' examples");
  // What identifies each tool's JSON in data/tools.json (see src/cache/tool-texts.ts).
  const textKeys = keyedCache && modelCache && textKeysOf(modelCache.code, keyedCache(), model.tools, seed);
  const saveCaches = cachesSaver(exampleCache, modelCache, textKeys);
  const reuse = reuseOf(exampleCache, modelCache);
  // The last generation as the set-up read it, if there was one (read once; see src/text-edit-stage.ts).
  const last = setup?.last;
  return {
    guided,
    specHash,
    outDir,
    reuse,
    saveCaches,
    early,
    ...(textKeys ? { textKeys } : {}),
    ...(last ? { last } : {}),
  };
}

/**
 * A fresh project's files that do not depend on the spec, written by the example worker once it has sent its
 * outcomes (see src/write/early.ts); only for a run that writes a fresh project and has the worker.
 */
function writtenAhead(options: GenerateOptions, outDir: string, worker?: ExampleWorker): EarlyFiles | undefined {
  if (!worker || options.dryRun || options.check || !isFreshTarget(outDir)) return undefined;
  const staging = freshStagingPath(outDir);
  const ship = options.ship ?? SHIP_TARGETS;
  const skip = Object.keys(SHIP_TEMPLATE_OUTPUTS).filter((path) => !ship.includes(SHIP_TEMPLATE_OUTPUTS[path]!));
  const templates = options.templatesDir ? { templatesDir: options.templatesDir } : {};
  return new EarlyFiles(outDir, staging, worker.afterOutcomes({ staging, skip, ...templates }));
}

/** The project's folder: `--out`, else named after the API. */
function outDirOf(options: GenerateOptions, model: ApiModel): string {
  return resolve(options.out ?? `./${model.api.name}`);
}

/** A progress line for a cache that saved work this run. */
function reportReuse(
  progress: (line: string) => void,
  stats: { hits: number; misses: number } | undefined,
  what: string,
) {
  if (stats && stats.hits > 0) progress(`cache: ${stats.hits} of ${stats.hits + stats.misses} ${what} reused`);
}

/**
 * Load → normalise → dereference → model, with the per-operation cache of the
 * project (see src/cache/incremental.ts). Only the model and the spec's hash
 * leave this function, so the parsed and dereferenced documents can be freed
 * before guidance runs (Graph's dereferenced spec is hundreds of MB).
 */
async function readModel(
  options: GenerateOptions,
  modelCache: ModelCache | undefined,
  timed: Timed,
  textEdit?: TakePast<TextEdit>,
): Promise<{ built: ApiModel | { textEdit: TextEdit }; specHash: string; worker?: ExampleWorker }> {
  const loaded = await timed("load", () => loadSpecCached(options.from, options, modelCache));
  const specHash = loaded.textHash ?? hashContent(loaded.text);
  // A cold run of a large API will want the example worker: started now, it works ahead while this thread models.
  const seedOf = (tool: string) => toolSeed(options.seed ?? 1, tool);
  const worker =
    modelCache?.fresh === false ? undefined : startExampleWorker(operationCount(loaded.document), seedOf, !!modelCache);
  const build = () =>
    buildModelCached(
      loaded,
      {
        ...(options.name ? { name: options.name } : {}),
        allowRemoteRefs: options.allowRemoteRefs ?? false,
        allowExternalFiles: options.allowExternalRefs ?? false,
      },
      modelCache,
      worker?.restoring(timed) ?? timed,
      textEdit,
    );
  try {
    const built = await build();
    return { built, specHash, ...(worker ? { worker } : {}) };
  } catch (error) {
    worker?.release();
    throw error;
  }
}

/** The user's generation-time choices: which operations, and how they are exposed. */
function applyGenerationChoices(model: ApiModel, options: GenerateOptions): ApiModel {
  const tools = options.filter ? filterTools(model.tools, options.filter) : model.tools;
  if (tools.length === 0 && model.tools.length > 0) {
    throw new GeneratorError(
      "filter",
      `the filters leave none of the ${model.tools.length} operations`,
      "loosen --include-tags/--include-ops/--methods/--read-only",
    );
  }
  return { ...model, tools, api: chosenApi(model.api, options) };
}

/** The API as the user's generation-time choices expose it. */
function chosenApi(api: ApiData, options: GenerateOptions): ApiData {
  const forward = options.forwardAuthorization ? { forwardAuthorization: true } : {};
  return { ...api, toolMode: options.toolMode ?? "auto", autoThreshold: DEFAULT_AUTO_THRESHOLD, ...forward };
}
