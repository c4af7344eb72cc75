/**
 * A V8 code cache for the bundled CLI. Compiling the ≈ 2 MB bundle is a large
 * share of a small run, and Node 20 has no compile cache for ES modules
 * (`module.enableCompileCache` came in Node 22), so the bundle is CommonJS and
 * its scripts are compiled here with `vm.Script` and V8's `cachedData`, kept
 * in the user's cache folder (`$XDG_CACHE_HOME` or `~/.cache`, then
 * `create-guided-mcp/code-cache/`; `GUIDED_MCP_CODE_CACHE=0` turns it off).
 *
 * The cache can only save time, never change what runs: each entry starts
 * with the SHA-256 of the script it was made from and is used only for that
 * exact text (V8's own check compares lengths only), and V8 rejects data from
 * another V8 version or other flags. A missing, stale, foreign or corrupt
 * entry is simply rewritten; a cache folder that cannot be written is ignored.
 *
 * An entry holds what V8 had compiled when it was made, at the end of a run:
 * what that kind of run calls. A run of another kind (a regeneration after a
 * cold run, a large API after a small one) compiles the rest of what it calls
 * anew each time (≈ 7–20 ms of a GitHub regeneration or a Stripe run). So the
 * first run of each kind, told apart by the scripts it loaded (a record beside
 * the entries, `<installation>-runs.txt`), also rewrites each entry it used
 * whose data has grown: the entries come to hold what every kind of run calls.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import Module, { createRequire } from "node:module";
import { homedir } from "node:os";
import { basename, dirname, join, sep } from "node:path";
import vm from "node:vm";
import { replaceFileSync } from "./cache/replace-file.js";
import { pruneCodeCache } from "./code-cache-prune.js";

const DIGEST_BYTES = 32;
const INSTALLATION_CHARS = 16;

interface Loaded {
  script: vm.Script;
  /** Its entry. */
  file: string;
  digest: Buffer;
  /** The length of the cached data V8 accepted for it; undefined when it had none (its entry is written). */
  cached?: number;
}

type Compile = (this: Module, content: string, filename: string, ...rest: unknown[]) => unknown;

export interface CachedLoad<T> {
  exports: T;
  /** Writes the entries this run had to make, or grew (call it once the work is done: V8 includes what it compiled meanwhile). */
  save(): void;
}

/** The user-level cache folder, or none when turned off. */
export function defaultCodeCacheDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.GUIDED_MCP_CODE_CACHE === "0") return undefined;
  const base = env.XDG_CACHE_HOME || (process.platform === "win32" ? env.LOCALAPPDATA : undefined);
  return join(
    base || join(homedir(), ".cache"),
    "create-guided-mcp",
    "code-cache",
    `${process.version}-${process.arch}`,
  );
}

/**
 * Where the bundle finds `import()`: in Node 20 a `vm.Script` cannot import ES modules (its
 * `importModuleDynamically` needs --experimental-vm-modules, and is lost with cached data), so
 * the bundle asks this module, which Node loaded as an ES module, to import for it.
 */
export const IMPORTER = Symbol.for("create-guided-mcp.import");

/** Requires `entry` (CommonJS); every script under its folder, the lazily loaded chunks too, goes through the cache. */
export function requireWithCodeCache<T>(entry: string, cacheDir = defaultCodeCacheDir()): CachedLoad<T> {
  const loaded: Loaded[] = [];
  (globalThis as Record<symbol, unknown>)[IMPORTER] = (url: string) => import(url);
  if (cacheDir) {
    const root = dirname(entry) + sep;
    const prototype = Module.prototype as unknown as { _compile: Compile };
    const original = prototype._compile;
    prototype._compile = function (content, filename, ...rest) {
      if (!filename.startsWith(root)) return original.call(this, content, filename, ...rest);
      return compileCached(this, content, filename, join(cacheDir, entryName(filename)), loaded);
    };
  }
  const exports = createRequire(import.meta.url)(entry) as T;
  return { exports, save: () => saveAll(cacheDir, loaded.splice(0)) };
}

/**
 * One entry per bundle script and installation: the chunk's name without its content hash, so a rebuild's
 * renamed chunks replace their entries instead of adding to them.
 */
function entryName(filename: string): string {
  const stem = basename(filename, ".js").replace(/-[\w-]{8}$/, "");
  return `${installation(filename)}-${stem}.bin`;
}

/** The prefix of an installation's entries: its bundle folder's hash. */
function installation(filename: string): string {
  return createHash("sha256").update(dirname(filename)).digest("hex").slice(0, INSTALLATION_CHARS);
}

/** What Node's own `_compile` does for a CommonJS file, with V8's cached data. */
function compileCached(module: Module, content: string, filename: string, file: string, loaded: Loaded[]): unknown {
  const digest = createHash("sha256").update(content).digest();
  const cachedData = readEntry(file, digest);
  const script = new vm.Script(Module.wrap(content), {
    filename,
    ...(cachedData ? { cachedData } : {}),
  });
  const accepted = cachedData && !script.cachedDataRejected;
  loaded.push({ script, file, digest, ...(accepted ? { cached: cachedData.length } : {}) });
  const wrapper = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
  return wrapper.call(module.exports, module.exports, createRequire(filename), module, filename, dirname(filename));
}

function readEntry(file: string, digest: Buffer): Buffer | undefined {
  try {
    const stored = readFileSync(file);
    return stored.length > DIGEST_BYTES && stored.subarray(0, DIGEST_BYTES).equals(digest)
      ? stored.subarray(DIGEST_BYTES)
      : undefined;
  } catch {
    return undefined;
  }
}

function saveAll(cacheDir: string | undefined, loaded: Loaded[]): void {
  if (!cacheDir || loaded.length === 0) return;
  const runs = runsRecord(cacheDir, loaded);
  const firstOfItsKind = !runs.seen.includes(runs.kind);
  const missing = loaded.filter((script) => script.cached === undefined);
  if (missing.length === 0 && !firstOfItsKind) return;
  try {
    mkdirSync(cacheDir, { recursive: true });
  } catch {
    return;
  }
  for (const { script, file, digest, cached } of loaded) {
    if (cached !== undefined && !firstOfItsKind) continue;
    const data = script.createCachedData();
    if (cached === undefined || data.length > cached) writeEntry(file, Buffer.concat([digest, data]));
  }
  if (firstOfItsKind) writeEntry(runs.file, Buffer.from([runs.build, ...runs.seen, runs.kind].join("\n") + "\n"));
  // Only a run that writes here looks for what other installations left (see src/code-cache-prune.ts).
  pruneCodeCache(cacheDir, basename(runs.file).slice(0, INSTALLATION_CHARS));
}

/**
 * The kinds of run that have saved their entries for this build: a first line naming the build (the entry
 * script's hash), then one line per kind, the names of the scripts such a run loaded.
 */
function runsRecord(cacheDir: string, loaded: Loaded[]): { file: string; build: string; kind: string; seen: string[] } {
  const entry = loaded[0]!;
  // Beside the entries, named by their installation prefix.
  const file = join(cacheDir, `${basename(entry.file).slice(0, INSTALLATION_CHARS)}-runs.txt`);
  const build = entry.digest.toString("hex");
  const kind = [...new Set(loaded.map((script) => basename(script.file, ".bin").slice(INSTALLATION_CHARS + 1)))]
    .sort()
    .join(" ");
  let lines: string[] = [];
  try {
    lines = readFileSync(file, "latin1").split("\n");
  } catch {
    // None yet.
  }
  return { file, build, kind, seen: lines[0] === build ? lines.slice(1).filter(Boolean) : [] };
}

/** Written beside and renamed: a concurrent run reads the old file or the new one, never half of one. */
function writeEntry(file: string, bytes: Buffer): void {
  try {
    replaceFileSync(file, bytes);
  } catch {
    // A folder that cannot be written: the entry is made again next run.
  }
}
