/**
 * What a cache entry's validity rests on besides its inputs: the generator's own
 * code as installed, and the versions of the libraries that shape the result.
 * Hashing the code itself (not just the version number) means an unreleased edit
 * invalidates every entry too.
 */
import { createHash, type Hash } from "node:crypto";
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

/**
 * The folders holding the code that runs: the bundle (dist/bin) when run from it;
 * otherwise the generator's tree (compiled or source) and the shared runtime files.
 */
function codeRoots(): string[] {
  if (basename(here) === "bin") return [here];
  return [join(here, ".."), join(here, "..", "..", "templates", "server", "src", "runtime")];
}

/** A hex hash of `label`, the given libraries' versions and every code file under `codeRoots()`. */
export function codeFingerprint(label: string, libraries: readonly string[]): string {
  const hash = createHash("sha256").update(`${label}\0`);
  const require = createRequire(import.meta.url);
  for (const name of libraries) {
    const pkg = JSON.parse(readFileSync(packageJsonOf(require, name), "utf8")) as { version: string };
    hash.update(`${name} ${pkg.version}\0`);
  }
  return hash.update(codeDigest()).digest("hex");
}

let digest: string | undefined;

/**
 * The hash of every code file, read once per process (each cache asks; the bundle is ≈ 2.7 MB). Each file is read
 * through one reused buffer: a buffer per file was ≈ 2.7 MB of fresh memory to fault in, about half the time.
 */
function codeDigest(): string {
  if (digest === undefined) {
    const hash = createHash("sha256");
    const buffer = Buffer.allocUnsafe(READ_CHUNK);
    for (const root of codeRoots())
      for (const path of filesUnder(root)) hashFile(hash.update(path.slice(root.length)), path, buffer);
    digest = hash.digest("hex");
  }
  return digest;
}

const READ_CHUNK = 256 << 10;

/** Feeds the file's bytes to `hash` (the same digest as one `update` with the whole file). */
function hashFile(hash: Hash, path: string, buffer: Buffer): void {
  const descriptor = openSync(path, "r");
  try {
    let read: number;
    while ((read = readSync(descriptor, buffer, 0, buffer.length, null)) > 0) hash.update(buffer.subarray(0, read));
  } finally {
    closeSync(descriptor);
  }
}

function packageJsonOf(require: NodeJS.Require, name: string): string {
  // Not require.resolve(`${name}/package.json`): packages with an `exports` map may refuse it.
  for (const dir of require.resolve.paths(name) ?? []) {
    const candidate = join(dir, name, "package.json");
    if (existsSync(candidate)) return candidate;
  }
  throw new Error(`cannot find package.json of ${name}`);
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(full));
    else if (/\.(js|ts)$/.test(entry.name) && !entry.name.endsWith(".d.ts")) out.push(full);
  }
  return out;
}
