/**
 * The merge bases: the pristine last generation of each generator-owned file,
 * gzipped under `.guided-mcp/base/`, so the next regeneration can merge a
 * user's edits three ways (see merge.ts).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { EmittedFile } from "../emit/index.js";
import { gunzipSync, gzip, gzipSync } from "node:zlib";
import { hashBytesOnce, hashContent } from "./hash.js";
import { knownBase } from "./known-bases.js";

export { hashContent };

export const BASE_DIR = ".guided-mcp/base";
/** Bases at least this large are compressed on libuv's thread pool, from the start of the write stage. */
const POOL_THRESHOLD = 256 * 1024;

export function basePath(root: string, path: string): string {
  return join(root, BASE_DIR, `${path}.gz`);
}

/** The base kept for `path`, if it is there and still what the manifest recorded (`recorded` is its hash). */
export function readBase(outDir: string, path: string, recorded: string): string | undefined {
  return readBaseBytes(outDir, path, recorded)?.toString("utf8");
}

/** `readBase`'s bytes, undecoded. */
export function readBaseBytes(outDir: string, path: string, recorded: string): Buffer | undefined {
  const file = basePath(outDir, path);
  if (!existsSync(file)) return undefined;
  try {
    const bytes = gunzipSync(readFileSync(file));
    return hashContent(bytes) === recorded ? bytes : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Compresses the large new bases (GitHub's 6 MB tools.json) on libuv's thread
 * pool, each started as soon as its bytes are known, so it overlaps the planning
 * and writing of the files (on another core) instead of following them; small
 * ones are compressed in place. Same zlib and options either way, so the same bytes.
 */
export class BaseCompressor {
  private readonly pending = new Map<string, Promise<Buffer>>();

  /** `known`: the base of a file by the hash of its bytes, when it is known already (the build's, see known-bases.ts). */
  constructor(private readonly known: (hash: string) => Buffer | undefined = knownBase) {}

  start(path: string, bytes: Buffer): void {
    // A small file compresses faster than a trip through the pool (each deflate stream allocates ≈ 300 KB).
    if (bytes.length < POOL_THRESHOLD || this.pending.has(path)) return;
    const compressed = new Promise<Buffer>((resolve, reject) =>
      gzip(bytes, { chunkSize: outputChunk(bytes.length) }, (error, result) =>
        error ? reject(error) : resolve(result),
      ),
    );
    // A run that fails before awaiting it must not also report an unhandled rejection.
    compressed.catch(() => {});
    this.pending.set(path, compressed);
  }

  /** The compressed bytes of `path` (`hash`: its bytes' hash): from the pool if `start` sent it there, else known or compressed now. */
  compressed(path: string, bytes: Buffer, hash: string): Promise<Buffer> | Buffer {
    return this.pending.get(path) ?? this.known(hash) ?? gzipSync(bytes);
  }
}

/**
 * The output buffer of a pooled compression: large enough for the whole result (generated JSON and code compress
 * far better than 2:1). With zlib's default of 16 KB, each filled buffer went back to this thread to be collected
 * before the pool went on, so the compression advanced only while this thread was idle (GitHub's 6 MB tools.json:
 * ≈ 110 ms with the write busy beside it, against ≈ 50 ms in one go). The buffer's size does not change the bytes.
 */
function outputChunk(inputLength: number): number {
  return (inputLength >> 1) + (64 << 10);
}

/** An emitted file with its bytes and their hash, each computed once: GitHub's tools.json is 6 MB. */
export interface Encoded {
  file: EmittedFile;
  bytes: Buffer;
  hash: string;
}

/** The emitted files encoded and hashed, and the compression of their new merge bases under way. */
export interface PreparedWrite {
  encoded: Encoded[];
  bases: BaseCompressor;
}

/**
 * Encodes the files and starts compressing every new base a write will need (a
 * file generated as last time keeps its base). Called by `generate` as soon as
 * the files are emitted, so the compression runs while the change report reads the last generation.
 */
export function prepareWrite(
  outDir: string,
  files: EmittedFile[],
  /** The last generation's manifest, if any. */
  previous: { files: Record<string, { hash: string }> } | undefined,
  compress = true,
  /** The last generation's bytes of some files, when the caller has read them already (data/tools.json). */
  last?: ReadonlyMap<string, Buffer>,
  /** A compressor some bases were already started on (see `BaseCompressor.start`). */
  bases = new BaseCompressor(),
): PreparedWrite {
  const encoded = files.map((file): Encoded => {
    const bytes = file.bytes ?? Buffer.from(file.content, "utf8");
    // Bytes unlike the last generation's need a new base: its compression starts before the hash is taken.
    const lastBytes = last?.get(file.path);
    if (compress && file.owner === "generator" && lastBytes && !lastBytes.equals(bytes)) bases.start(file.path, bytes);
    const hash = hashBytesOnce(bytes);
    const unchanged = previous?.files[file.path]?.hash === hash && existsSync(basePath(outDir, file.path));
    if (compress && file.owner === "generator" && !unchanged) bases.start(file.path, bytes);
    return { file, bytes, hash };
  });
  return { encoded, bases };
}
