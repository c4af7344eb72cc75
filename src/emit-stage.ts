/**
 * The emit stage of a run (see generate.ts): the project's files, with a large
 * API's data/tools.json assembled from the last generation's unchanged tool
 * texts when the project's caches allow it (see src/cache/tool-texts.ts).
 */
import { assembleToolsFile, previousToolTexts, type TextKeys } from "./cache/tool-texts.js";
import {
  emitProject,
  renderProjectFiles,
  toToolData,
  toolsOverview,
  TOOLS_DATA_PATH,
  type EmitOptions,
  type EmittedFile,
  type RenderedFiles,
} from "./emit/index.js";
import { sameMembers } from "./emit/tool-members.js";
import { isCompactToolsFile } from "./emit/tools-file.js";
import { emitTextEdit } from "./emit/file-tools.js";
import type { TextEdit } from "./cache/text-edit.js";
import type { ApiModel, GuidedApiModel } from "./model/ir.js";
import { hasLazySchema } from "./model/lazy-schema.js";
import type { PreparedWrite } from "./write/index.js";
import { projectVersion } from "./write/previous.js";

/**
 * Emit. A large API's data/tools.json is assembled tool by tool, taking each unchanged tool's JSON from the last
 * generation's file (see src/cache/tool-texts.ts); `toolData` then converts only the tools the change report asks for.
 */
export function emitFiles(
  guided: GuidedApiModel,
  options: StageOptions,
  textKeys: TextKeys | undefined,
  previous: { bytes: Buffer; hash: string | undefined } | undefined,
  ahead?: RenderedAhead,
) {
  const made = ahead && sameModel(ahead.model, guided) ? ahead : undefined;
  const emitOptions: EmitOptions = made ? { ...made.options, rendered: made.rendered } : emitOptionsOf(options);
  if (!textKeys || !isCompactToolsFile(guided.tools.length)) {
    // The data file's tools, computed once: the change report compares them too.
    const toolData = guided.tools.map(toToolData);
    return { files: emitProject(guided, { ...emitOptions, toolData }), toolData };
  }
  const texts = previous?.hash
    ? previousToolTexts(options.outDir, textKeys, previous.bytes, previous.hash)
    : new Map<string, Buffer>();
  // The tools index keeps what the templates read of the tools, for a later text-only regeneration.
  const overview = made?.rendered.overview ?? toolsOverview(guided.tools);
  const toolsFile = { ...assembleToolsFile(guided, textKeys.keys, texts), overview };
  const toolData = {
    length: guided.tools.length,
    slice: (from?: number, to?: number) => guided.tools.slice(from, to).map(toToolData),
  };
  const files = emitProject(guided, { ...emitOptions, toolsFile: toolsFile.bytes, overview });
  return { files, toolData, toolsFile };
}

/** Emit after a text-only regeneration (src/cache/text-edit.ts): from data/tools.json, no tool object. */
export function emitAfterTextEdit(edit: TextEdit, options: StageOptions, room?: Buffer) {
  return emitTextEdit(edit, emitOptionsOf(options), room);
}

type StageOptions = Pick<EmitOptions, "generatorVersion" | "helpers" | "templatesDir" | "ship" | "mcpName"> & {
  outDir: string;
};

function emitOptionsOf(options: StageOptions): EmitOptions {
  return {
    generatorVersion: options.generatorVersion,
    ...(options.helpers ? { helpers: options.helpers } : {}),
    ...(options.templatesDir ? { templatesDir: options.templatesDir } : {}),
    ...(options.ship ? { ship: options.ship } : {}),
    ...(options.mcpName ? { mcpName: options.mcpName } : {}),
    ...projectVersion(options.outDir),
  };
}

/** The project's templates rendered for a model before its guidance (see `renderAhead`). */
export interface RenderedAhead {
  model: ApiModel;
  options: EmitOptions;
  rendered: RenderedFiles;
}

/**
 * The files emit renders from the templates, made while the example worker still searches (src/guide-stage.ts): they
 * read the API and the tools' names, texts and operations, never the guidance. Used by `emitFiles` only for a guided
 * model made of these very values. Not for a model read from the cache (its schemas would be parsed to compare them),
 * and not when rendering fails: emit then renders again, and reports the failure where it always did.
 */
export function renderAhead(model: ApiModel, options: StageOptions): RenderedAhead | undefined {
  if (model.tools.some(hasLazySchema)) return undefined;
  const emitOptions = emitOptionsOf(options);
  try {
    return { model, options: emitOptions, rendered: renderProjectFiles(model, emitOptions) };
  } catch {
    return undefined;
  }
}

/** Whether `guided` is `model` with guidance: the same members, and the same tools but for their guidance. */
function sameModel(model: ApiModel, guided: GuidedApiModel): boolean {
  const keys = Object.keys(model) as Array<keyof ApiModel>;
  if (Object.keys(guided).length !== keys.length || model.tools.length !== guided.tools.length) return false;
  for (const key of keys) if (key !== "tools" && key !== "diagnostics" && guided[key] !== model[key]) return false;
  return model.tools.every((tool, index) => sameMembers(tool, guided.tools[index]!));
}

/** The emitted data/tools.json, as the write will encode it (already encoded unless this run writes nothing). */
export function toolsBytes(files: EmittedFile[] | PreparedWrite): Buffer {
  if (!Array.isArray(files))
    return files.encoded.find((entry) => entry.file.path === TOOLS_DATA_PATH)?.bytes ?? Buffer.alloc(0);
  return Buffer.from(files.find((file) => file.path === TOOLS_DATA_PATH)?.content ?? "", "utf8");
}
