/**
 * Keys for cached guidance, one per tool. A tool's guidance (hints, examples,
 * links, pagination, list tool, identifier producers) depends on the tool
 * itself and, through the link and producer indexes, on what it reads of every
 * other tool of the run, but never on any tool's human texts (`description`,
 * `title`): no guidance module reads them (test/unit/model-cache.test.ts checks
 * that guidance is the same whatever the texts). So each tool has a shape of
 * two hashes (`shapeOf`):
 *   - its own: its model without its texts;
 *   - what other tools read of it: the same, but of its input schema only what
 *     src/guidance/cross-tool.ts names (property names and types, required
 *     names, identifiers), not its descriptions.
 * A tool's guidance key hashes the code fingerprint, the run's example seed,
 * every tool's second hash in order, and then this tool's shape. A summary
 * edit thus reuses every tool's guidance, and so does a parameter's description
 * edited elsewhere; a changed name, path or response schema recomputes all of
 * them.
 *
 * The tools' JSON in data/tools.json also holds producer calls completed with
 * other tools' examples (src/guidance/producer-calls.ts), which the second hash
 * leaves out: its reuse (src/cache/tool-texts.ts) is bound to the context of
 * every tool's whole shape (`toolsContext`).
 *
 * A tool's model is its operation's cached outcome (its draft) with the name
 * made unique across tools, and nothing else (src/model/openapi.ts
 * `assembleOpenApiModel`; the generation choices only filter tools). So its
 * shape — of the model without texts — is a function of the operation's
 * cache entry and the name: it is kept in the model cache under those two, and
 * a regeneration takes 1,222 of GitHub's 1,223 shapes from there instead of
 * stringifying and hashing ≈ 5 MB of models.
 */
import { createHash } from "node:crypto";
import type { Diagnostic, JsonSchema, ToolGuidance, ToolModel } from "../model/ir.js";
import { schemaText } from "../model/schema-text.js";
import { LAZY_SCHEMAS, schemaRef } from "../model/lazy-schema.js";
import type { ExampleCache } from "./index.js";
import { DamagedCacheError } from "./damaged.js";
import type { CachedGuidance } from "../guidance/guide.js";
import { MODEL_CACHE_FILE, type ModelCache } from "./model-cache.js";
import { hashContent } from "../write/hash.js";
import { emittedGuidanceJson } from "../emit/tools-file.js";
import { knownSchemaJson, MAX_TOOLS_WITH_TEXTS, noteSchemaJson } from "./schema-texts.js";
import { crossToolInputJson } from "../guidance/cross-tool.js";
import { GUIDANCE_HEAD as HEAD, holdsNoWarnings, NO_WARNINGS } from "./plain-entries.js";

/** The tools' guidance keys, in tool order, and the context of their whole shapes (see the module comment). */
export interface GuidanceKeys {
  keys: string[];
  context: string;
}

export function guidanceKeys(tools: ToolModel[], seed: number, code: string, cache?: ModelCache): GuidanceKeys {
  const keepTexts = tools.length <= MAX_TOOLS_WITH_TEXTS;
  const shapes = tools.map((tool) => (cache ? shapeCached(cache, tool, keepTexts) : shapeOf(tool, false)));
  const seen = createHash("sha256").update(`${code}\0${seed}\0`);
  for (const shape of shapes) seen.update(shape.slice(OWN_LENGTH));
  const readByOthers = seen.digest("hex");
  return {
    keys: shapes.map((shape) => hashContent(readByOthers + shape).slice(0, 40)),
    context: toolsContext(shapes, seed, code),
  };
}

/** The hash of every tool's whole shape, in order: what a tool's JSON in data/tools.json depends on besides its own. */
export function toolsContext(shapes: readonly string[], seed: number, code: string): string {
  const all = createHash("sha256").update(`${code}\0${seed}\0`);
  for (const shape of shapes) all.update(shape);
  return all.digest("hex");
}

/** A shape's first hash (the tool's own) is this long; the second (what other tools read of it) follows. */
const OWN_LENGTH = 64;

/**
 * A tool's shape (see the module comment): the hash of its model without its texts, and the hash of what other tools
 * read of it. The rest of the model, `JSON.stringify({ ...rest, annotations })` without the input schema, is hashed
 * once for both, member by member so that the schemas' texts can be kept for the model cache's operation entries
 * (`keepTexts`, see ./schema-texts.ts); then the input schema's text, or what other tools read of it.
 */
function shapeOf(tool: ToolModel, keepTexts: boolean): string {
  const { title: _annotationTitle, ...flags } = tool.annotations;
  const hash = createHash("sha256");
  // The text not hashed yet: small members go in together (each update is a call into the native hash).
  let text = "{";
  let members = 0;
  let input = "";
  const add = (key: string, value: unknown): void => {
    const json = memberJson(key, value, keepTexts);
    // JSON.stringify leaves out a member whose value has no JSON (undefined, a function).
    if (json === undefined) return;
    if (key === "inputSchema") {
      input = json;
      return;
    }
    text += `${members++ === 0 ? "" : ","}${JSON.stringify(key)}:`;
    if (json.length < LARGE_MEMBER) text += json;
    else {
      hash.update(text).update(json);
      text = "";
    }
  };
  // The members in the order of `{ ...rest, annotations }`: the texts left out, the annotations last.
  for (const key of Object.keys(tool))
    if (key !== "description" && key !== "title" && key !== "annotations") add(key, tool[key as keyof ToolModel]);
  add("annotations", flags);
  const rest = hash.update(members === 0 ? "{}" : `${text}}`).digest("hex");
  const own = createHash("sha256").update(rest).update(input).digest("hex");
  // A model without an input schema (only ever a test's) has nothing of it for others to read.
  const read = input === "" ? "" : crossToolInputJson(tool);
  return own + createHash("sha256").update(rest).update(read).digest("hex");
}

/** Members at least this long are hashed on their own rather than copied into the text before them. */
const LARGE_MEMBER = 4096;

const isSchemaKey = (key: string): boolean => (LAZY_SCHEMAS as readonly string[]).includes(key);

/**
 * `JSON.stringify(value)` of a tool's member. A schema's text is made once per schema object: an input schema's by
 * now already (the example units and the fail-closed check group tools by it, and the example cache hashes it), a
 * response schema's at the first of the tools that share it (Stripe: 1.2 of its 1.9 MB of response schemas repeat).
 * With `keepTexts`, schemas' texts are kept for the model cache's operation entries (see ./schema-texts.ts).
 */
function memberJson(key: string, value: unknown, keepTexts: boolean): string | undefined {
  if (typeof value !== "object" || value === null || !isSchemaKey(key))
    return JSON.stringify(value) as string | undefined;
  if (key === "inputSchema") {
    const json = schemaText(value as JsonSchema);
    if (keepTexts) noteSchemaJson(value, json);
    return json;
  }
  if (!keepTexts) return JSON.stringify(value);
  let json = knownSchemaJson(value);
  if (json === undefined) noteSchemaJson(value, (json = JSON.stringify(value)));
  return json;
}

/** Which operation cache entry each tool of this run was made from (see `recordToolOrigins`). */
const origins = new WeakMap<ToolModel, string>();

/** The key of the model cache entry `tool` was made from (its draft), if recorded (see `recordToolOrigins`). */
export function toolOrigin(tool: ToolModel): string | undefined {
  return origins.get(tool);
}

/** Keys the tools' input schemas in the example cache from their origins where it can (see `ExampleCache.prime`). */
export function primeExampleKeys(cache: ExampleCache, tools: readonly ToolModel[]): void {
  for (const tool of tools) {
    const origin = origins.get(tool);
    if (origin !== undefined) cache.prime(schemaRef(tool, "inputSchema"), origin);
  }
}

/**
 * Records that these tools were assembled, in order, from the drafts of these outcomes, whose cache keys are
 * `keys` (one per outcome; an outcome without a draft makes no tool).
 */
export function recordToolOrigins(
  tools: readonly ToolModel[],
  outcomes: ReadonlyArray<{ draft?: unknown }>,
  keys: ReadonlyArray<{ key: string }>,
): void {
  const made = outcomes.flatMap((outcome, index) => (outcome.draft ? [keys[index]!.key] : []));
  // As assembled (one tool per draft), or not at all.
  if (made.length !== tools.length || outcomes.length !== keys.length) return;
  tools.forEach((tool, index) => origins.set(tool, made[index]!));
}

/** A tool's shape, from the cache when its operation's entry and name were hashed before (see the module comment). */
function shapeCached(cache: ModelCache, tool: ToolModel, keepTexts: boolean): string {
  const origin = origins.get(tool);
  if (origin === undefined) return shapeOf(tool, keepTexts);
  const key = shapeKey(origin, tool.name);
  const shape = recordedShape(cache, key) ?? shapeOf(tool, keepTexts);
  cache.keep("shapes", key, shape);
  return shape;
}

/** The model cache key of the shape of the tool named `name` made from the operation entry `origin`. */
export function shapeKey(origin: string, name: string): string {
  // The name as JSON: a cache key never holds a tab or newline.
  return `${origin}:${JSON.stringify(name)}`;
}

/** The shape the cache holds under `key`, if any. */
export function recordedShape(cache: ModelCache, key: string): string | undefined {
  // A shape is two SHA-256 in hex, stored as a JSON string: taken from the text, nothing to parse (Graph: 11,422).
  return shapeIn(cache.text("shapes", key));
}

/** The shape a shape entry's text holds, if it holds one. */
export function shapeIn(text: string | undefined): string | undefined {
  return text !== undefined && SHAPE_TEXT.test(text) ? text.slice(1, -1) : undefined;
}

const SHAPE_TEXT = /^"[0-9a-f]{128}"$/;

/** The guidance stage's view of the cache (see `GuidanceOptions.guidanceCache`). */
export function guidanceCacheFor(cache: ModelCache, tools: ToolModel[], seed: number) {
  const { keys, context } = guidanceKeys(tools, seed, cache.code, cache);
  return {
    keys,
    context,
    lookup(toolIndex: number): CachedGuidance | undefined {
      const key = keys[toolIndex]!;
      const text = cache.text("guidance", key);
      const hit = text === undefined ? undefined : (withoutWarnings(text) ?? cache.get("guidance", key));
      if (hit) cache.keepAsRead("guidance", key);
      return hit;
    },
    store(toolIndex: number, guidance: ToolGuidance, diagnostics: Diagnostic[]) {
      // Producer calls are completed in place across tools afterwards (producerCallCompleter): the entry keeps them
      // as they are now, as JSON text (a copy of the objects took ≈ 3× as long).
      const producers = guidance.producers ? JSON.stringify(guidance.producers) : undefined;
      // The value is never serialised as it is: the text (always given) has the producer calls of now.
      cache.keep("guidance", keys[toolIndex]!, { guidance, diagnostics }, () =>
        entryJson(guidance, producers, diagnostics),
      );
    },
  };
}

/**
 * The cache entry's JSON, `JSON.stringify({ guidance, diagnostics })` with the guidance's producer calls as they were
 * before completion (`producers`, their JSON then). The guidance's text is data/tools.json's when emit serialised
 * this very object (Stripe, GitHub: the compact layout, see src/emit/tools-file.ts), so it is made once.
 */
function entryJson(guidance: ToolGuidance, producers: string | undefined, diagnostics: Diagnostic[]): string {
  const text = emittedGuidanceJson(guidance) ?? JSON.stringify(guidance);
  return `${HEAD}${withProducers(text, guidance, producers)},"diagnostics":${JSON.stringify(diagnostics)}}`;
}

/**
 * The guidance's text with its `producers` member's JSON as `before`. Completion only adds parameters to calls that
 * exist, so a guidance without producers then has none now. The member is found by its text: the real one is always
 * there, so when the text occurs once it is the member (Stripe: 119 of 452 tools' calls were completed).
 */
function withProducers(text: string, guidance: ToolGuidance, before: string | undefined): string {
  const now = before === undefined ? undefined : JSON.stringify(guidance.producers);
  if (now === before) return text;
  const member = `"producers":${now}`;
  const at = text.indexOf(member);
  if (at < 0 || text.includes(member, at + 1))
    return JSON.stringify({ ...guidance, producers: JSON.parse(before!) as ToolGuidance["producers"] });
  return `${text.slice(0, at)}"producers":${before}${text.slice(at + member.length)}`;
}

/**
 * A cached entry without warnings (every one of GitHub's), its guidance parsed only if something reads it: a
 * regeneration after a summary edit reads 65 tools' guidance of 1,223 (the tools whose JSON is not reused, the
 * test suite's sample, their producers), and parsing all of them was ≈ 12 ms, plus their collection. The text is
 * the writer's whole line (see `ModelCache.text`), so the guidance is the text between the two; any other layout is
 * parsed at once by the caller. Only an edited or damaged cache file can fail to parse later (see ./damaged.ts).
 */
function withoutWarnings(text: string): CachedGuidance | undefined {
  if (!holdsNoWarnings(text)) return undefined;
  return {
    diagnostics: [],
    guidance: () => {
      try {
        return JSON.parse(text.slice(HEAD.length, -NO_WARNINGS.length)) as ToolGuidance;
      } catch {
        throw new DamagedCacheError(MODEL_CACHE_FILE, "a tool's cached guidance");
      }
    },
  };
}
