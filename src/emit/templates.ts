/**
 * Reads a template folder (the defaults, optionally overlaid by a user's
 * `--templates` folder with the same relative paths) and renders it with
 * Handlebars. Files ending `.hbs` are rendered; all others are copied as-is.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import type Handlebars from "handlebars";
// runtime.d.ts declares no exports; the module is Handlebars without its compiler.
import runtimeModule from "handlebars/runtime.js";
import { GeneratorError } from "../diagnostics.js";
import { codeLiteral, envValue, identifier, markdownCode, markdownText } from "./escape.js";
import { packageRoot, type TemplateFile } from "./template-files.js";

type Helpers = Record<string, (...args: never[]) => unknown>;
type HandlebarsEnv = typeof Handlebars;
type TemplateSpec = Parameters<HandlebarsEnv["template"]>[0];

/** How every template is compiled, at build time (precompile.ts) and at run time alike. */
export const PRECOMPILE_OPTIONS = { noEscape: true, strict: true } as const;
/**
 * Written by `npm run build` (see precompile.ts), relative to the package root. In the CLI bundle's folder, so the
 * bundled CLI compiles it through the V8 code cache like its own scripts (src/code-cache.ts): the module and the
 * template functions a run calls are read compiled, not compiled anew in every run. The build writes it after the
 * bundle (whose build empties that folder).
 */
export const PRECOMPILED_TEMPLATES_FILE = "dist/bin/precompiled-templates.cjs";

export function templateHash(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

function registerHelpers(handlebars: HandlebarsEnv, extraHelpers: Helpers): HandlebarsEnv {
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

type Precompiled = Record<string, { hash: string; spec: TemplateSpec }>;

/** The build's precompiled default templates; none when running from a tree that was not built. */
function loadPrecompiled(): Precompiled {
  const file = join(packageRoot(), PRECOMPILED_TEMPLATES_FILE);
  if (!existsSync(file)) return {};
  return createRequire(import.meta.url)(file) as Precompiled;
}

/**
 * Renders templates with the custom helpers. A template whose text is exactly
 * what the build precompiled runs on Handlebars' runtime; any other (an
 * override, or a default edited since the build) loads the compiler, on first need.
 */
export class TemplateRenderer {
  private runtime: HandlebarsEnv | undefined;
  private compiler: HandlebarsEnv | undefined;
  private readonly ready = new Map<TemplateFile, HandlebarsTemplateDelegate>();
  /** How many templates this renderer had to compile (none when the build's precompiled ones all apply). */
  compiledAtRunTime = 0;

  constructor(
    private readonly helpers: Helpers = {},
    private readonly precompiled: Precompiled = loadPrecompiled(),
  ) {}

  render(template: TemplateFile, context: object): string {
    try {
      return this.templateFor(template)(context);
    } catch (error) {
      throw templateError(template, error as Error);
    }
  }

  private templateFor(template: TemplateFile): HandlebarsTemplateDelegate {
    let ready = this.ready.get(template);
    if (!ready) {
      const entry = this.precompiled[template.path];
      if (entry && entry.hash === templateHash(template.content)) ready = this.runtimeEnv().template(entry.spec);
      else {
        ready = this.compilerEnv().compile(template.content, PRECOMPILE_OPTIONS);
        this.compiledAtRunTime += 1;
      }
      this.ready.set(template, ready);
    }
    return ready;
  }

  private runtimeEnv(): HandlebarsEnv {
    this.runtime ??= registerHelpers((runtimeModule as unknown as HandlebarsEnv).create(), this.helpers);
    return this.runtime;
  }

  private compilerEnv(): HandlebarsEnv {
    // Not bundled: only runs with an override or an edited default template need the compiler.
    this.compiler ??= registerHelpers(
      (createRequire(import.meta.url)("handlebars") as HandlebarsEnv).create(),
      this.helpers,
    );
    return this.compiler;
  }
}

const HELPER_FILES = ["helpers.mjs", "helpers.js"];

/** `import()`, through the CLI loader's importer when run from the code-cached bundle (see src/code-cache.ts). */
function importModule(url: string): Promise<unknown> {
  const importer = (globalThis as Record<symbol, unknown>)[Symbol.for("create-guided-mcp.import")];
  return typeof importer === "function" ? (importer as (url: string) => Promise<unknown>)(url) : import(url);
}

/**
 * Custom helpers live in `helpers.mjs` (or `helpers.js`, ESM) at the top of a
 * template folder; its default export is an object of helper functions.
 */
export async function loadTemplateHelpers(templatesDir: string | undefined): Promise<Helpers> {
  if (!templatesDir) return {};
  const file = HELPER_FILES.map((name) => join(templatesDir, name)).find((path) => existsSync(path));
  if (!file) return {};
  let module: { default?: unknown };
  try {
    module = (await importModule(pathToFileURL(file).href)) as { default?: unknown };
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
  return helpers as Helpers;
}

/** Handlebars spreads one error over several lines (message, source excerpt, what it expected). */
function templateError(template: TemplateFile, error: Error): GeneratorError {
  const message = error.message
    .split("\n")
    .map((part) => part.trim())
    .filter(Boolean)
    .join(" ");
  const line = /line (\d+)/i.exec(error.message)?.[1] ?? (error as { lineNumber?: number }).lineNumber;
  return new GeneratorError(
    `${template.source}${line ? `:${line}` : ""}`,
    `template error: ${message}`,
    "fix the template (or remove the override to use the default)",
  );
}
