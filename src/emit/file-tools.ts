/**
 * Emit for a text-only regeneration (src/cache/text-edit.ts): data/tools.json is the last generation's file with the
 * edited tool's JSON put in its place; the templates read the tools' overview the tools index kept (the edited tool's
 * summary updated), and the test suite reads its sample of tools from the new file (GitHub: 25 of 1,223 tools parsed,
 * none built).
 */
import type { TextEdit } from "../cache/text-edit.js";
import type { ToolData } from "../model/ir.js";
import type { ToolList } from "../report/text.js";
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
export function emitTextEdit(edit: TextEdit, options: EmitOptions, room?: Buffer) {
  const { bytes, spans } = spliced(edit, room);
  const tools = spans.map((span) => new FileTool(bytes, span));
  const model: EmitModel = { kind: "openapi", api: edit.api, tools, diagnostics: edit.diagnostics };
  const files: EmittedFile[] = emitAround(model, emittedBytes(TOOLS_DATA_PATH, bytes), {
    ...options,
    overview: edit.overview,
  });
  // The change report converts the tools it compares: here, parsed back from the new file.
  const toolData: ToolList = {
    length: spans.length,
    slice: (from?: number, to?: number) => spans.slice(from, to).map((span) => parseSpan(bytes, span)),
  };
  const toolsFile = { bytes, spans, stats: { hits: spans.length - 1, misses: 1 }, overview: edit.overview };
  return { files, toolData, toolsFile, model };
}

/**
 * The previous file with the edited tool's JSON in its place, and every tool's span in the result: in `room` when it
 * is large enough (memory whose pages are touched already, see src/write/previous.ts), else in a buffer of its own.
 */
export function spliced(
  { previous, spans, tool, json }: TextEdit,
  room?: Buffer,
): { bytes: Buffer; spans: ToolSpan[] } {
  const [start, end] = spans[tool]!;
  const text = Buffer.from(json, "utf8");
  const length = previous.length - (end - start) + text.length;
  const bytes = room && room.length >= length ? room.subarray(0, length) : Buffer.allocUnsafe(length);
  previous.copy(bytes, 0, 0, start);
  text.copy(bytes, start);
  previous.copy(bytes, start + text.length, end);
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

/**
 * A tool as data/tools.json holds it, parsed at the first read of a member: the test suite reads a sample of them
 * (src/emit/test-suite.ts), the README none (its rows come with the overview).
 */
class FileTool implements EmitTool {
  #data: ToolData | undefined;

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
    return this.data.category;
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
}
