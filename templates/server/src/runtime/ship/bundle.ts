/**
 * `npm run bundle`: packs the built server into an MCP bundle (`server.mcpb`) that carries
 * the production dependencies only.
 *
 * Why not `mcpb pack .`: it packs node_modules whole — the test runner, the formatter,
 * TypeScript and their native binaries for this machine only — about six times the size.
 * Here the files a host needs are copied into a staging folder, with the production
 * dependency closure of package.json, and that folder is packed.
 *
 * The bundle's version is package.json's: after `npm version`, manifest.json and server.json
 * are brought to the same version before packing (they are generator-owned; regeneration
 * reads the version from package.json too).
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { pathToFileURL } from "node:url";

/** The part of @anthropic-ai/mcpb used here (a devDependency, loaded only when bundling). */
interface McpbCli {
  packExtension(options: { extensionPath: string; outputPath?: string; silent?: boolean }): Promise<boolean>;
}

/** What a host needs from the project, besides node_modules (absent optional ones are skipped). */
const SHIPPED = ["dist", "data", "manifest.json", "package.json", "README.md", "LICENSE", "icon.png"];

interface PackageJson {
  name?: string;
  version?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

const readPackage = (dir: string): PackageJson => JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));

/** Where Node would find `name` when required from `fromDir`: the nearest node_modules up to the project root. */
function installedDir(name: string, fromDir: string, root: string): string | undefined {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return candidate;
    if (dir === root || dir === dirname(dir)) return undefined;
  }
}

/**
 * The project's production dependency closure, as folders relative to the project root.
 * A missing required dependency is an error (the bundle would not start); a missing optional
 * or peer dependency is what npm leaves out on this platform, so it is skipped.
 */
function productionPackages(root: string): string[] {
  const found = new Set<string>();
  const visit = (dir: string, pkg: PackageJson): void => {
    const required = Object.keys(pkg.dependencies ?? {});
    const optional = [...Object.keys(pkg.optionalDependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})];
    for (const name of [...required, ...optional]) {
      const at = installedDir(name, dir, root);
      if (at === undefined) {
        if (required.includes(name) && !optional.includes(name))
          throw new Error(
            `${name} (needed by ${pkg.name ?? "the project"}) is not installed — run \`npm install\` first`,
          );
        continue;
      }
      const key = relative(root, at);
      if (found.has(key)) continue;
      found.add(key);
      visit(at, readPackage(at));
    }
  };
  visit(root, readPackage(root));
  return [...found].sort();
}

/** Brings manifest.json and server.json to package.json's version; returns the files it changed. */
function syncVersions(root: string): string[] {
  const { version } = readPackage(root);
  const changed: string[] = [];
  for (const file of ["manifest.json", "server.json"]) {
    const path = join(root, file);
    if (!existsSync(path) || version === undefined) continue;
    const data = JSON.parse(readFileSync(path, "utf8")) as { version?: string; packages?: { version?: string }[] };
    const stale = data.version !== version || (data.packages ?? []).some((entry) => entry.version !== version);
    if (!stale) continue;
    data.version = version;
    for (const entry of data.packages ?? []) entry.version = version;
    writeFileSync(path, `${JSON.stringify(data, null, 2)}\n`);
    changed.push(file);
  }
  return changed;
}

/** Copies what the bundle carries into a fresh staging folder and returns it. */
function stageBundle(root: string): string {
  const stage = mkdtempSync(join(tmpdir(), "mcpb-stage-"));
  for (const entry of SHIPPED)
    if (existsSync(join(root, entry))) cpSync(join(root, entry), join(stage, entry), { recursive: true });
  for (const dir of productionPackages(root))
    cpSync(join(root, dir), join(stage, dir), { recursive: true, dereference: true });
  return stage;
}

/** Packs the project in the working folder (npm runs scripts in the project's root) into server.mcpb. */
async function bundle(root: string, output: string): Promise<void> {
  if (!existsSync(join(root, "dist", "index.js")))
    throw new Error("dist/index.js is missing — run `npm run build` first");
  const cliPath = createRequire(join(root, "package.json")).resolve("@anthropic-ai/mcpb/cli");
  const { packExtension } = (await import(pathToFileURL(cliPath).href)) as McpbCli;
  for (const file of syncVersions(root)) console.log(`${file}: version set to package.json's`);
  const stage = stageBundle(root);
  try {
    if (!(await packExtension({ extensionPath: stage, outputPath: output })))
      throw new Error("mcpb could not pack the bundle (its messages are above)");
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

// This module is a script (`npm run bundle`), never imported by the server.
await bundle(process.cwd(), join(process.cwd(), "server.mcpb")).catch((error: unknown) => {
  console.error(`bundle: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
