/**
 * The emit stage of a run (see generate.ts): the project's files, with a large
 * API's data/tools.json assembled from the last generation's unchanged tool
 * texts when the project's caches allow it (see src/cache/tool-texts.ts).
 */
import { assembleToolsFile, previousToolTexts } from "./cache/tool-texts.js";
import { emitProject, toToolData, TOOLS_DATA_PATH, type EmitOptions, type EmittedFile } from "./emit/index.js";
import { isCompactToolsFile } from "./emit/tools-file.js";
import type { GuidedApiModel } from "./model/ir.js";
import type { PreparedWrite } from "./write/index.js";
import { projectVersion } from "./write/previous.js";

/**
 * Emit. A large API's data/tools.json is assembled tool by tool, taking each unchanged tool's JSON from the last
 * generation's file (see src/cache/tool-texts.ts); `toolData` then converts only the tools the change report asks for.
 */
export function emitFiles(
  guided: GuidedApiModel,
  options: Pick<EmitOptions, "generatorVersion" | "helpers" | "templatesDir" | "ship" | "mcpName"> & { outDir: string },
  textKeys: { code: string; keys: string[] } | undefined,
  previous: { bytes: Buffer; hash: string | undefined } | undefined,
) {
  const emitOptions: EmitOptions = {
    generatorVersion: options.generatorVersion,
    ...(options.helpers ? { helpers: options.helpers } : {}),
    ...(options.templatesDir ? { templatesDir: options.templatesDir } : {}),
    ...(options.ship ? { ship: options.ship } : {}),
    ...(options.mcpName ? { mcpName: options.mcpName } : {}),
    ...projectVersion(options.outDir),
  };
  if (!textKeys || !isCompactToolsFile(guided.tools.length)) {
    // The data file's tools, computed once: the change report compares them too.
    const toolData = guided.tools.map(toToolData);
    return { files: emitProject(guided, { ...emitOptions, toolData }), toolData };
  }
  const texts = previous?.hash
    ? previousToolTexts(options.outDir, textKeys.code, previous.bytes, previous.hash)
    : new Map<string, Buffer>();
  const toolsFile = assembleToolsFile(guided, textKeys.keys, texts);
  const toolData = {
    length: guided.tools.length,
    slice: (from?: number, to?: number) => guided.tools.slice(from, to).map(toToolData),
  };
  return { files: emitProject(guided, { ...emitOptions, toolsFile: toolsFile.bytes }), toolData, toolsFile };
}

/** The emitted data/tools.json, as the write will encode it (already encoded unless this run writes nothing). */
export function toolsBytes(files: EmittedFile[] | PreparedWrite): Buffer {
  if (!Array.isArray(files))
    return files.encoded.find((entry) => entry.file.path === TOOLS_DATA_PATH)?.bytes ?? Buffer.alloc(0);
  return Buffer.from(files.find((file) => file.path === TOOLS_DATA_PATH)?.content ?? "", "utf8");
}
