/**
 * The guidance stage's public face: ./guide.ts with a default example generator, made when a tool's example is
 * not in the cache. Importing this module evaluates the example search (json-schema-faker, faker); the
 * generator's own pipeline (src/generate.ts) imports ./guide.ts and loads the search only when it needs it.
 */
import { createExampleGenerator } from "./examples/index.js";
import * as guide from "./guide.js";
import type { GuidanceOptions, PreparedGuidance } from "./guide.js";
import type { ApiModel, GuidedApiModel } from "../model/ir.js";

export {
  buildHints,
  buildLinkIndex,
  buildLinks,
  describeType,
  detectPagination,
  exampleCompiler,
  findItemsPointer,
  findListTool,
  lazyGuidanceCache,
  MAX_LINKS,
  prepareGuidance,
  toolSeed,
} from "./guide.js";
export type {
  ExampleGenerator,
  ExampleGeneratorOptions,
  ExampleOutcome,
  GuidanceOptions,
  PreparedGuidance,
  ToolExamples,
} from "./guide.js";
export { createExampleGenerator };

export function addGuidance(model: ApiModel, options: GuidanceOptions = {}): GuidedApiModel {
  return guide.addGuidance(model, options, () => createExampleGenerator(options.examples));
}

/** The examples (from the example cache, or searched now) joined to each tool's prepared guidance. */
export function finishGuidance(model: ApiModel, prepared: PreparedGuidance, options: GuidanceOptions): GuidedApiModel {
  return guide.finishGuidance(model, prepared, options, () => createExampleGenerator(options.examples));
}
