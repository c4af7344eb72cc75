/**
 * The bytes of a large API's `data/tools.json`, assembled tool by tool: the
 * compact layout (`{"api":…,"tools":[…]}`, no whitespace) is exactly the
 * API's JSON and each tool's JSON joined, so a regeneration can take an
 * unchanged tool's text as it is from the last generation's file (see
 * src/cache/tool-texts.ts) instead of converting and serialising all of them
 * again (GitHub: 1,223 tools, 6 MB). Small APIs keep the indented layout,
 * written whole by `toolsDataJson`.
 */
import type { GuidedApiModel, JsonSchema, ToolData } from "../model/ir.js";
import { jsonAround, schemaText } from "../model/schema-text.js";
import { guidanceJson } from "./guidance-head.js";

/** An emitted generator file (index.ts's `EmittedFile`, spelled out here: index.ts imports this module). */
interface BytesFile {
  path: string;
  content: string;
  owner: "generator";
  bytes?: Buffer;
}

/** Above this many tools the file is compact: size dominates (GitHub, Graph); below, it stays readable. */
export function isCompactToolsFile(toolCount: number): boolean {
  return toolCount > 200;
}

/** Where each tool's JSON is in the file: [start, end) byte offsets, in tool order. */
export type ToolSpan = [start: number, end: number];

/** A tool's JSON up to its guidance, made ahead (`members`: the JSON object of the rest), and its guidance. */
export interface MembersAndGuidance {
  members: string;
  guidance: object;
}

/**
 * The compact file, byte for byte `JSON.stringify({ api, tools }) + "\n"`, from each tool's JSON bytes (reused), its
 * members' JSON made ahead and its guidance, or its data (serialised here), and where each tool is in it.
 */
export function compactToolsFile(
  model: GuidedApiModel,
  pieces: ReadonlyArray<Buffer | MembersAndGuidance | (() => ToolData)>,
): { bytes: Buffer; spans: ToolSpan[] } {
  const head = `{"api":${JSON.stringify(model.api)},"tools":[`;
  // Each tool's JSON text (or reused bytes) first, then one buffer written in place: a buffer per tool, concatenated
  // after, allocated and copied every byte once more (GitHub: ≈ 5 of ≈ 12 ms).
  const texts = pieces.map((piece) =>
    Buffer.isBuffer(piece) ? piece : typeof piece === "function" ? toolJson(piece()) : withGuidance(piece),
  );
  const out = new Assembly(head, texts);
  out.text(head);
  const spans = texts.map((text, index): ToolSpan => {
    if (index > 0) out.comma();
    const start = out.offset;
    if (Buffer.isBuffer(text)) out.bytes(text);
    else for (const part of text) out.text(part);
    return [start, out.offset];
  });
  out.bytes(END);
  return { bytes: out.done(), spans };
}

/**
 * One buffer written in place, sized without measuring each text's UTF-8 length (`Buffer.byteLength` scans every
 * character: ≈ 4 ms of Stripe's emit): a text takes at most three bytes per UTF-16 unit, so there is always room for
 * the next text while the file is ASCII (nearly so: GitHub has 62 other characters), and it grows only beyond.
 */
class Assembly {
  private buffer: Buffer;
  offset = 0;

  constructor(head: string, texts: ReadonlyArray<Buffer | readonly string[]>) {
    let units = head.length + texts.length + END.length;
    let longest = head.length;
    for (const text of texts)
      if (Buffer.isBuffer(text)) units += text.length;
      else
        for (const part of text) {
          units += part.length;
          longest = Math.max(longest, part.length);
        }
    this.buffer = Buffer.allocUnsafe(units + 2 * longest);
  }

  text(text: string): void {
    this.room(3 * text.length);
    this.offset += this.buffer.write(text, this.offset, "utf8");
  }

  bytes(bytes: Buffer): void {
    this.room(bytes.length);
    this.offset += bytes.copy(this.buffer, this.offset);
  }

  comma(): void {
    this.room(1);
    this.buffer[this.offset++] = COMMA;
  }

  done(): Buffer {
    return this.buffer.subarray(0, this.offset);
  }

  private room(needed: number): void {
    if (this.buffer.length - this.offset >= needed) return;
    const larger = Buffer.allocUnsafe(Math.max(2 * this.buffer.length, this.offset + needed));
    this.buffer.copy(larger, 0, 0, this.offset);
    this.buffer = larger;
  }
}

/**
 * A tool's JSON, exactly `JSON.stringify(data)`, in pieces: the members before its guidance, then the guidance. The
 * guidance's text is noted (see `emittedGuidanceJson`): the model cache stores the same text for the tool's
 * guidance entry, so it is serialised once (Stripe: 1.6 of its 3.4 MB).
 */
function toolJson(data: ToolData): string[] {
  const keys = Object.keys(data);
  // Only when the guidance is the last member (as `toToolData` makes it), so that the pieces join in JSON's order.
  if (keys[keys.length - 1] !== "guidance" || data.guidance === undefined) return [toolDataJson(data)];
  const { guidance, ...members } = data;
  const before = toolDataJson(members);
  if (before === "{}") return [JSON.stringify(data)];
  return withGuidance({ members: before, guidance });
}

/**
 * `JSON.stringify(data)` of a tool's data, or of its members without the guidance: its input schema's text is the one
 * made once for the model's schema (src/model/schema-text.ts; Stripe: ≈ 0.95 MB of JSON not serialised again).
 */
export function toolDataJson(data: Partial<ToolData>): string {
  const around = typeof data.inputSchema === "object" && data.inputSchema !== null && jsonAround(data, "inputSchema");
  return around
    ? `${around.prefix}${schemaText(data.inputSchema as JsonSchema)}${around.suffix}`
    : JSON.stringify(data);
}

/**
 * `{…members, "guidance": …}`, the guidance's text noted (its hints and links may have been serialised ahead, see
 * guidance-head.ts). (`members` is never `{}`: a tool has a name.)
 */
function withGuidance({ members, guidance }: MembersAndGuidance): string[] {
  const text = guidanceJson(guidance);
  guidanceTexts.set(guidance, text);
  return [members.slice(0, -1), GUIDANCE_MEMBER, text, "}"];
}

const GUIDANCE_MEMBER = ',"guidance":';

/** The JSON text of each guidance object serialised for data/tools.json in this process (see `toolJson`). */
const guidanceTexts = new WeakMap<object, string>();

/**
 * `JSON.stringify(guidance)` as data/tools.json holds it, if this guidance object was serialised there. Only valid
 * while nothing changed it since: emit runs after every change made to guidance (producer calls are completed before).
 */
export function emittedGuidanceJson(guidance: object): string | undefined {
  return guidanceTexts.get(guidance);
}

const COMMA = 0x2c;
const END = Buffer.from("]}\n");

/** The emitted file for given bytes; its text is decoded only if something reads it (the write uses the bytes). */
export function emittedBytes(path: string, bytes: Buffer): BytesFile {
  let content: string | undefined;
  const file: BytesFile = {
    path,
    owner: "generator",
    bytes,
    get content() {
      return (content ??= bytes.toString("utf8"));
    },
    set content(text: string) {
      content = text;
      delete file.bytes;
    },
  };
  return file;
}
