/**
 * The merge bases: the pristine last generation of each generator-owned file,
 * under `.guided-mcp/base/`, so the next regeneration can merge a user's edits
 * three ways (see merge.ts). Small ones are gzipped (`<path>.gz`); large ones
 * (GitHub's 6 MB data/tools.json) are kept as they are (`<path>`), see `RAW_BASE_SIZE`.
 */
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { EmittedFile } from "../emit/index.js";
import { gunzipSync, gzipSync } from "node:zlib";
import { hashBytesOnce, hashContent } from "./hash.js";
import { knownBase } from "./known-bases.js";

export { hashContent };

export const BASE_DIR = ".guided-mcp/base";

/**
 * Bases at least this large are written uncompressed. Gzipping GitHub's 6 MB tools file took ≈ 45 ms of the
 * thread pool in every run that changed it (a one-tool regeneration waited 30–45 ms for it, longer on a busy
 * machine, the pool's threads running at the lowest priority), where writing its bytes takes a few. The cost is
 * disk: the base is as large as the file (GitHub 6 MB instead of 0.5, Microsoft Graph 95 MB instead of 5); in git,
 * which compresses and deltas text itself, an unedited file and its base are the same object.
 */
export const RAW_BASE_SIZE = 256 * 1024;

/** Where the base of `path` goes, for a file of `size` bytes. */
export function basePath(root: string, path: string, size: number): string {
  return size >= RAW_BASE_SIZE ? join(root, BASE_DIR, path) : join(root, BASE_DIR, `${path}.gz`);
}

/** The base kept for `path`, whichever form it is in (an earlier version gzipped every one), if any. */
export function existingBase(root: string, path: string): string | undefined {
  const raw = join(root, BASE_DIR, path);
  if (existsSync(raw)) return raw;
  const gzipped = `${raw}.gz`;
  return existsSync(gzipped) ? gzipped : undefined;
}

/** The base kept for `path`, if it is there and still what the manifest recorded (`recorded` is its hash). */
export function readBase(outDir: string, path: string, recorded: string): string | undefined {
  return readBaseBytes(outDir, path, recorded)?.toString("utf8");
}

/** `readBase`'s bytes, undecoded. */
export function readBaseBytes(outDir: string, path: string, recorded: string): Buffer | undefined {
  const file = existingBase(outDir, path);
  if (file === undefined) return undefined;
  try {
    const stored = readFileSync(file);
    const bytes = file.endsWith(".gz") ? gunzipSync(stored) : stored;
    return hashContent(bytes) === recorded ? bytes : undefined;
  } catch {
    return undefined;
  }
}

/** The stored form of the new bases: large ones as they are, small ones known already or gzipped now. */
export class BaseCompressor {
  /** `known`: the base of a file by the hash of its bytes, when it is known already (the build's, see known-bases.ts). */
  constructor(private readonly known: (hash: string) => Buffer | undefined = knownBase) {}

  /**
   * What to write at `basePath(…, bytes.length)` for `file`, of these bytes (`hash`: their hash). The build's bases
   * are looked up only for a file copied from a template: a regeneration that changes only rendered files (a
   * README after a summary edit) then neither reads nor checks the pack (≈ 0.7 ms).
   */
  compressed(file: Pick<EmittedFile, "copied">, bytes: Buffer, hash: string): Buffer {
    if (bytes.length >= RAW_BASE_SIZE) return bytes;
    return (file.copied && this.known(hash)) || gzipSync(bytes);
  }
}

/** An emitted file with its bytes and their hash, each computed once: GitHub's tools.json is 6 MB. */
export interface Encoded {
  file: EmittedFile;
  bytes: Buffer;
  hash: string;
}

/** The emitted files encoded and hashed, and what stores their new merge bases. */
export interface PreparedWrite {
  encoded: Encoded[];
  bases: BaseCompressor;
}

/**
 * Encodes and hashes the files (GitHub's tools.json is 6 MB: once each). Called by `generate` as soon as the files
 * are emitted, as the change report reads the new tools file's bytes too.
 */
export function prepareWrite(
  files: EmittedFile[],
  /** What stores the new bases (a file generated as last time keeps its base). */
  bases = new BaseCompressor(),
): PreparedWrite {
  const encoded = files.map((file): Encoded => {
    const bytes = file.bytes ?? Buffer.from(file.content, "utf8");
    return { file, bytes, hash: hashBytesOnce(bytes) };
  });
  return { encoded, bases };
}

/** Removes the bases of files no longer generated (and empty folders they leave), keeping those in `kept`. */
export function removeStaleBases(dir: string, kept: Set<string>): boolean {
  if (!existsSync(dir)) return true;
  let empty = true;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory() ? removeStaleBases(full, kept) : !kept.has(full))
      rmSync(full, { recursive: true, force: true });
    else empty = false;
  }
  return empty;
}
