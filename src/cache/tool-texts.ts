/**
 * Reuse of the last generation's tool texts in a large API's data/tools.json.
 *
 * A tool's JSON in that file is `toToolData` of the guided tool, and the
 * guided tool is a function of its guidance key and of the tools' context
 * (src/cache/guidance-keys.ts: the code, the seed, every tool's model without
 * its texts, this tool's; the context holds what its completed producer calls
 * read of other tools) and of its texts (description, title, annotation
 * title), which the key leaves out. So while the context is the same, a tool
 * whose text key — key and texts together — is unchanged has, byte for byte,
 * its JSON of the last generation, and a regeneration after a summary edit
 * copies 1,222 of GitHub's 1,223 tools from the previous file instead of
 * converting and serialising them again.
 *
 * `.guided-mcp/cache/tools-index.json` records, for the file the last run
 * wrote (by its hash), the context, each tool's text key and where its JSON
 * is. It is used only for that very file (its bytes hashed, as the manifest
 * recorded them) and that context, so an edited, replaced or damaged file, a
 * foreign index, or another tool's changed input schema reuses nothing.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { toToolData, type ToolsOverview } from "../emit/index.js";
import { compactToolsFile } from "../emit/tools-file.js";
import { membersAhead } from "../emit/tool-members.js";
import type { GuidedApiModel, ToolModel } from "../model/ir.js";
import { hashBytesOnce, hashContent } from "../write/hash.js";
import { toolOrigin } from "./guidance-keys.js";
import { CACHE_DIR } from "./index.js";
import { replaceFile } from "./replace-file.js";

const INDEX_FILE = join(CACHE_DIR, "tools-index.json");
/**
 * Bump when the file layout changes (2: text keys from the tools' origins; 3: the tools' overview; 4: the context; 5:
 * the seed and the model cache's save).
 */
const FORMAT = 5;

/** What identifies each tool's JSON in data/tools.json (see the module comment). */
export interface TextKeys {
  /** The code fingerprint (src/cache/fingerprint.ts): another generator's texts are not ours. */
  code: string;
  /** The tools' context (src/cache/guidance-keys.ts `toolsContext`). */
  context: string;
  /** Each tool's text key, in tool order. */
  keys: string[];
  /** The run's example seed (the context's). */
  seed: number;
}

/**
 * The caches' files as the run that made an index left them: the model cache's save id (./model-record.ts) and the
 * example cache's id and size (./index.ts `ExampleCache.saved`). A text-only regeneration takes their entries for
 * this index's tools.
 */
export interface CacheSaves {
  model: string;
  examples: string | undefined;
}

export interface ToolsIndex {
  format: number;
  /** The code fingerprint (src/cache/fingerprint.ts): another generator's texts are not ours. */
  code: string;
  /** The tools' context the text keys were made in, and the seed it was made with. */
  context: string;
  seed: number;
  /** The model cache's and example cache's files as this index's run left them (see `CacheSaves`). */
  model: string;
  examples?: string;
  /** The hash of the tools file the entries point into. */
  file: string;
  /** Per tool, in order: its text key, and the [start, end) bytes of its JSON. */
  tools: Array<[key: string, start: number, end: number]>;
  /** What the templates read of the tools in that file (src/emit/index.ts), for a text-only regeneration. */
  overview: ToolsOverview;
}

/** The text keys of a run's tools (see `toolTextKeys`), with what they were made in. */
export function textKeysOf(
  code: string,
  { keys, context }: { keys: readonly string[]; context: string },
  tools: readonly ToolModel[],
  seed: number,
): TextKeys {
  return { code, context, keys: toolTextKeys(keys, tools), seed };
}

/**
 * Each tool's text key (see the module comment), from the guidance keys of the same tools. A tool made from a
 * model cache entry (src/cache/guidance-keys.ts `toolOrigin`) has its texts from that entry's draft, which its key
 * stands for: the two keys side by side are its text key, with nothing to serialise or hash (GitHub: ≈ 5 ms). The
 * others hash their texts; the two kinds never meet (only the first holds a colon).
 */
export function toolTextKeys(guidanceKeys: readonly string[], tools: readonly ToolModel[]): string[] {
  return tools.map((tool, index) => {
    const origin = toolOrigin(tool);
    if (origin !== undefined) return `${guidanceKeys[index]}:${origin}`;
    const texts = JSON.stringify([tool.description, tool.title ?? null, tool.annotations.title ?? null]);
    return hashContent(`${guidanceKeys[index]}\0${texts}`).slice(0, 40);
  });
}

/**
 * The JSON of the last generation's tools by text key, as slices of `previous`
 * (its tools file, whose bytes hash to `previousHash`), if the index was made
 * for that file by this code in this context; else an empty map.
 */
export function previousToolTexts(
  projectDir: string,
  { code, context }: Pick<TextKeys, "code" | "context">,
  previous: Buffer,
  previousHash: string,
) {
  const texts = new Map<string, Buffer>();
  const index = readToolsIndex(projectDir, code, previousHash);
  if (!index || index.context !== context || hashBytesOnce(previous) !== previousHash) return texts;
  for (const entry of index.tools) {
    const [key, start, end] = Array.isArray(entry) ? entry : [];
    if (typeof key === "string" && Number.isInteger(start) && Number.isInteger(end))
      if (0 <= start! && start! < end! && end! <= previous.length) texts.set(key, previous.subarray(start, end));
  }
  return texts;
}

/**
 * A large API's data/tools.json, each tool's JSON taken from `previous` (see
 * `previousToolTexts`) where its text key is there, else serialised now; and
 * where each tool is in it, for the next run's index.
 */
export function assembleToolsFile(model: GuidedApiModel, keys: readonly string[], previous: Map<string, Buffer>) {
  let hits = 0;
  const pieces = model.tools.map((tool, index) => {
    const text = previous.get(keys[index]!);
    if (text) {
      hits++;
      return text;
    }
    const members = membersAhead(tool);
    const guidance: object | undefined = tool.guidance;
    return members && typeof guidance === "object" ? { members, guidance } : () => toToolData(tool);
  });
  return { ...compactToolsFile(model, pieces), stats: { hits, misses: pieces.length - hits } };
}

/** Records where each tool's JSON is in the tools file just written (`fileHash`: its bytes' hash). */
export async function saveToolsIndex(
  projectDir: string,
  { code, context, keys, seed }: TextKeys,
  { model, examples }: CacheSaves,
  fileHash: string,
  spans: ReadonlyArray<[number, number]>,
  overview: ToolsOverview,
): Promise<void> {
  const index: ToolsIndex = {
    format: FORMAT,
    code,
    context,
    seed,
    model,
    ...(examples ? { examples } : {}),
    file: fileHash,
    tools: keys.map((key, position) => [key, spans[position]![0], spans[position]![1]]),
    overview,
  };
  const file = join(projectDir, INDEX_FILE);
  // Synchronously: see the example cache's `save` (src/cache/index.ts).
  await replaceFile(file, async (temporary) => writeFileSync(temporary, JSON.stringify(index) + "\n"));
}

/** The project's tools index, if this code made it for the tools file whose bytes hash to `fileHash`. */
export function readToolsIndex(projectDir: string, code: string, fileHash: string): ToolsIndex | undefined {
  const index = readIndex(join(projectDir, INDEX_FILE));
  return index?.code === code && index.file === fileHash ? index : undefined;
}

function readIndex(file: string): ToolsIndex | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const index = JSON.parse(readFileSync(file, "utf8")) as Partial<ToolsIndex>;
    return index.format === FORMAT &&
      typeof index.code === "string" &&
      typeof index.context === "string" &&
      Array.isArray(index.tools) &&
      typeof index.overview === "object"
      ? (index as ToolsIndex)
      : undefined;
  } catch {
    return undefined;
  }
}
