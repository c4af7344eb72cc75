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
import type { ApiData, ToolData } from "../model/ir.js";
import type { OperationOutcome } from "../model/openapi.js";
import { hashBytesOnce } from "../write/hash.js";
import type { ToolSpan } from "../emit/tools-file.js";
import { MAX_LISTED_TOOLS, toolSummary, type ToolsOverview } from "../emit/index.js";
import type { EditedOperation } from "./incremental.js";
import type { ExampleCache } from "./index.js";
import type { ModelCache } from "./model-cache.js";
import type { ModelRecord } from "./model-record.js";
import { outcomeText } from "./lazy-outcome.js";
import { shapeIn, shapeKey } from "./guidance-keys.js";
import { plainOutcome } from "./plain-entries.js";
import { readToolsIndex, type TextKeys } from "./tool-texts.js";

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
  /** Every tool's text key for the tools index (./tool-texts.ts), in their context (the last run's). */
  textKeys: TextKeys;
  /** What the templates read of the tools (src/emit/index.ts), the edited tool's summary this run's. */
  overview: ToolsOverview;
}

/**
 * The text-only regeneration of `edited`, if it is one (see the module comment), with its cache entries kept as the
 * full path keeps them; else undefined, and nothing kept.
 */
export function planTextEdit(sources: TextEditSources, edited: EditedOperation): TextEdit | undefined {
  const { cache, examples, previous } = sources;
  const { keys, index, outcome } = edited;
  // The model cache's record (./model-record.ts) vouches that every entry the last run kept is plain.
  const record = cache.recorded;
  if (!record?.plain || plainOutcome(outcome) !== "tool") return undefined;
  const made = toolsMade(record, keys.operations, index);
  if (!made) return undefined;
  const { origins, tool } = made;
  const layout = toolsFileLayout(sources, origins.length, sources.api(edited.prelude.api), record.id);
  if (!layout) return undefined;
  const { spans, textKeys } = layout;
  const overview = editedOverview(layout.overview, spans.length, tool, outcome.draft!);
  if (!overview) return undefined;
  const recorded = recordedKeys(textKeys, origins, tool);
  const [oldOrigin, start, end, shapeStart, shapeEnd] = record.operations[index]!;
  if (!recorded || recorded.oldOrigin !== oldOrigin || shapeEnd === undefined) return undefined;
  const oldText = cache.recordedText("operations", oldOrigin, [start, end]);
  if (oldText === undefined || !sameButTexts(oldText, outcome)) return undefined;
  // Only its texts changed: its shape is the one recorded under its previous entry, now under its new one.
  const name = nameAt(previous.bytes, spans[tool]!);
  const shapeText = name && cache.recordedText("shapes", shapeKey(oldOrigin, name), [shapeStart!, shapeEnd]);
  const shape = shapeIn(shapeText);
  const json = editedToolJson(previous.bytes, spans[tool]!, outcome.draft!);
  if (name === undefined || shape === undefined || json === undefined || !cache.recordedEditAppends()) return undefined;

  // Kept as the full path keeps them: every tool's example as the last run kept it (each tool has its schema and
  // seed: the same names, seed and input schemas), then the model cache's entries (the prelude and operations, see
  // src/cache/incremental.ts `keepAll`; the shapes and guidance, see ./guidance-keys.ts).
  if (!layout.examples || !examples.keepAllRecorded(layout.examples, origins.length)) return undefined;
  const { key } = keys.operations[index]!;
  cache.keepRecorded({ index, key, outcome, shapeKey: shapeKey(origins[tool]!, name), shape, tools: origins.length });
  return {
    api: sources.api(edited.prelude.api),
    diagnostics: edited.prelude.diagnostics,
    previous: previous.bytes,
    spans,
    tool,
    json,
    textKeys: {
      code: cache.code,
      context: layout.context,
      keys: recorded.guidanceKeys.map((key, position) => `${key}:${origins[position]}`),
      seed: sources.seed,
    },
    overview,
  };
}

/**
 * The guidance keys the last run recorded with its tools' texts (`textKeys`: `guidanceKey:origin`, see
 * ./tool-texts.ts), and the edited tool's previous origin; undefined unless every other tool was made from the entry
 * this run reuses (so it is the same tool, at the same place).
 */
function recordedKeys(
  textKeys: readonly string[],
  origins: readonly string[],
  tool: number,
): { guidanceKeys: string[]; oldOrigin: string } | undefined {
  const guidanceKeys: string[] = [];
  for (let position = 0; position < textKeys.length; position++) {
    const key = textKeys[position]!;
    const colon = key.indexOf(":");
    // The text after the first colon is the origin (compared in place: no substring made).
    const origin = origins[position]!;
    if (position !== tool && !(key.length - colon - 1 === origin.length && key.endsWith(origin))) return undefined;
    guidanceKeys.push(key.slice(0, colon));
  }
  const key = textKeys[tool]!;
  return { guidanceKeys, oldOrigin: key.slice(key.indexOf(":") + 1) };
}

/**
 * Which operation entry each tool is made from (`origins`, in tool order), the edited operation (`index`) making the
 * `tool`th; undefined unless every other operation is the one the record's save kept at its place, and the edited
 * one's made a tool (it has a shape).
 */
function toolsMade(
  record: ModelRecord,
  operations: ReadonlyArray<{ key: string }>,
  index: number,
): { origins: string[]; tool: number } | undefined {
  if (record.operations.length !== operations.length) return undefined;
  const origins: string[] = [];
  let tool = -1;
  for (let position = 0; position < operations.length; position++) {
    const recorded = record.operations[position];
    if (!Array.isArray(recorded)) return undefined;
    const { key } = operations[position]!;
    if (position === index) tool = origins.length;
    else if (recorded[0] !== key) return undefined;
    // An operation that made a tool has its tool's shape in the record.
    if (recorded.length === 5) origins.push(key);
    else if (position === index) return undefined;
  }
  return { origins, tool };
}

/**
 * The last generation's compact tools file as its index describes it (./tool-texts.ts): its tools' spans, end to end
 * after the head this run's API makes, and their text keys; undefined if the file or the index is anything else, or
 * the index was not made with the model cache's save that `modelId` names.
 */
function toolsFileLayout(
  { cache, previous, seed }: TextEditSources,
  count: number,
  api: ApiData,
  modelId: string,
): { spans: ToolSpan[]; textKeys: string[]; context: string; overview: ToolsOverview; examples?: string } | undefined {
  const index = readToolsIndex(cache.projectDir, cache.code, previous.hash);
  // Made in the run that left the model cache as it is (so its tools are the record's), with this run's seed: the
  // same tools (entries and names) then have the same shapes, so the same context and guidance keys.
  if (!index || index.model !== modelId || index.seed !== seed) return undefined;
  if (index.tools.length !== count || count === 0 || hashBytesOnce(previous.bytes) !== previous.hash) return undefined;
  const head = Buffer.from(`{"api":${JSON.stringify(api)},"tools":[`, "utf8");
  if (!previous.bytes.subarray(0, head.length).equals(head)) return undefined;
  const spans: ToolSpan[] = [];
  const textKeys: string[] = [];
  let next = head.length;
  for (let position = 0; position < index.tools.length; position++) {
    const entry: unknown[] = Array.isArray(index.tools[position]) ? index.tools[position]! : [];
    const key = entry[0];
    const end = entry[2];
    if (typeof key !== "string" || !key.includes(":") || entry[1] !== next || !Number.isInteger(end)) return undefined;
    if ((end as number) <= next) return undefined;
    spans.push([next, end as number]);
    textKeys.push(key);
    next = (end as number) + 1;
  }
  const tail = previous.bytes.subarray(next - 1);
  if (!tail.equals(TAIL)) return undefined;
  const { context, overview, examples } = index;
  return { spans, textKeys, context, overview, ...(typeof examples === "string" ? { examples } : {}) };
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

const NAME_START = '{"name":"';
/** What a tool's name is made of (src/model/ir.ts `ToolData`): its JSON string holds no escape. */
const PLAIN_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** The name of the tool whose JSON is at `span` (its first member, see src/emit/index.ts `toToolData`). */
function nameAt(bytes: Buffer, span: ToolSpan): string | undefined {
  // One decoding of the span's first bytes (a plain name is at most 64 characters), then string searches: one
  // native call per tool where comparing and searching the bytes made three.
  const head = bytes.toString("latin1", span[0], Math.min(span[1], span[0] + NAME_START.length + 65));
  if (!head.startsWith(NAME_START)) return undefined;
  const quote = head.indexOf('"', NAME_START.length);
  if (quote < 0) return undefined;
  const name = head.slice(NAME_START.length, quote);
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
