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
  const parts: Buffer[] = [Buffer.from(`{"api":${JSON.stringify(model.api)},"tools":[`, "utf8")];
  const spans: ToolSpan[] = [];
  let offset = parts[0]!.length;
  pieces.forEach((piece, index) => {
    if (index > 0) {
      parts.push(COMMA);
      offset++;
    }
    const bytes = Buffer.isBuffer(piece) ? piece : Buffer.from(JSON.stringify(piece()), "utf8");
    parts.push(bytes);
    spans.push([offset, offset + bytes.length]);
    offset += bytes.length;
  });
  parts.push(END);
  return { bytes: Buffer.concat(parts, offset + END.length), spans };
}

const COMMA = Buffer.from(",");
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
