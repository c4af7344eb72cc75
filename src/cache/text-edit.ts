/**
 * A regeneration after a text-only edit: one operation's summary or description changed, and nothing else. Its
 * guidance keys leave texts out (./guidance-keys.ts), so every tool's guidance is the cached one, and every tool's
 * JSON in data/tools.json but the edited one's is the last generation's, byte for byte (./tool-texts.ts). Such a run
 * needs no tool object: the edited tool's JSON is its previous JSON with the new texts, and the rest of the project
 * is made from data/tools.json itself (src/emit/file-tools.ts). GitHub: 1,222 cached outcomes not parsed, no model
 * assembled, no guidance attached.
 *
 * `planTextEdit` decides, from the caches' texts alone, that the run is such a one, and keeps exactly the cache
 * entries the full path would keep. Anything else takes the full path: another kind of edit (the edited operation's
 * outcome differs from its cached one in more than its texts), any warning (an operation's or a tool's: the full path
 * reports them), an entry, shape, guidance or example missing, a tools file or index that is not the last run's.
 */
import type { ApiData, JsonSchema, ToolData } from "../model/ir.js";
import type { OperationOutcome } from "../model/openapi.js";
import { QUOTE } from "../json-bytes.js";
import { hashBytesOnce } from "../write/hash.js";
import type { ToolSpan } from "../emit/tools-file.js";
import { MAX_LISTED_TOOLS, toolSummary, type ToolsOverview } from "../emit/index.js";
import { toolSeed } from "../guidance/guide.js";
import type { EditedOperation } from "./incremental.js";
import type { ExampleCache } from "./index.js";
import { MODEL_CACHE_FILE, type ModelCache } from "./model-cache.js";
import { outcomeText, parseOutcome } from "./lazy-outcome.js";
import { holdsNoWarnings, recordedShape, shapeKey, toolsContext } from "./guidance-keys.js";
import { readToolsIndex } from "./tool-texts.js";

/** What a text-only regeneration reads besides the model cache. */
export interface TextEditSources {
  cache: ModelCache;
  examples: ExampleCache;
  seed: number;
  /** The last generation's data/tools.json and the hash the manifest recorded for it. */
  previous: { bytes: Buffer; hash: string };
  /** The API as this run's generation choices make it from the prelude's (see src/generate.ts). */
  api: (api: ApiData) => ApiData;
}

/** A text-only regeneration, its cache entries kept: what emit needs to write the project (src/emit/file-tools.ts). */
export interface TextEdit {
  api: ApiData;
  diagnostics: EditedOperation["prelude"]["diagnostics"];
  /** The last generation's data/tools.json, and where each tool is in it. */
  previous: Buffer;
  spans: ToolSpan[];
  /** The edited tool's position, and its JSON in this run (its previous JSON with its new texts). */
  tool: number;
  json: string;
  /** Every tool's text key for the tools index (./tool-texts.ts), and their context (the last run's). */
  textKeys: string[];
  context: string;
  /** What the templates read of the tools (src/emit/index.ts), the edited tool's summary this run's. */
  overview: ToolsOverview;
}

/**
 * The text-only regeneration of `edited`, if it is one (see the module comment), with its cache entries kept as the
 * full path keeps them; else undefined, and nothing kept.
 */
export function planTextEdit(sources: TextEditSources, edited: EditedOperation): TextEdit | undefined {
  const { cache, examples, seed, previous } = sources;
  const { keys, index, outcome } = edited;
  if (!isPlainOutcome(outcome)) return undefined;
  const made = toolsMade(cache, keys.operations, index);
  if (!made) return undefined;
  const { origins, tool } = made;
  const layout = toolsFileLayout(sources, origins.length, sources.api(edited.prelude.api));
  if (!layout) return undefined;
  const { spans, textKeys } = layout;
  const overview = editedOverview(layout.overview, spans.length, tool, outcome.draft!);
  if (!overview) return undefined;
  const at = textKeys[tool]!.indexOf(":");
  const oldOrigin = textKeys[tool]!.slice(at + 1);
  // Every other tool was made from the entry this run reuses (so it is the same tool, at the same place).
  for (const [position, key] of textKeys.entries())
    if (position !== tool && key.slice(key.indexOf(":") + 1) !== origins[position]) return undefined;
  const oldText = cache.text("operations", oldOrigin);
  if (oldText === undefined || !sameButTexts(oldText, outcome)) return undefined;

  const names: string[] = [];
  const seeds: number[] = [];
  const shapes: string[] = [];
  const schemaKeys: string[] = [];
  for (const [position, span] of spans.entries()) {
    const name = nameAt(previous.bytes, span);
    if (name === undefined) return undefined;
    const toolSeedValue = toolSeed(seed, name);
    // The edited tool's shape and example are its previous ones: only its texts changed.
    const origin = position === tool ? oldOrigin : origins[position]!;
    const shape = recordedShape(cache, shapeKey(origin, name));
    // A schema's key the example cache did not record (the file is not rewritten for keys alone) is its hash.
    const schema = () => (position === tool ? outcome.draft!.inputSchema : cachedInputSchema(cache, origin));
    const schemaKey = examples.reusableKey(origin, toolSeedValue, schema);
    if (shape === undefined || schemaKey === undefined) return undefined;
    names.push(name);
    seeds.push(toolSeedValue);
    shapes.push(shape);
    schemaKeys.push(schemaKey);
  }
  // The same shapes as the last run's (the same context) give every tool the guidance key it recorded.
  if (toolsContext(shapes, seed, cache.code) !== layout.context) return undefined;
  const guidanceKeys = textKeys.map((key) => key.slice(0, key.indexOf(":")));
  for (const key of guidanceKeys) {
    const text = cache.text("guidance", key);
    if (text === undefined || !holdsNoWarnings(text)) return undefined;
  }
  const json = editedToolJson(previous.bytes, spans[tool]!, outcome.draft!);
  if (json === undefined) return undefined;

  // Kept as the full path keeps them: the prelude and operations (src/cache/incremental.ts `keepAll`), the shapes
  // and guidance (./guidance-keys.ts), the examples (./index.ts `prime`, `keep`), each in tool order.
  cache.keep("preludes", keys.prelude, edited.saved);
  keys.operations.forEach(({ key }, position) =>
    position === index ? cache.keep("operations", key, outcome) : cache.keepAsRead("operations", key),
  );
  names.forEach((name, position) => cache.keep("shapes", shapeKey(origins[position]!, name), shapes[position]!));
  for (const key of guidanceKeys) cache.keepAsRead("guidance", key);
  schemaKeys.forEach((schemaKey, position) => examples.keepRecorded(schemaKey, seeds[position]!, origins[position]!));
  return {
    api: sources.api(edited.prelude.api),
    diagnostics: edited.prelude.diagnostics,
    previous: previous.bytes,
    spans,
    tool,
    json,
    textKeys: guidanceKeys.map((key, position) => `${key}:${origins[position]}`),
    context: layout.context,
    overview,
  };
}

/** The input schema of the operation entry `origin`'s tool (parsed from that entry alone). */
function cachedInputSchema(cache: ModelCache, origin: string): JsonSchema | undefined {
  const text = cache.text("operations", origin);
  return text === undefined ? undefined : parseOutcome(text, MODEL_CACHE_FILE).draft?.inputSchema;
}

/** How an operation entry without warnings, credential notes, signing headers or added schemes ends (before its schemas). */
const PLAIN_END = '"diagnostics":[],"credentialNotes":[],"addedSchemes":0}';
const DRAFT_START = '{"draft":';

/** A modelled operation that makes a tool and carries nothing for the model as a whole (no warning, no note). */
function isPlainOutcome(outcome: OperationOutcome): boolean {
  const members = Object.keys(outcome).join();
  return (
    members === "draft,diagnostics,credentialNotes,addedSchemes" &&
    outcome.diagnostics.length === 0 &&
    outcome.credentialNotes.length === 0 &&
    outcome.addedSchemes === 0
  );
}

/**
 * Which operation entry each tool is made from (`origins`, in tool order), the edited operation (`index`) making the
 * `tool`th; undefined unless every other entry is plain (as `isPlainOutcome`, read from its text).
 */
function toolsMade(
  cache: ModelCache,
  operations: ReadonlyArray<{ key: string }>,
  index: number,
): { origins: string[]; tool: number } | undefined {
  const origins: string[] = [];
  let tool = -1;
  for (const [position, { key }] of operations.entries()) {
    if (position === index) {
      tool = origins.length;
      origins.push(key);
      continue;
    }
    const text = cache.text("operations", key);
    if (text === undefined) return undefined;
    const tab = text.indexOf("\t");
    const main = tab < 0 ? text : text.slice(0, tab);
    if (main.startsWith(DRAFT_START) && main.endsWith(`,${PLAIN_END}`)) origins.push(key);
    else if (main !== `{${PLAIN_END}`) return undefined;
  }
  return { origins, tool };
}

/**
 * The last generation's compact tools file as its index describes it (./tool-texts.ts): its tools' spans, end to end
 * after the head this run's API makes, and their text keys; undefined if the file or the index is anything else.
 */
function toolsFileLayout(
  { cache, previous }: TextEditSources,
  count: number,
  api: ApiData,
): { spans: ToolSpan[]; textKeys: string[]; context: string; overview: ToolsOverview } | undefined {
  const index = readToolsIndex(cache.projectDir, cache.code, previous.hash);
  if (!index || index.tools.length !== count || count === 0 || hashBytesOnce(previous.bytes) !== previous.hash)
    return undefined;
  const head = Buffer.from(`{"api":${JSON.stringify(api)},"tools":[`, "utf8");
  if (!previous.bytes.subarray(0, head.length).equals(head)) return undefined;
  const spans: ToolSpan[] = [];
  const textKeys: string[] = [];
  let next = head.length;
  for (const entry of index.tools) {
    const [key, start, end] = Array.isArray(entry) ? entry : [];
    if (typeof key !== "string" || !key.includes(":") || start !== next || !Number.isInteger(end) || end! <= start)
      return undefined;
    spans.push([start, end!]);
    textKeys.push(key);
    next = end! + 1;
  }
  const tail = previous.bytes.subarray(next - 1);
  return tail.equals(TAIL) ? { spans, textKeys, context: index.context, overview: index.overview } : undefined;
}

const TAIL = Buffer.from("]}\n");

/**
 * The last generation's overview of the tools (its index's) with the edited tool's README row given its new summary;
 * undefined unless it describes as many tools as there are, none with a handler (an OpenAPI run's tools call the API).
 */
function editedOverview(
  overview: ToolsOverview,
  count: number,
  tool: number,
  draft: NonNullable<OperationOutcome["draft"]>,
): ToolsOverview | undefined {
  const { rows, categories, handlerTools } = overview;
  if (!Array.isArray(rows) || !Array.isArray(categories) || !Array.isArray(handlerTools)) return undefined;
  if (overview.count !== count || rows.length !== Math.min(count, MAX_LISTED_TOOLS) || handlerTools.length > 0)
    return undefined;
  if (tool >= rows.length) return overview;
  const edited = rows.map((row, position) => (position === tool ? { ...row, summary: toolSummary(draft) } : row));
  return { ...overview, rows: edited };
}

/** Whether the cached outcome's text and `outcome` are the same but for the draft's texts (description, titles). */
function sameButTexts(cachedText: string, outcome: OperationOutcome): boolean {
  const cached = cachedText.split("\t");
  const now = outcomeText(outcome, JSON.stringify).split("\t");
  if (cached.length !== now.length) return false;
  // The schemas after the tabs: the cache's text has every non-ASCII character escaped (see model-cache.ts).
  for (let part = 1; part < now.length; part++)
    if (JSON.stringify(JSON.parse(cached[part]!)) !== now[part]) return false;
  return withoutTexts(cached[0]!) === withoutTexts(now[0]!);
}

/** An outcome's JSON (its schemas left as placeholders) without the draft's texts, as JSON. */
function withoutTexts(json: string): string {
  const outcome = JSON.parse(json) as { draft?: { description?: unknown; title?: unknown; annotations?: object } };
  const draft = outcome.draft;
  if (draft) {
    delete draft.description;
    delete draft.title;
    if (typeof draft.annotations === "object" && draft.annotations !== null)
      delete (draft.annotations as { title?: unknown }).title;
  }
  return JSON.stringify(outcome);
}

const NAME_START = Buffer.from('{"name":"');
/** What a tool's name is made of (src/model/ir.ts `ToolData`): its JSON string holds no escape. */
const PLAIN_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** The name of the tool whose JSON is at `span` (its first member, see src/emit/index.ts `toToolData`). */
function nameAt(bytes: Buffer, [start, end]: ToolSpan): string | undefined {
  if (bytes.compare(NAME_START, 0, NAME_START.length, start, start + NAME_START.length) !== 0) return undefined;
  const from = start + NAME_START.length;
  const quote = bytes.indexOf(QUOTE, from);
  if (quote < 0 || quote >= end) return undefined;
  const name = bytes.toString("latin1", from, quote);
  return PLAIN_NAME.test(name) ? name : undefined;
}

/**
 * The edited tool's JSON in this run: as `toToolData` makes it (src/emit/index.ts), its texts from the new draft and
 * every other member as the previous file holds it (the outcomes are the same but for texts, and so is its guidance).
 */
function editedToolJson(
  bytes: Buffer,
  [start, end]: ToolSpan,
  draft: NonNullable<OperationOutcome["draft"]>,
): string | undefined {
  const {
    name,
    title: _title,
    description: _description,
    ...rest
  } = JSON.parse(bytes.toString("utf8", start, end)) as ToolData;
  if (typeof name !== "string" || rest.annotations === undefined) return undefined;
  const data: ToolData = {
    name,
    ...(draft.title ? { title: draft.title } : {}),
    description: draft.description,
    ...rest,
    annotations: draft.annotations,
  };
  return JSON.stringify(data);
}
