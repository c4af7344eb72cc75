/**
 * The guidance stage: ApiModel → GuidedApiModel (./index.ts is the public face, with a default example generator). Pure: the input model is not
 * modified; problems found on the way are appended (as warnings, pointing at
 * the tool or link in the spec) to the returned model's diagnostics.
 *
 * Each concern lives in its own module:
 *   hints.ts      — three levels of schema hints;
 *   examples/     — minimal/full example arguments, validated with createAjv();
 *   links.ts      — OpenAPI and inferred follow-up links, and the list tool;
 *   pagination.ts — how a list operation pages.
 */
import { hasLazySchema, schemaRef } from "../model/lazy-schema.js";
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
// Types only: json-schema-faker and faker (≈ 1 MB of bundle) are evaluated only by a run that searches for an
// example; a regeneration whose every outcome is cached never loads them (./index.ts and src/generate.ts load them).
import type { createExampleGenerator, ExampleGeneratorOptions, ExampleOutcome } from "./examples/index.js";
import { buildHints } from "./hints.js";
import { identifierArgs } from "./identifiers.js";
import { buildLinkIndex, buildLinks } from "./links.js";
import { findListTool } from "./list-tool.js";
import { detectPagination } from "./pagination.js";
import { nameSources, producerCallCompleter } from "./producer-calls.js";
import { buildProducerIndex, findProducers, type ProducerIndex } from "./producers.js";
import { hashString } from "./schema-util.js";

export { buildHints, describeType } from "./hints.js";
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
   * Outcomes this run computed for these tools (by tool) and handed to `exampleCache`, taken as they are: the
   * cache's `lookup` would copy each (452 on Stripe), and nothing changes an outcome once it is in guidance.
   */
  computed?: ReadonlyMap<ToolModel, ExampleOutcome>;
  /**
   * Whole tools' guidance from an earlier run, by the tool's position (see
   * src/cache/guidance-keys.ts): a hit stands for `guideTool`'s result and
   * warnings; `store` receives what was computed, before producer calls are
   * completed across tools.
   */
  guidanceCache?: {
    lookup(toolIndex: number): CachedGuidance | undefined;
    store(toolIndex: number, guidance: ToolGuidance, diagnostics: Diagnostic[]): void;
  };
}

/**
 * A tool's cached guidance and warnings. The guidance may come as a function that reads it: it is then read when
 * something first reads the guided tool's `guidance` (a regeneration reads few tools' guidance; see
 * src/cache/guidance-keys.ts), and its producer calls are completed then.
 */
export interface CachedGuidance {
  guidance: ToolGuidance | (() => ToolGuidance);
  diagnostics: Diagnostic[];
}

/** A guidance cache made at its first use (its keys hash every tool: a large run's worker starts first). */
export function lazyGuidanceCache(make: () => GuidanceCache): GuidanceCache {
  let made: GuidanceCache | undefined;
  const cache = () => (made ??= make());
  return {
    lookup: (toolIndex) => cache().lookup(toolIndex),
    store: (toolIndex, guidance, diagnostics) => cache().store(toolIndex, guidance, diagnostics),
  };
}

type GuidanceCache = NonNullable<GuidanceOptions["guidanceCache"]>;

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

/** Makes an example generator when a tool's example is not in the cache (src/generate.ts knows it never is). */
export type NewExampleGenerator = () => ExampleGenerator;

const NO_GENERATOR: NewExampleGenerator = () => {
  throw new Error("internal: a tool's example outcome was expected in the example cache, and no generator was given");
};

export function addGuidance(
  model: ApiModel,
  options: GuidanceOptions = {},
  newGenerator: NewExampleGenerator = NO_GENERATOR,
): GuidedApiModel {
  return finishGuidance(model, prepareGuidance(model, options), options, newGenerator);
}

/**
 * What guidance needs no example for (hints, links, pagination, list tool,
 * producers), per tool — or the tool's cached guidance. A large run computes
 * it while the worker thread searches for examples (src/parallel).
 */
export interface PreparedGuidance {
  tools: Array<{ cached: CachedGuidance } | { own: OwnGuidance }>;
}

interface OwnGuidance {
  guidance: Omit<ToolGuidance, "examples">;
  /** Warnings about the tool's links. */
  diagnostics: Diagnostic[];
}

export function prepareGuidance(model: ApiModel, options: Pick<GuidanceOptions, "guidanceCache">): PreparedGuidance {
  // The cross-tool indexes are built only when some tool's guidance is not cached.
  let indexes: { index: ReturnType<typeof buildLinkIndex>; producers: ProducerIndex } | undefined;
  const getIndexes = () => {
    if (!indexes) {
      const index = buildLinkIndex(model.tools);
      indexes = { index, producers: buildProducerIndex(model.tools, index) };
    }
    return indexes;
  };
  const tools = model.tools.map((tool, position) => {
    const cached = options.guidanceCache?.lookup(position);
    return cached ? { cached } : { own: ownGuidance(tool, getIndexes()) };
  });
  return { tools };
}

/** The examples (from the example cache, or searched now) joined to each tool's prepared guidance. */
export function finishGuidance(
  model: ApiModel,
  prepared: PreparedGuidance,
  options: GuidanceOptions,
  newGenerator: NewExampleGenerator = NO_GENERATOR,
): GuidedApiModel {
  const seed = options.seed ?? 1;
  const diagnostics: Diagnostic[] = [];
  let generator = options.exampleGenerator;
  const examples = () => (generator ??= newGenerator());
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

  // Producer calls are completed once every tool has its examples: at once, or when a lazy tool's guidance is read.
  const read = new Set<GuidedTool>();
  const tools: GuidedTool[] = model.tools.map((tool, position) => {
    const toolSeedValue = toolSeed(seed, tool.name);
    const entry = prepared.tools[position]!;
    if ("cached" in entry) {
      options.exampleCache?.keep(schemaRef(tool, "inputSchema"), toolSeedValue);
      diagnostics.push(...entry.cached.diagnostics);
      const { guidance } = entry.cached;
      if (typeof guidance === "function") return withGuidanceRead(tool, guidance, (value) => completeCalls(value));
      // A tool whose schemas are still text becomes its guided tool in place (see `guidedInPlace`).
      const guided = guidedInPlace(tool) ? Object.assign(tool, { guidance }) : { ...tool, guidance };
      read.add(guided);
      return guided;
    }
    const validate = options.validators?.get(tool.name);
    const outcome = exampleOutcome(tool, {
      seed: toolSeedValue,
      validate,
      exampleSchema: schemaFor(tool, validate),
      examples,
      exampleCache: options.exampleCache,
      computed: options.computed,
    });
    const found = [...exampleProblems(tool, outcome), ...entry.own.diagnostics];
    const guidance = withExamples(entry.own.guidance, outcome);
    options.guidanceCache?.store(position, guidance, found);
    diagnostics.push(...found);
    const guided = { ...tool, guidance };
    read.add(guided);
    return guided;
  });
  const completeCalls = producerCallCompleter(tools);
  for (const tool of read) completeCalls(tool.guidance);

  return { ...model, tools, diagnostics: [...model.diagnostics, ...diagnostics] };
}

/**
 * The guided tool whose `guidance` is read (then completed, see `producerCallCompleter`) when first asked for. A
 * producer's own guidance read meanwhile sees this one's as read, which is all completion takes from it (its examples).
 */
function withGuidanceRead(
  tool: ToolModel,
  read: () => ToolGuidance,
  complete: (guidance: ToolGuidance) => void,
): GuidedTool {
  let guidance: ToolGuidance | undefined;
  return Object.defineProperty(guidedInPlace(tool) ? tool : { ...tool }, "guidance", {
    enumerable: true,
    configurable: true,
    get(): ToolGuidance {
      if (guidance === undefined) {
        guidance = read();
        complete(guidance);
      }
      return guidance;
    },
  }) as GuidedTool;
}

/**
 * Whether `tool` becomes its guided tool in place rather than a copy: a tool whose schemas are still text is made
 * from a cached draft by the model's assembly (src/model/openapi.ts `toolOf`) for that one model, which nothing
 * reads as unguided once guidance starts (GitHub's regeneration: 1,222 copies saved, ≈ 4 ms). A spread would
 * also parse its schemas.
 */
function guidedInPlace(tool: ToolModel): boolean {
  return hasLazySchema(tool);
}

interface ExampleContext {
  seed: number;
  validate: ValidateFunction | undefined;
  /** The tool's input schema, or an equal one already seen (see `schemaFor`). */
  exampleSchema: JsonSchema;
  examples: () => ExampleGenerator;
  exampleCache: GuidanceOptions["exampleCache"];
  computed: GuidanceOptions["computed"];
}

function exampleOutcome(tool: ToolModel, ctx: ExampleContext): ExampleOutcome {
  const cached = ctx.computed?.get(tool) ?? ctx.exampleCache?.lookup(tool.inputSchema, ctx.seed);
  if (cached) return cached;
  const outcome = ctx.examples().build(ctx.exampleSchema, ctx.seed, ctx.validate);
  ctx.exampleCache?.store(tool.inputSchema, ctx.seed, outcome);
  return outcome;
}

function exampleProblems(tool: ToolModel, outcome: ExampleOutcome): Diagnostic[] {
  return outcome.problems.map((problem) => ({
    pointer: tool.pointer,
    severity: "warning",
    message: `tool "${tool.name}": ${problem}${outcome.examples ? "" : "; the tool is generated without examples"}`,
    fix: "check the input schema for contradictory constraints (min > max, patterns the examples cannot meet, impossible oneOf) or add a valid `example` to the schema",
  }));
}

function ownGuidance(
  tool: ToolModel,
  indexes: { index: ReturnType<typeof buildLinkIndex>; producers: ProducerIndex },
): OwnGuidance {
  const diagnostics: Diagnostic[] = [];
  const hints = buildHints(tool.inputSchema, identifierArgs(tool));
  const links = buildLinks(tool, indexes.index, diagnostics);
  const guidance: Omit<ToolGuidance, "examples"> = { hints, links };
  const pagination = detectPagination(tool);
  if (pagination) guidance.pagination = pagination;
  const listTool = findListTool(tool, indexes.index);
  if (listTool) guidance.listTool = listTool;
  const producers = findProducers(tool, indexes.producers);
  if (producers) {
    guidance.producers = producers;
    nameSources(hints, producers);
  }
  return { guidance, diagnostics };
}

/** The tool's guidance with its examples, members in the order tools.json has always had them. */
function withExamples(own: Omit<ToolGuidance, "examples">, outcome: ExampleOutcome): ToolGuidance {
  const { hints, links, ...rest } = own;
  const guidance: ToolGuidance = { hints, links };
  if (outcome.examples) guidance.examples = outcome.examples;
  return Object.assign(guidance, rest);
}
