/**
 * The validate and guidance stages of a run (see generate.ts): the fail-closed
 * check of each input schema, the example search, and the guidance — on two
 * threads for a large API (src/parallel), with the examples' outcomes going
 * into the example cache that guidance then reads.
 */
import type { ExampleCache } from "./cache/index.js";
import { computeOutcomesInParallel, shouldUseWorker, type ExampleWorker } from "./parallel/index.js";
// The guidance stage without the example search: that (json-schema-faker, faker) is loaded when a tool needs it.
import {
  addGuidance,
  exampleCompiler,
  finishGuidance,
  prepareGuidance,
  toolSeed,
  type GuidanceOptions,
} from "./guidance/guide.js";
import type { ApiModel, GuidedApiModel } from "./model/ir.js";
import { compileInputValidators, uncompilableSchema } from "./model/validators.js";

export type Timed = <T>(stage: string, run: () => T | Promise<T>) => Promise<T>;

export interface GuideCaches extends Pick<GuidanceOptions, "guidanceCache"> {
  exampleCache: ExampleCache;
  worker?: ExampleWorker | undefined;
  /**
   * Work of the run's tail that needs no example, done while the worker computes the examples (see `guideModel`):
   * before this thread takes example units, so it leaves the worker more of them instead of running after it.
   */
  beforeExamples?: () => void;
}

/**
 * Validate (fail closed) and guidance. A cached tool's schema passed this very
 * generator's check when its entry was made, so only the others are checked;
 * the largest APIs do that and the example search on two threads, whose
 * outcomes go into the cache that guidance then reads.
 */
export async function guideModel(
  model: ApiModel,
  seed: number,
  caches: GuideCaches,
  timed: Timed,
): Promise<GuidedApiModel> {
  const { exampleCache, guidanceCache, worker } = caches;
  const uncached = model.tools.filter((tool) => !exampleCache.has(tool.inputSchema, toolSeed(seed, tool.name)));
  if (shouldUseWorker(uncached.length)) {
    const positions = new Map(uncached.map((tool, index) => [index, tool]));
    // This thread prepares the guidance that needs no example while the worker starts on the examples, then
    // what the run's tail can make without them (`beforeExamples`); both threads then share the units left.
    const { results, meanwhile: prepared } = await timed("validate+examples (2 threads)", () =>
      computeOutcomesInParallel(
        uncached.map((tool, index) => ({ index, schema: tool.inputSchema, seed: toolSeed(seed, tool.name) })),
        worker,
        async () => {
          const prepared = await timed("guidance without examples", () => prepareGuidance(model, { guidanceCache }));
          const { beforeExamples } = caches;
          if (beforeExamples && model.tools.length <= MAX_TOOLS_AHEAD)
            await timed("ahead of the examples", beforeExamples);
          return prepared;
        },
      ),
    );
    if (results.compileError)
      throw uncompilableSchema(positions.get(results.compileError.index)!, results.compileError.message);
    for (const { index, outcome } of results.outcomes) {
      const tool = positions.get(index)!;
      exampleCache.store(tool.inputSchema, toolSeed(seed, tool.name), outcome);
    }
    return timed("guidance", () => finishGuidance(model, prepared, { seed, exampleCache, guidanceCache }));
  }
  worker?.release();
  // Every example is cached (a warm regeneration): nothing to check.
  if (uncached.length === 0) return timed("guidance", () => addGuidance(model, { seed, exampleCache, guidanceCache }));
  // The fail-closed check (see createCheckCompiler) judges each input schema with the example generator's
  // compiler (the interpreter, else Ajv), whose repair then reuses that validator.
  const { createExampleGenerator } = await import("./guidance/examples/index.js");
  const exampleGenerator = createExampleGenerator();
  const validators = await timed("validate", () =>
    compileInputValidators({ ...model, tools: uncached }, exampleCompiler(exampleGenerator)),
  );
  return timed("guidance", () =>
    addGuidance(model, { seed, validators, exampleGenerator, exampleCache, guidanceCache }),
  );
}

/**
 * Above this many tools nothing is made ahead of the examples: Microsoft Graph's (11,422) model cache entries
 * (≈ 100 MB of JSON) would be held from here to the write, where each text is garbage as soon as it is written.
 */
const MAX_TOOLS_AHEAD = 5_000;
