/**
 * The bytes of a large API's `data/tools.json`, assembled tool by tool: the
 * compact layout (`{"api":…,"tools":[…]}`, no whitespace) is exactly the
 * API's JSON and each tool's JSON joined, so a regeneration can take an
 * unchanged tool's text as it is from the last generation's file (see
 * src/cache/tool-texts.ts) instead of converting and serialising all of them
 * again (GitHub: 1,223 tools, 6 MB). Small APIs keep the indented layout,
 * written whole by `toolsDataJson`.
 */
import type { GuidedApiModel, ToolData } from "../model/ir.js";

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

/**
 * The compact file, byte for byte `JSON.stringify({ api, tools }) + "\n"`, from
 * each tool's JSON bytes (reused) or its data (serialised here), and where each tool is in it.
 */
export function compactToolsFile(
  model: GuidedApiModel,
  pieces: ReadonlyArray<Buffer | (() => ToolData)>,
): { bytes: Buffer; spans: ToolSpan[] } {
  const head = `{"api":${JSON.stringify(model.api)},"tools":[`;
  // Each tool's JSON text (or reused bytes) and its length first, then one buffer written in place: a buffer per
  // tool, concatenated after, allocated and copied every byte once more (GitHub: ≈ 5 of ≈ 12 ms).
  const texts = pieces.map((piece) => (Buffer.isBuffer(piece) ? piece : JSON.stringify(piece())));
  let size = Buffer.byteLength(head, "utf8") + Math.max(texts.length - 1, 0) + END.length;
  for (const text of texts) size += typeof text === "string" ? Buffer.byteLength(text, "utf8") : text.length;
  const bytes = Buffer.allocUnsafe(size);
  let offset = bytes.write(head, 0, "utf8");
  const spans = texts.map((text, index): ToolSpan => {
    if (index > 0) bytes[offset++] = COMMA;
    const start = offset;
    offset += typeof text === "string" ? bytes.write(text, offset, "utf8") : text.copy(bytes, offset);
    return [start, offset];
  });
  offset += END.copy(bytes, offset);
  if (offset !== size) throw new Error(`internal error: data/tools.json assembled to ${offset} of ${size} bytes`);
  return { bytes, spans };
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
