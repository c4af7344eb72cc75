/**
 * Emit for a text-only regeneration (src/cache/text-edit.ts): data/tools.json is the last generation's file with the
 * edited tool's JSON put in its place, and the rest of the project reads the tools from that file. Each tool is a
 * view of its JSON there, parsed when a member other than its category or handler is read: the README reads the
 * names, texts and routes of the first 200 tools and every tool's category and handler, the test suite a sample's
 * examples (GitHub: 225 of 1,223 tools parsed, none built).
 */
import type { TextEdit } from "../cache/text-edit.js";
import type { ToolData } from "../model/ir.js";
import type { ToolList } from "../report/text.js";
import { stringEnd } from "../json-bytes.js";
import {
  emitAround,
  TOOLS_DATA_PATH,
  type EmitModel,
  type EmitOptions,
  type EmitTool,
  type EmittedFile,
} from "./index.js";
import { emittedBytes, type ToolSpan } from "./tools-file.js";

/** The project's files after a text-only edit, the new data/tools.json's bytes and spans, and its tools as views. */
export function emitTextEdit(edit: TextEdit, options: EmitOptions) {
  const { bytes, spans } = spliced(edit);
  const tools = spans.map((span) => new FileTool(bytes, span));
  const model: EmitModel = { kind: "openapi", api: edit.api, tools, diagnostics: edit.diagnostics };
  const files: EmittedFile[] = emitAround(model, emittedBytes(TOOLS_DATA_PATH, bytes), options);
  // The change report converts the tools it compares: here, parsed back from the new file.
  const toolData: ToolList = {
    length: spans.length,
    slice: (from?: number, to?: number) => spans.slice(from, to).map((span) => parseSpan(bytes, span)),
  };
  const toolsFile = { bytes, spans, stats: { hits: spans.length - 1, misses: 1 } };
  return { files, toolData, toolsFile, model };
}

/** The previous file with the edited tool's JSON in its place, and every tool's span in the result. */
function spliced({ previous, spans, tool, json }: TextEdit): { bytes: Buffer; spans: ToolSpan[] } {
  const [start, end] = spans[tool]!;
  const text = Buffer.from(json, "utf8");
  const bytes = Buffer.concat([previous.subarray(0, start), text, previous.subarray(end)]);
  const moved = text.length - (end - start);
  return {
    bytes,
    spans: spans.map(([from, to], position): ToolSpan =>
      position < tool ? [from, to] : position === tool ? [start, start + text.length] : [from + moved, to + moved],
    ),
  };
}

function parseSpan(bytes: Buffer, [start, end]: ToolSpan): ToolData {
  return JSON.parse(bytes.toString("utf8", start, end)) as ToolData;
}

const CATEGORY = Buffer.from('"category":"');

/**
 * A tool as data/tools.json holds it, parsed at the first read of a member but its category. The category is found
 * in the text: the first `"category":"` of a tool's JSON is its own member (`toToolData` writes it after the name and
 * texts, which are strings: in a JSON string that quote would be escaped).
 */
class FileTool implements EmitTool {
  #data: ToolData | undefined;
  #category: string | undefined;

  constructor(
    private readonly bytes: Buffer,
    private readonly span: ToolSpan,
  ) {}

  private get data(): ToolData {
    return (this.#data ??= parseSpan(this.bytes, this.span));
  }

  get name(): string {
    return this.data.name;
  }

  get title(): string | undefined {
    return this.data.title;
  }

  get description(): string {
    return this.data.description;
  }

  get category(): string {
    return (this.#category ??= this.#data?.category ?? this.categoryFromText());
  }

  get operation(): EmitTool["operation"] {
    return this.data.operation;
  }

  /** None: a text-only regeneration is an OpenAPI run, whose tools call the API (only a JSON Schema input's run handlers). */
  get handler(): undefined {
    return undefined;
  }

  get guidance(): EmitTool["guidance"] {
    return this.data.guidance;
  }

  private categoryFromText(): string {
    const [start, end] = this.span;
    const at = this.bytes.indexOf(CATEGORY, start);
    const quote = at + CATEGORY.length - 1;
    const after = at < 0 ? -1 : stringEnd(this.bytes, quote);
    if (after < 0 || after > end) return this.data.category;
    return JSON.parse(this.bytes.toString("utf8", quote, after)) as string;
  }
}
