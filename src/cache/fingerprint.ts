/**
 * What a cache entry's validity rests on besides its inputs: the generator's own
 * code as installed, and the versions of the libraries that shape the result.
 * Hashing the code itself (not just the version number) means an unreleased edit
 * invalidates every entry too.
 */
import { createHash, type Hash } from "node:crypto";
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { defaultCodeCacheDir } from "../code-cache.js";
import { replaceFileSync } from "./replace-file.js";

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
 * The hash of every code file, made once per process (each cache asks; the bundle is ≈ 2.4 MB, ≈ 3 ms to read and
 * hash). A run that finds every file as the last hashing run left it (see `stamps`) takes that run's hash instead.
 */
function codeDigest(): string {
  if (digest === undefined) {
    const roots = codeRoots();
    digest = digestOfCode(roots, recordFile(roots));
  }
  return digest;
}

/** The hash of every code file under `roots`, taken from `record` when it still holds, else made and recorded. */
export function digestOfCode(roots: readonly string[], record: string | undefined, now = Date.now()): string {
  const files = roots.flatMap((root) => filesUnder(root).map((path) => ({ root, path })));
  const stamps = stampsOf(files, now);
  const known = knownDigest(record, stamps);
  if (known) return known;
  const made = hashFiles(files);
  if (stamps.settled && record) writeRecord(record, `${made}\n${stamps.text}`);
  return made;
}

/**
 * Each file's name, size, inode and change times. A file's contents cannot change without its ctime moving to the
 * time of the change (writing, renaming over it or resetting its mtime all set ctime to "now"), so equal stamps are
 * the same bytes, as long as the change did not fall within the clock tick of the recorded stamp: a record is only
 * written when every ctime is older than `SETTLED_MS` (git's "racily clean" problem, avoided).
 */
function stampsOf(
  files: ReadonlyArray<{ root: string; path: string }>,
  now: number,
): { text: string; settled: boolean } {
  const settledBefore = now - SETTLED_MS;
  let text = "";
  let settled = true;
  for (const { root, path } of files) {
    const stat = statSync(path);
    if (!(stat.ctimeMs < settledBefore && stat.mtimeMs < settledBefore)) settled = false;
    text += `${path.slice(root.length)}\t${stat.size}\t${stat.ino}\t${stat.mtimeMs}\t${stat.ctimeMs}\n`;
  }
  return { text, settled };
}

const SETTLED_MS = 2000;

function hashFiles(files: ReadonlyArray<{ root: string; path: string }>): string {
  const hash = createHash("sha256");
  const buffer = Buffer.allocUnsafe(READ_CHUNK);
  for (const { root, path } of files) hashFile(hash.update(path.slice(root.length)), path, buffer);
  return hash.digest("hex");
}

/**
 * Where the last hashing run left its hash and the stamps it was made under: beside the V8 code cache (the same
 * user-level folder, the same switch), named by the code's folders. None when that cache is turned off.
 */
function recordFile(roots: readonly string[]): string | undefined {
  const dir = defaultCodeCacheDir();
  if (!dir) return undefined;
  return join(dir, `${createHash("sha256").update(roots.join("\0")).digest("hex").slice(0, 16)}-code-digest.txt`);
}

/** The recorded hash when the record's stamps are this run's, byte for byte; a missing or other record is none. */
function knownDigest(record: string | undefined, stamps: { text: string }): string | undefined {
  if (!record) return undefined;
  let text: string;
  try {
    text = readFileSync(record, "latin1");
  } catch {
    return undefined;
  }
  const newline = text.indexOf("\n");
  const recorded = text.slice(0, newline);
  return /^[0-9a-f]{64}$/.test(recorded) && text.slice(newline + 1) === stamps.text ? recorded : undefined;
}

/** Written beside and renamed (a concurrent run reads the old record or the new one); a failure only loses the record. */
function writeRecord(record: string, text: string): void {
  try {
    replaceFileSync(record, text, "latin1");
  } catch {
    // A folder that cannot be written only loses the record (and the next run hashes again).
  }
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
