/**
 * A regeneration after a text-only edit, past the model (see src/cache/text-edit.ts): set up before the load when the
 * run may be one, taken by the model stage when it is one, and then made of the caches' texts and data/tools.json
 * instead of tool objects (src/emit/file-tools.ts).
 */
import { openExampleCache, type ExampleCache } from "./cache/index.js";
import type { ModelCache } from "./cache/model-cache.js";
import type { EditedOperation, TextEdit as TakePast } from "./cache/incremental.js";
import { planTextEdit, type TextEdit } from "./cache/text-edit.js";
import type { ApiData } from "./model/ir.js";
import { TOOLS_DATA_PATH } from "./emit/index.js";
import { readManifest, type Manifest } from "./write/index.js";
import { readPreviousTools } from "./write/previous.js";

/** The last generation as a regeneration reads it: its manifest and data/tools.json (see src/write/previous.ts). */
export interface LastGeneration {
  manifest: Manifest | undefined;
  tools: Awaited<ReturnType<typeof readPreviousTools>> | undefined;
}

export async function readLastGeneration(outDir: string): Promise<LastGeneration> {
  const manifest = await readManifest(outDir);
  return { manifest, tools: manifest && (await readPreviousTools(outDir, manifest)) };
}

/** What a run that may be a text-only regeneration reads first, and how the model stage hands the run over. */
export interface TextEditSetup {
  /** The last generation, as the rest of the run reads it, whether or not the run is a text-only one. */
  last: Promise<LastGeneration>;
  exampleCache: ExampleCache;
  take: TakePast<TextEdit>;
}

/**
 * The set-up of a run that may be a text-only regeneration: one that writes (not `--check`, not a dry run) into a
 * project whose caches hold an earlier generation, with all of its operations (no filter) and the default templates
 * (a template of the user's could read more of a tool than `EmitTool`); else, or with `GUIDED_MCP_TEXT_EDIT=0`, undefined.
 */
export async function textEditSetup(
  options: { check?: boolean; dryRun?: boolean; filter?: unknown; templatesDir?: string; seed?: number },
  outDir: string,
  modelCache: ModelCache,
  exampleCache: () => ExampleCache,
  api: (api: ApiData) => ApiData,
): Promise<TextEditSetup | undefined> {
  if (options.check || options.dryRun || options.filter || options.templatesDir || modelCache.fresh) return undefined;
  // The full path on demand: what tests compare this one with.
  if (process.env.GUIDED_MCP_TEXT_EDIT === "0") return undefined;
  const manifest = await readManifest(outDir);
  const hash = manifest?.files[TOOLS_DATA_PATH]?.hash;
  if (!manifest || !hash) return undefined;
  // data/tools.json is being read on the thread pool (src/load/read-ahead.ts): taken when the model stage hands the
  // edited operation over, after the load, instead of waiting for it here. (Caught here only so that a run that
  // stops before then reports its own error; whoever awaits `last` gets this one.)
  const last = readPreviousTools(outDir, manifest, { room: true }).then((tools) => ({ manifest, tools }));
  last.catch(() => {});
  const examples = exampleCache();
  const sources = { cache: modelCache, examples, seed: options.seed ?? 1, api };
  const take = async (edited: EditedOperation) => {
    const bytes = (await last).tools.generated;
    return bytes ? planTextEdit({ ...sources, previous: { bytes, hash } }, edited) : undefined;
  };
  return { last, exampleCache: examples, take };
}

/** The progress lines the full path prints from its model stage to its emit, for the same counts (src/generate.ts). */
export function textEditProgress(
  edit: TextEdit,
  modelCache: ModelCache,
  exampleCache: ExampleCache,
  report: (stats: { hits: number; misses: number } | undefined, what: string) => void,
  progress: (line: string) => void,
): void {
  progress(`model: ${edit.spans.length} tools`);
  report(modelCache.stats("operations"), "operations' models");
  report(modelCache.stats("guidance"), "tools' guidance");
  report(exampleCache.stats(), "tools' examples");
}
