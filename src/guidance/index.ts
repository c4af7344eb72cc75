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
import type {
  ApiModel,
  Diagnostic,
  GuidedApiModel,
  GuidedTool,
  JsonSchema,
  ToolGuidance,
  ToolModel,
} from "../model/ir.js";
import type { ExampleCache } from "../cache/index.js";
import { createExampleGenerator, type ExampleGeneratorOptions, type ExampleOutcome } from "./examples/index.js";
import { buildHints } from "./hints.js";
import { identifierArgs } from "./identifiers.js";
import { buildLinkIndex, buildLinks } from "./links.js";
import { findListTool } from "./list-tool.js";
import { detectPagination } from "./pagination.js";
import {
  buildProducerIndex,
  completeProducerCalls,
  findProducers,
  nameSources,
  type ProducerIndex,
} from "./producers.js";
import { hashString } from "./schema-util.js";

export { buildHints, describeType } from "./hints.js";
export { createExampleGenerator } from "./examples/index.js";
export type { ExampleOutcome, ToolExamples, ExampleGeneratorOptions } from "./examples/index.js";
export { buildLinkIndex, buildLinks, MAX_LINKS } from "./links.js";
export { findListTool } from "./list-tool.js";
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
  /**
   * The example generator to use (and whose compiled validators to reuse);
   * generation shares one with `compileInputValidators`. Default: a new one.
   */
  exampleGenerator?: ExampleGenerator;
  /** Example outcomes from an earlier run (see src/cache); hits skip the example search. */
  exampleCache?: Pick<ExampleCache, "lookup" | "store" | "keep">;
  /**
   * Whole tools' guidance from an earlier run, by the tool's position (see
   * src/cache/guidance-keys.ts): a hit stands for `guideTool`'s result and
   * warnings; `store` receives what was computed, before producer calls are
   * completed across tools.
   */
  guidanceCache?: {
    lookup(toolIndex: number): { guidance: ToolGuidance; diagnostics: Diagnostic[] } | undefined;
    store(toolIndex: number, guidance: ToolGuidance, diagnostics: Diagnostic[]): void;
  };
}

/** The example seed of one tool: derived from its name, so independent of tool order. */
export function toolSeed(seed: number, toolName: string): number {
  return (seed + hashString(toolName)) >>> 0;
}

export type ExampleGenerator = ReturnType<typeof createExampleGenerator>;

/** The example generator's verbose compiler as a fail-closed `SchemaCompiler`: throws what Ajv reported. */
export function exampleCompiler(generator: ExampleGenerator): (schema: JsonSchema) => ValidateFunction {
  return (schema) => {
    const compiled = generator.compile(schema);
    if (!compiled.validate) throw new Error(compiled.error ?? "schema does not compile");
    return compiled.validate;
  };
}

export function addGuidance(model: ApiModel, options: GuidanceOptions = {}): GuidedApiModel {
  const seed = options.seed ?? 1;
  const diagnostics: Diagnostic[] = [];
  const examples = options.exampleGenerator ?? createExampleGenerator(options.examples);
  // The cross-tool indexes are built only when some tool's guidance is not cached.
  let indexes: { index: ReturnType<typeof buildLinkIndex>; producers: ProducerIndex } | undefined;
  const getIndexes = () => {
    if (!indexes) {
      const index = buildLinkIndex(model.tools);
      indexes = { index, producers: buildProducerIndex(model.tools, index) };
    }
    return indexes;
  };
  // Tools sharing a validator share their input schema's content: hand the
  // generator one object per content, so its validator cache (by identity) hits.
  const canonical = new Map<ValidateFunction, JsonSchema>();
  const schemaFor = (tool: ToolModel, validate: ValidateFunction | undefined): JsonSchema => {
    if (!validate) return tool.inputSchema;
    const known = canonical.get(validate);
    if (known) return known;
    canonical.set(validate, tool.inputSchema);
    return tool.inputSchema;
  };

  const tools: GuidedTool[] = model.tools.map((tool, position) => {
    const toolSeedValue = toolSeed(seed, tool.name);
    const cached = options.guidanceCache?.lookup(position);
    if (cached) {
      options.exampleCache?.keep(tool.inputSchema, toolSeedValue);
      diagnostics.push(...cached.diagnostics);
      return { ...tool, guidance: cached.guidance };
    }
    const validate = options.validators?.get(tool.name);
    const found: Diagnostic[] = [];
    const guidance = guideTool(tool, {
      seed: toolSeedValue,
      validate,
      exampleSchema: schemaFor(tool, validate),
      examples,
      exampleCache: options.exampleCache,
      ...getIndexes(),
      diagnostics: found,
    });
    options.guidanceCache?.store(position, guidance, found);
    diagnostics.push(...found);
    return { ...tool, guidance };
  });
  completeProducerCalls(tools);

  return { ...model, tools, diagnostics: [...model.diagnostics, ...diagnostics] };
}

interface ToolContext {
  seed: number;
  validate: ValidateFunction | undefined;
  /** The tool's input schema, or an equal one already seen (see `schemaFor`). */
  exampleSchema: JsonSchema;
  examples: ReturnType<typeof createExampleGenerator>;
  exampleCache: GuidanceOptions["exampleCache"];
  index: ReturnType<typeof buildLinkIndex>;
  producers: ProducerIndex;
  diagnostics: Diagnostic[];
}

function exampleOutcome(tool: ToolModel, ctx: ToolContext): ExampleOutcome {
  const cached = ctx.exampleCache?.lookup(tool.inputSchema, ctx.seed);
  if (cached) return cached;
  const outcome = ctx.examples.build(ctx.exampleSchema, ctx.seed, ctx.validate);
  ctx.exampleCache?.store(tool.inputSchema, ctx.seed, outcome);
  return outcome;
}

function guideTool(tool: ToolModel, ctx: ToolContext): ToolGuidance {
  const hints = buildHints(tool.inputSchema, identifierArgs(tool));

  const outcome = exampleOutcome(tool, ctx);
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
