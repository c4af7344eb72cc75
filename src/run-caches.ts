/**
 * What a run reused of the project's caches (for its result), and how it saves them (see src/generate.ts).
 */
import type { ExampleCache } from "./cache/index.js";
import type { ModelCache } from "./cache/model-cache.js";
import { settleAll } from "./cache/replace-file.js";
import { saveToolsIndex, type TextKeys } from "./cache/tool-texts.js";
import type { ToolSpan } from "./emit/tools-file.js";
import type { ToolsOverview } from "./emit/index.js";

/** What a run reused of its caches, for its result. */
export function reuseOf(exampleCache: ExampleCache, modelCache: ModelCache | undefined) {
  const modelStats = modelCache?.stats("operations");
  const guidanceStats = modelCache?.stats("guidance");
  return {
    exampleCache: exampleCache.stats(),
    ...(modelStats ? { modelCache: modelStats } : {}),
    ...(guidanceStats ? { guidanceCache: guidanceStats } : {}),
  };
}

/** Saves the caches under `root`: the project, or the staging folder of a fresh one. */
export function cachesSaver(
  exampleCache: ExampleCache,
  modelCache: ModelCache | undefined,
  textKeys: TextKeys | undefined,
) {
  return async (root: string, toolsFile?: { hash: string; spans: ToolSpan[]; overview: ToolsOverview }) => {
    // Separate files: their writes overlap. The tools index names the other two as their saves leave them.
    const examples = exampleCache.save(root);
    const model = modelCache?.save(root);
    const saves = modelCache && { model: modelCache.saveId, examples: exampleCache.saved() };
    const { hash, spans, overview } = toolsFile ?? {};
    const index = textKeys && saves && hash && saveToolsIndex(root, textKeys, saves, hash, spans!, overview!);
    await settleAll([index, examples, model]);
  };
}
