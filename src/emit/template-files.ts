/**
 * The template folder's files as they are (no Handlebars): read by emit, and by the example worker, which writes a
 * fresh project's files copied as they are while this thread still works (see src/write/early.ts).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { GeneratorError } from "../diagnostics.js";

export interface TemplateFile {
  /** Relative POSIX path inside the template folder, e.g. `server/src/index.ts`. */
  path: string;
  /** Absolute path of the file actually used (default or override). */
  source: string;
  content: string;
  /** The file's bytes, when read from a folder (`content` is their UTF-8 decoding, made at its first use). */
  bytes?: Buffer;
}

let root: string | undefined;

/** The generator's package folder (found once per process: several stages ask, each walk is a few `existsSync`). */
export function packageRoot(): string {
  return (root ??= findPackageRoot());
}

function findPackageRoot(): string {
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
    for (const { path, source } of walk(dir, "")) {
      if (path.startsWith("helpers/") || path === "helpers.js" || path === "helpers.mjs") continue;
      files.set(path, readTemplate(path, source));
    }
  }
  return files;
}

/**
 * A template file as read: decoded only when its text is asked for. Most are copied into a project as they are,
 * which needs their bytes (src/emit/index.ts), not a string decoded and encoded again (≈ 1 ms for the 82 defaults).
 */
function readTemplate(path: string, source: string): TemplateFile {
  const bytes = readFileSync(source);
  let content: string | undefined;
  return {
    path,
    source,
    bytes,
    get content() {
      return (content ??= bytes.toString("utf8"));
    },
  };
}

/**
 * The folder's files in name order, depth first, each with its POSIX path relative to the folder. The folder's
 * entries carry their types: no `stat` per file (82 of them for the defaults), only for a symbolic link.
 */
function walk(dir: string, prefix: string): Array<{ path: string; source: string }> {
  const result: Array<{ path: string; source: string }> = [];
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  );
  for (const entry of entries) {
    if (entry.name === "node_modules" || entry.name === "dist") continue;
    const source = join(dir, entry.name);
    const path = prefix + entry.name;
    const isDirectory = entry.isSymbolicLink() ? statSync(source).isDirectory() : entry.isDirectory();
    if (isDirectory) result.push(...walk(source, `${path}/`));
    else result.push({ path, source });
  }
  return result;
}
