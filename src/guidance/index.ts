/**
 * The guidance stage: ApiModel → GuidedApiModel. Pure: the input model is not
 * modified; problems found on the way are appended (as warnings, pointing at
 * the tool or link in the spec) to the returned model's diagnostics.
 *
 * Each concern lives in its own module:
 *   hints.ts      — three levels of schema hints;
 *   examples/     — minimal/full example arguments, validated with createAjv();
 *   links.ts      — OpenAPI and inferred follow-up links, and the list tool;
 *   pagination.ts — how a list operation pages.
 */
import type { ValidateFunction } from "ajv/dist/2020.js";
import type { ApiModel, Diagnostic, GuidedApiModel, GuidedTool, ToolGuidance, ToolModel } from "../model/ir.js";
import { createExampleGenerator, type ExampleGeneratorOptions } from "./examples/index.js";
import { buildHints } from "./hints.js";
import { identifierArgs } from "./identifiers.js";
import { buildLinkIndex, buildLinks, findListTool } from "./links.js";
import { detectPagination } from "./pagination.js";
import { buildProducerIndex, findProducers, nameSources, type ProducerIndex } from "./producers.js";
import { hashString } from "./schema-util.js";

export { buildHints, describeType } from "./hints.js";
export { createExampleGenerator } from "./examples/index.js";
export type { ExampleOutcome, ToolExamples, ExampleGeneratorOptions } from "./examples/index.js";
export { buildLinkIndex, buildLinks, findListTool, MAX_LINKS } from "./links.js";
export { detectPagination, findItemsPointer } from "./pagination.js";

export interface GuidanceOptions {
  /** Seed for example generation; the same seed gives the same examples. Default 1. */
  seed?: number;
  /** Size limits for generated examples. */
  examples?: ExampleGeneratorOptions;
  /**
   * Input validators already compiled with createAjv(), by tool name (what
   * `compileInputValidators` returns). Optional; saves compiling every schema twice.
   */
  validators?: ReadonlyMap<string, ValidateFunction>;
}

export function addGuidance(model: ApiModel, options: GuidanceOptions = {}): GuidedApiModel {
  const seed = options.seed ?? 1;
  const diagnostics: Diagnostic[] = [];
  const examples = createExampleGenerator(options.examples);
  const index = buildLinkIndex(model.tools);
  const producers = buildProducerIndex(model.tools, index);

  const tools: GuidedTool[] = model.tools.map((tool) => {
    const guidance = guideTool(tool, {
      // Per-tool seed derived from the tool's name: independent of tool order.
      seed: (seed + hashString(tool.name)) >>> 0,
      validate: options.validators?.get(tool.name),
      examples,
      index,
      producers,
      diagnostics,
    });
    return { ...tool, guidance };
  });

  return { ...model, tools, diagnostics: [...model.diagnostics, ...diagnostics] };
}

interface ToolContext {
  seed: number;
  validate: ValidateFunction | undefined;
  examples: ReturnType<typeof createExampleGenerator>;
  index: ReturnType<typeof buildLinkIndex>;
  producers: ProducerIndex;
  diagnostics: Diagnostic[];
}

function guideTool(tool: ToolModel, ctx: ToolContext): ToolGuidance {
  const hints = buildHints(tool.inputSchema, identifierArgs(tool));

  const outcome = ctx.examples.build(tool.inputSchema, ctx.seed, ctx.validate);
  for (const problem of outcome.problems) {
    ctx.diagnostics.push({
      pointer: tool.pointer,
      severity: "warning",
      message: `tool "${tool.name}": ${problem}${outcome.examples ? "" : "; the tool is generated without examples"}`,
      fix: "check the input schema for contradictory constraints (min > max, patterns the examples cannot meet, impossible oneOf) or add a valid `example` to the schema",
    });
  }

  const links = buildLinks(tool, ctx.index, ctx.diagnostics);
  const guidance: ToolGuidance = { hints, links };
  if (outcome.examples) guidance.examples = outcome.examples;
  const pagination = detectPagination(tool);
  if (pagination) guidance.pagination = pagination;
  const listTool = findListTool(tool, ctx.index);
  if (listTool) guidance.listTool = listTool;
  const producers = findProducers(tool, ctx.producers);
  if (producers) {
    guidance.producers = producers;
    nameSources(hints, producers);
  }
  return guidance;
}
