/**
 * Stage 6 — emit: the guided model becomes a list of project files. Spec
 * content goes into `data/tools.json`; code comes from the templates, which
 * see spec strings only through the escaping helpers in `escape.ts`.
 */
import { isUtf8 } from "node:buffer";
import { createRequire } from "node:module";
import { GeneratorError } from "../diagnostics.js";
import type { ApiModel, GuidedApiModel, GuidedTool, ToolData, ToolModel } from "../model/ir.js";
import { credentialEnvNames, schemeEnvNames } from "../../templates/server/src/runtime/shared/credentials.js";
import { DEFAULT_AUTO_THRESHOLD, settingRows } from "../../templates/server/src/runtime/config/settings.js";
import type { ToolsFile } from "../../templates/server/src/runtime/shared/tool-data.js";
import { identifier } from "./escape.js";
import {
  MCPB_MANIFEST_PATH,
  mcpbManifest,
  REGISTRY_SERVER_PATH,
  registryServer,
  SHIP_TARGETS,
  SHIP_TEMPLATE_OUTPUTS,
  shipContext,
  type ShipTarget,
} from "./ship.js";
import { TEST_EXPECTATIONS_PATH, testExpectations } from "./test-suite.js";
import type { EmitModel, RenderModel } from "./emit-model.js";

export type { EmitModel, EmitTool, RenderModel } from "./emit-model.js";
import { TemplateRenderer } from "./templates.js";
import { DEFAULT_TEMPLATES, readTemplates, type TemplateFile } from "./template-files.js";
import { validationOnlySchema } from "../model/output-schema.js";
import { emittedBytes, isCompactToolsFile } from "./tools-file.js";
import { type FileOwner, templateOutput, withOwnershipHeader, withOwnershipHeaderBytes } from "./static-files.js";

type TsMorph = typeof import("ts-morph");

export interface EmittedFile {
  /** Relative POSIX path inside the project. */
  path: string;
  content: string;
  owner: FileOwner;
  /** `content` encoded as UTF-8, when the emitter made the bytes first (a large API's data/tools.json). */
  bytes?: Buffer;
  /** Copied as it is from a template (no Handlebars): only such a file's merge base can be the build's (known-bases.ts). */
  copied?: true;
}

export interface EmitOptions {
  generatorVersion: string;
  templatesDir?: string;
  /** Extra Handlebars helpers, from a custom template folder's helpers.js. */
  helpers?: Record<string, (...args: never[]) => unknown>;
  /** Renders the templates (default: one with `helpers` and the build's precompiled templates; tests pass their own). */
  renderer?: TemplateRenderer;
  /** Parse every emitted TypeScript file, static ones included (tests use it; generation needs only the files it changes). */
  checkAllTypeScript?: boolean;
  /** Which distribution files to write (default all: MCPB manifest, registry server.json, Dockerfile). */
  ship?: readonly ShipTarget[];
  /** The MCP Registry name (`server.json` name, `mcpName`); default a placeholder namespace. */
  mcpName?: string;
  /** The project's package version (its package.json's, when regenerating); default INITIAL_VERSION. */
  version?: string;
  /** `model.tools.map(toToolData)`, when the caller has it already (the change report needs it too). */
  toolData?: ToolData[];
  /** The bytes of data/tools.json, when the caller assembled them already (see tools-file.ts). */
  toolsFile?: Buffer;
  /** `renderProjectFiles` of this model with these options, when the caller made it ahead (see src/emit-stage.ts). */
  rendered?: RenderedFiles;
  /** `toolsOverview` of the model's tools, when the caller has it (a text-only regeneration, from its cache). */
  overview?: ToolsOverview;
}

/**
 * What the templates read of the tools (see `templateContext`): kept in the tools index (src/cache/tool-texts.ts), so
 * that a text-only regeneration renders them without reading every tool (src/cache/text-edit.ts).
 */
export interface ToolsOverview {
  count: number;
  /** The README's rows: the first `MAX_LISTED_TOOLS` tools. */
  rows: ToolRow[];
  categories: Array<{ name: string; count: number }>;
  handlerTools: Array<ReturnType<typeof handlerContext>>;
}

export interface ToolRow {
  name: string;
  summary: string;
  category: string;
  route: string;
}

/** The README lists this many tools, then says how many more there are. */
export const MAX_LISTED_TOOLS = 200;

export function toolsOverview(tools: RenderModel["tools"]): ToolsOverview {
  const categories = new Map<string, number>();
  for (const tool of tools) categories.set(tool.category, (categories.get(tool.category) ?? 0) + 1);
  return {
    count: tools.length,
    rows: tools.slice(0, MAX_LISTED_TOOLS).map(toolRow),
    categories: [...categories].map(([name, count]) => ({ name, count })),
    handlerTools: tools.filter((tool) => tool.handler).map(handlerContext),
  };
}

/** A tool's row in the README. */
export function toolRow(tool: RenderModel["tools"][number]): ToolRow {
  return {
    name: tool.name,
    summary: toolSummary(tool),
    category: tool.category,
    route: tool.operation ? `${tool.operation.method.toUpperCase()} ${tool.operation.path}` : "handler",
  };
}

/** The README's one line for a tool: its title, else its description's first line. */
export function toolSummary(tool: { title?: string | undefined; description: string }): string {
  return (tool.title ?? tool.description.split("\n")[0] ?? "").trim();
}

/** The files rendered or copied from the templates (handlers included), and what emit needs of their context. */
export interface RenderedFiles {
  files: readonly EmittedFile[];
  overview: ToolsOverview;
  /** Those the generator must parse before writing (see `checkTypeScript`). */
  toCheck: ReadonlySet<EmittedFile>;
  templates: Map<string, TemplateFile>;
  ship: readonly ShipTarget[];
  shipVersion: string;
}

const HANDLER_TEMPLATE = "handler.ts.hbs";

export const TOOLS_DATA_PATH = "data/tools.json";

export function emitProject(model: GuidedApiModel, options: EmitOptions): EmittedFile[] {
  const toolsFile = options.toolsFile
    ? emittedBytes(TOOLS_DATA_PATH, options.toolsFile)
    : {
        path: TOOLS_DATA_PATH,
        content: toolsDataJson(model, options.toolData ?? model.tools.map(toToolData)),
        owner: "generator" as const,
      };
  return emitAround(model, toolsFile, options);
}

/** The project's files around its data/tools.json, `toolsFile`. */
export function emitAround(model: EmitModel, toolsFile: EmittedFile, options: EmitOptions): EmittedFile[] {
  const { templates, ship, shipVersion, ...rendered } = options.rendered ?? renderProjectFiles(model, options);
  const files = [...rendered.files, toolsFile];
  files.push({
    path: TEST_EXPECTATIONS_PATH,
    content: JSON.stringify(testExpectations(model), null, 2) + "\n",
    owner: "generator",
  });
  if (ship.includes("mcpb"))
    files.push({
      path: MCPB_MANIFEST_PATH,
      content: JSON.stringify(mcpbManifest(model, shipVersion), null, 2) + "\n",
      owner: "generator",
    });
  if (ship.includes("registry"))
    files.push({
      path: REGISTRY_SERVER_PATH,
      content: JSON.stringify(registryServer(model, options.mcpName, shipVersion), null, 2) + "\n",
      owner: "generator",
    });
  checkTypeScript(
    files.filter((file) => rendered.toCheck.has(file)),
    templates,
  );
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * The project's files that come from the templates. They read the model's API and tools, not the tools' guidance,
 * so a large run renders them while the example worker still searches (see src/emit-stage.ts `renderAhead`).
 */
export function renderProjectFiles(model: RenderModel, options: EmitOptions): RenderedFiles {
  const templates = readTemplates(options.templatesDir);
  const renderer = options.renderer ?? new TemplateRenderer(options.helpers);
  const ship = options.ship ?? SHIP_TARGETS;
  const overview = options.overview ?? toolsOverview(model.tools);
  const context = {
    ...templateContext(model, overview, options),
    ship: shipContext(model, ship, options.mcpName, options.version),
  };
  const files: EmittedFile[] = [];
  // Emitted TypeScript that the generator must parse before writing (see `checkTypeScript`).
  const toCheck = new Set<EmittedFile>();
  const defaultsDir = DEFAULT_TEMPLATES();
  const hasHandlers = context.handlerTools.length > 0;

  for (const template of templates.values()) {
    const output = templateOutput(template.path);
    if (!output) continue;
    const { path, rendered, owner } = output;
    const target = SHIP_TEMPLATE_OUTPUTS[path];
    if (target && !ship.includes(target)) continue;
    const file = rendered
      ? textFile(path, owner, renderer.render(template, context))
      : copiedFile(template, path, owner);
    files.push(file);
    // The default templates embed spec values in TypeScript only through handler bindings.
    const overridden = !template.source.startsWith(defaultsDir);
    if (overridden || (rendered && hasHandlers) || options.checkAllTypeScript) toCheck.add(file);
  }

  const handlerTemplate = templates.get(HANDLER_TEMPLATE);
  for (const tool of model.tools) {
    if (!tool.handler) continue;
    if (!handlerTemplate)
      throw new GeneratorError(HANDLER_TEMPLATE, "template missing", "restore it from the defaults");
    const file: EmittedFile = {
      path: `src/handlers/${tool.handler.module}.ts`,
      content: renderer.render(handlerTemplate, { ...context, tool: handlerContext(tool) }),
      owner: "user",
    };
    files.push(file);
    toCheck.add(file);
  }

  return { files, overview, toCheck, templates, ship, shipVersion: context.ship.version };
}

/** A file of this text (the ownership header added to a generator-owned one). */
function textFile(path: string, owner: FileOwner, content: string): EmittedFile {
  return { path, content: owner === "generator" ? withOwnershipHeader(path, content) : content, owner };
}

/**
 * A template copied as it is: its bytes as read, the header added (`withOwnershipHeader`), its text decoded only if
 * something reads it (the write uses the bytes; a text set, by `checkTypeScript`, replaces them). Bytes that are not
 * UTF-8 are decoded at once, as before: the project gets the decoded text.
 */
function copiedFile(template: TemplateFile, path: string, owner: FileOwner): EmittedFile {
  const read = template.bytes;
  if (!read || !isUtf8(read)) return { ...textFile(path, owner, template.content), copied: true };
  let content: string | undefined;
  const file: EmittedFile = {
    path,
    owner,
    copied: true,
    bytes: owner === "generator" ? withOwnershipHeaderBytes(path, read) : read,
    get content() {
      return (content ??= file.bytes!.toString("utf8"));
    },
    set content(text: string) {
      content = text;
      delete file.bytes;
    },
  };
  return file;
}

export function toToolData(tool: GuidedTool): ToolData {
  return {
    name: tool.name,
    ...(tool.title ? { title: tool.title } : {}),
    description: tool.description,
    category: tool.category,
    ...(tool.tags.length > 0 ? { tags: tool.tags } : {}),
    ...(tool.operationId ? { operationId: tool.operationId } : {}),
    pointer: tool.pointer,
    annotations: tool.annotations,
    inputSchema: tool.inputSchema,
    ...(tool.responseSchema ? { responseSchema: validationOnlySchema(tool.responseSchema) } : {}),
    ...(tool.operation ? { operation: tool.operation } : {}),
    ...(tool.handler ? { handler: tool.handler } : {}),
    guidance: tool.guidance,
  };
}

function toolsDataJson(model: GuidedApiModel, tools: ToolData[]): string {
  const data: ToolsFile = { api: model.api, tools };
  // Readable for small APIs; compact where size dominates (GitHub, Graph).
  return JSON.stringify(data, null, isCompactToolsFile(model.tools.length) ? undefined : 2) + "\n";
}

function templateContext(model: RenderModel, overview: ToolsOverview, options: EmitOptions) {
  const { handlerTools } = overview;
  return {
    api: model.api,
    kind: model.kind,
    isOpenApi: model.kind === "openapi",
    generator: { name: "create-guided-mcp", version: options.generatorVersion },
    toolCount: overview.count,
    tools: overview.rows,
    moreTools: Math.max(0, overview.count - MAX_LISTED_TOOLS),
    categories: overview.categories,
    credentials: model.api.securitySchemes.map((scheme) => ({
      scheme: scheme.name,
      kind: scheme.kind,
      envs: schemeEnvNames(scheme),
      parameters: (model.credentialParameters ?? [])
        .filter((note) => note.scheme === scheme.name)
        .map((note) => `${note.in} \`${note.name}\``)
        .join(", "),
    })),
    quickStart: quickStart(model),
    // The configuration table comes from the runtime's own settings table: the README cannot drift from the parser.
    settings: settingRows(model.api),
    credentialParameters: (model.credentialParameters ?? [])
      .map((note) => `\`${note.name}\``)
      .filter((name, index, all) => all.indexOf(name) === index)
      .join(", "),
    handlerTools,
    hasHandlers: handlerTools.length > 0,
    toolMode: model.api.toolMode ?? "auto",
    autoThreshold: model.api.autoThreshold ?? DEFAULT_AUTO_THRESHOLD,
  };
}

/**
 * The README's quick start sets one thing: the first scheme's first credential env var (the table lists the
 * others), or else the base URL when the spec declares none.
 */
function quickStart(model: RenderModel): { credential?: string; more: boolean; baseUrl: boolean } {
  const names = credentialEnvNames(model.api.securitySchemes);
  const baseUrl = model.kind === "openapi" && !model.api.baseUrl;
  return { ...(names[0] ? { credential: names[0] } : {}), more: names.length > 1, baseUrl };
}

function handlerContext(tool: Pick<ToolModel, "name" | "handler">) {
  return { name: tool.name, module: tool.handler?.module ?? tool.name, binding: identifier(tool.name, "handle_") };
}

/**
 * The given TypeScript files must parse, and the handler registry gets its
 * imports organised. A failure names the template it came from. Called with
 * the files a run can change: rendered with spec values, or from a user's
 * template override. The static default files are parsed by our own tests,
 * so a run without such files never loads TypeScript (most of a small run's time).
 */
function checkTypeScript(candidates: EmittedFile[], templates: Map<string, TemplateFile>): void {
  const files = candidates.filter((file) => file.path.endsWith(".ts"));
  if (files.length === 0) return;
  const { Project, ts } = loadTsMorph();
  // Only syntax is checked here (tsc checks types when the project builds), so no lib files are loaded.
  const project = new Project({
    useInMemoryFileSystem: true,
    compilerOptions: { target: ts.ScriptTarget.ES2022, noLib: true, types: [] },
  });
  const sourceFiles = files.map((file) =>
    project.createSourceFile(`/project/${file.path}`, file.content, { overwrite: true }),
  );
  // One program for all files: building it per file costs seconds.
  const program = project.getProgram().compilerObject;
  files.forEach((file, index) => {
    const sourceFile = sourceFiles[index]!;
    const first = program.getSyntacticDiagnostics(sourceFile.compilerNode)[0];
    if (first) {
      const templatePath =
        [...templates.values()].find((t) => t.path.endsWith(file.path) || t.path.endsWith(`${file.path}.hbs`))
          ?.source ?? file.path;
      const { line, character } = first.file
        ? first.file.getLineAndCharacterOfPosition(first.start ?? 0)
        : { line: 0, character: 0 };
      throw new GeneratorError(
        `${templatePath} (emitted ${file.path}:${line + 1}:${character + 1})`,
        `emitted TypeScript does not parse: ${ts.flattenDiagnosticMessageText(first.messageText, " ")}`,
        "fix the template",
      );
    }
  });
  files.forEach((file, index) => {
    if (!file.path.startsWith("src/runtime/handlers")) return;
    sourceFiles[index]!.organizeImports();
    file.content = sourceFiles[index]!.getFullText();
  });
}

function loadTsMorph(): TsMorph {
  return createRequire(import.meta.url)("ts-morph") as TsMorph;
}
