/**
 * The guidance stage of a run (see generate.ts): the fail-closed check of the
 * input schemas, the example search and the guidance, on two threads for a
 * large API (see src/parallel).
 */
import type { ExampleCache } from "./cache/index.js";
import {
  addGuidance,
  exampleCompiler,
  finishGuidance,
  prepareGuidance,
  toolSeed,
  type PreparedGuidance,
  type ExampleOutcome,
  type GuidanceOptions,
} from "./guidance/guide.js";
import type { ApiModel, GuidedApiModel, ToolGuidance, ToolModel } from "./model/ir.js";
import { schemaRef } from "./model/lazy-schema.js";
import { compileInputValidators, uncompilableSchema } from "./model/validators.js";
import { computeOutcomesInParallel, shouldUseWorker, type ExampleWorker } from "./parallel/index.js";
import type { Timed } from "./timed.js";

/**
 * Later stages' work that needs no example, done while the worker computes (`own`: the tools not from the cache,
 * and their guidance as prepared before the examples; `busy`: whether the worker still computes, so the work can
 * stop where it would delay the worker's outcomes).
 */
export type GuideAhead = (
  model: ApiModel,
  own: { tools: ToolModel[]; guidance: Array<Omit<ToolGuidance, "examples">> },
  busy: () => boolean,
) => void;

/**
 * Validate (fail closed) and guidance. A cached tool's schema passed this very
 * generator's check when its entry was made, so only the others are checked;
 * the largest APIs do that and the example search on two threads, whose
 * outcomes go into the cache that guidance then reads.
 */
export async function guideModel(
  model: ApiModel,
  seed: number,
  caches: Pick<GuidanceOptions, "guidanceCache"> & { exampleCache: ExampleCache; worker?: ExampleWorker | undefined },
  timed: Timed,
  ahead?: GuideAhead,
): Promise<GuidedApiModel> {
  const { exampleCache, guidanceCache, worker } = caches;
  const uncached = model.tools.filter(
    (tool) => !exampleCache.has(schemaRef(tool, "inputSchema"), toolSeed(seed, tool.name)),
  );
  if (shouldUseWorker(uncached.length)) {
    const positions = new Map(uncached.map((tool, index) => [index, tool]));
    // This thread prepares the guidance that needs no example while the worker starts on the examples.
    const { results, meanwhile: prepared } = await timed("validate+examples (2 threads)", () =>
      computeOutcomesInParallel(
        uncached.map((tool, index) => ({ index, schema: tool.inputSchema, seed: toolSeed(seed, tool.name) })),
        worker,
        async (busy) => {
          const prepared = await timed("guidance without examples", () => prepareGuidance(model, { guidanceCache }));
          // While the worker computes, what this thread does now it does not do in the tail after the join (where
          // it runs alone), instead of waiting for the worker's outcomes or taking units from it.
          if (busy()) ahead?.(model, ownGuidance(model, prepared), busy);
          return prepared;
        },
      ),
    );
    if (results.compileError)
      throw uncompilableSchema(positions.get(results.compileError.index)!, results.compileError.message);
    const computed = new Map<ToolModel, ExampleOutcome>();
    for (const { index, outcome } of results.outcomes) {
      const tool = positions.get(index)!;
      exampleCache.store(tool.inputSchema, toolSeed(seed, tool.name), outcome, true);
      computed.set(tool, outcome);
    }
    return timed("guidance", () => finishGuidance(model, prepared, { seed, exampleCache, guidanceCache, computed }));
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

/** The tools whose guidance this run prepared (not from the cache), and that guidance. */
function ownGuidance(model: ApiModel, prepared: PreparedGuidance): Parameters<GuideAhead>[1] {
  const own: Parameters<GuideAhead>[1] = { tools: [], guidance: [] };
  for (const [position, entry] of prepared.tools.entries())
    if ("own" in entry) {
      own.tools.push(model.tools[position]!);
      own.guidance.push(entry.own.guidance);
    }
  return own;
}
