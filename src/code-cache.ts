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
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import Module, { createRequire } from "node:module";
import { homedir } from "node:os";
import { basename, dirname, join, sep } from "node:path";
import vm from "node:vm";

const DIGEST_BYTES = 32;

interface Pending {
  script: vm.Script;
  file: string;
  digest: Buffer;
}

type Compile = (this: Module, content: string, filename: string, ...rest: unknown[]) => unknown;

export interface CachedLoad<T> {
  exports: T;
  /** Writes the cache entries this run had to make (call it once the work is done: V8 includes what it compiled meanwhile). */
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
  const pending: Pending[] = [];
  (globalThis as Record<symbol, unknown>)[IMPORTER] = (url: string) => import(url);
  if (cacheDir) {
    const root = dirname(entry) + sep;
    const prototype = Module.prototype as unknown as { _compile: Compile };
    const original = prototype._compile;
    prototype._compile = function (content, filename, ...rest) {
      if (!filename.startsWith(root)) return original.call(this, content, filename, ...rest);
      return compileCached(this, content, filename, join(cacheDir, entryName(filename)), pending);
    };
  }
  const exports = createRequire(import.meta.url)(entry) as T;
  return { exports, save: () => saveAll(cacheDir, pending) };
}

/**
 * One entry per bundle script and installation: the chunk's name without its content hash, so a rebuild's
 * renamed chunks replace their entries instead of adding to them.
 */
function entryName(filename: string): string {
  const stem = basename(filename, ".js").replace(/-[\w-]{8}$/, "");
  return `${createHash("sha256").update(dirname(filename)).digest("hex").slice(0, 16)}-${stem}.bin`;
}

/** What Node's own `_compile` does for a CommonJS file, with V8's cached data. */
function compileCached(module: Module, content: string, filename: string, file: string, pending: Pending[]): unknown {
  const digest = createHash("sha256").update(content).digest();
  const cachedData = readEntry(file, digest);
  const script = new vm.Script(Module.wrap(content), {
    filename,
    ...(cachedData ? { cachedData } : {}),
  });
  if (!cachedData || script.cachedDataRejected) pending.push({ script, file, digest });
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

function saveAll(cacheDir: string | undefined, pending: Pending[]): void {
  if (!cacheDir || pending.length === 0) return;
  try {
    mkdirSync(cacheDir, { recursive: true });
  } catch {
    return;
  }
  for (const { script, file, digest } of pending.splice(0)) {
    // Written beside and renamed: a concurrent run reads the old entry or the new one, never half of one.
    const temporary = `${file}.${process.pid}-${randomBytes(4).toString("hex")}`;
    try {
      writeFileSync(temporary, Buffer.concat([digest, script.createCachedData()]));
      renameSync(temporary, file);
    } catch {
      rmSync(temporary, { force: true });
    }
  }
}
