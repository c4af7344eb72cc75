/**
 * Reads a template folder (the defaults, optionally overlaid by a user's
 * `--templates` folder with the same relative paths) and renders it with
 * Handlebars. Files ending `.hbs` are rendered; all others are copied as-is.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import Handlebars from "handlebars";
import { GeneratorError } from "../diagnostics.js";
import { codeLiteral, envValue, identifier, markdownCode, markdownText } from "./escape.js";

export interface TemplateFile {
  /** Relative POSIX path inside the template folder, e.g. `server/src/index.ts`. */
  path: string;
  /** Absolute path of the file actually used (default or override). */
  source: string;
  content: string;
}

export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  // dist/ holds a compiled copy of templates/server/src/runtime, so look for package.json too.
  while (!existsSync(join(dir, "templates", "server")) || !existsSync(join(dir, "package.json"))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error("create-guided-mcp: cannot find its templates folder");
    dir = parent;
  }
  return dir;
}

export const DEFAULT_TEMPLATES = (): string => join(packageRoot(), "templates");

export function readTemplates(overrideDir?: string): Map<string, TemplateFile> {
  const files = new Map<string, TemplateFile>();
  for (const dir of [DEFAULT_TEMPLATES(), overrideDir].filter((d): d is string => Boolean(d))) {
    if (!existsSync(dir))
      throw new GeneratorError(
        dir,
        "template folder not found",
        "pass an existing folder to --templates (see `create-guided-mcp templates eject`)",
      );
    for (const file of walk(dir)) {
      const path = relative(dir, file).split(sep).join("/");
      if (path.startsWith("helpers/") || path === "helpers.js" || path === "helpers.mjs") continue;
      files.set(path, { path, source: file, content: readFileSync(file, "utf8") });
    }
  }
  return files;
}

function walk(dir: string): string[] {
  const result: string[] = [];
  for (const entry of readdirSync(dir).sort()) {
    if (entry === "node_modules" || entry === "dist") continue;
    const full = join(dir, entry);
    if (statSync(full).isDirectory()) result.push(...walk(full));
    else result.push(full);
  }
  return result;
}

export function createHandlebars(extraHelpers: Record<string, (...args: never[]) => unknown> = {}): typeof Handlebars {
  const handlebars = Handlebars.create();
  handlebars.registerHelper("json", (value: unknown) => codeLiteral(value));
  handlebars.registerHelper("identifier", (value: unknown) => identifier(String(value)));
  handlebars.registerHelper("md", (value: unknown) => markdownText(value));
  handlebars.registerHelper("code", (value: unknown) => markdownCode(value));
  handlebars.registerHelper("line", (value: unknown) => String(value ?? "").replace(/[\r\n\u2028\u2029]+/g, " "));
  handlebars.registerHelper("env", (value: unknown) => envValue(value));
  handlebars.registerHelper("eq", (left: unknown, right: unknown) => left === right);
  // Handlebars passes its options object last; drop it.
  handlebars.registerHelper("concat", (...parts: unknown[]) => parts.slice(0, -1).map(String).join(""));
  for (const [name, helper] of Object.entries(extraHelpers))
    handlebars.registerHelper(name, helper as Handlebars.HelperDelegate);
  return handlebars;
}

const HELPER_FILES = ["helpers.mjs", "helpers.js"];

/**
 * Custom helpers live in `helpers.mjs` (or `helpers.js`, ESM) at the top of a
 * template folder; its default export is an object of helper functions.
 */
export async function loadTemplateHelpers(
  templatesDir: string | undefined,
): Promise<Record<string, (...args: never[]) => unknown>> {
  if (!templatesDir) return {};
  const file = HELPER_FILES.map((name) => join(templatesDir, name)).find((path) => existsSync(path));
  if (!file) return {};
  let module: { default?: unknown };
  try {
    module = (await import(pathToFileURL(file).href)) as { default?: unknown };
  } catch (error) {
    throw new GeneratorError(
      file,
      `custom helpers could not be loaded (${(error as Error).message.split("\n")[0]})`,
      "fix the file; it must be an ES module whose default export is an object of functions",
    );
  }
  const helpers = module.default;
  if (
    typeof helpers !== "object" ||
    helpers === null ||
    Object.values(helpers).some((value) => typeof value !== "function")
  ) {
    throw new GeneratorError(
      file,
      "the default export is not an object of helper functions",
      "export default { myHelper(value) { … } }",
    );
  }
  return helpers as Record<string, (...args: never[]) => unknown>;
}

export function renderTemplate(handlebars: typeof Handlebars, template: TemplateFile, context: object): string {
  try {
    const compiled = handlebars.compile(template.content, { noEscape: true, strict: true });
    return compiled(context);
  } catch (error) {
    // Handlebars spreads one error over several lines (message, source excerpt, what it expected).
    const message = (error as Error).message
      .split("\n")
      .map((part) => part.trim())
      .filter(Boolean)
      .join(" ");
    const line = /line (\d+)/i.exec((error as Error).message)?.[1] ?? (error as { lineNumber?: number }).lineNumber;
    throw new GeneratorError(
      `${template.source}${line ? `:${line}` : ""}`,
      `template error: ${message}`,
      "fix the template (or remove the override to use the default)",
    );
  }
}
