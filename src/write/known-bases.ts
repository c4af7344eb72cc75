/**
 * Merge bases compressed by the build. Most generator-owned files of a project
 * are default templates copied as they are (the runtime: 76 of GitHub's 84
 * bases), so their bases are the same bytes in every project, and gzipping
 * them at each cold run cost ≈ 10–20 ms of this thread. `npm run build` packs
 * them (src/emit/precompile.ts) into one file, looked up by the SHA-256 of the
 * file's bytes, which the write computes anyway.
 *
 * The pack is used only with the zlib it was made with (same version, and one
 * entry compressed again here must give its bytes), so a base from the pack is
 * byte for byte what `gzipSync` would give; anything else (no pack, another
 * zlib, a pack that does not parse or is cut short) compresses as before. The
 * pack is part of the installed generator, like its code; and a base is only
 * ever read through its hash check (`readBase`), which treats a wrong one as missing.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { packageRoot } from "../emit/template-files.js";
import { hashContent } from "./hash.js";

/** Written by `npm run build` (see src/emit/precompile.ts), relative to the package root. */
export const PRECOMPRESSED_BASES_FILE = "dist/precompressed-bases.bin";
/** Bump when the layout changes. */
const FORMAT = 1;

interface PackHeader {
  format: number;
  zlib: string;
  /** Per base, in the order of the bytes after the header: the SHA-256 of the file's bytes, the base's length. */
  entries: Array<[hash: string, length: number]>;
}

/** The pack of these files' bases: a JSON header line, then the compressed bytes one after another. */
export function packBases(files: readonly Buffer[]): Buffer {
  const seen = new Set<string>();
  const entries: PackHeader["entries"] = [];
  const bases: Buffer[] = [];
  for (const bytes of files) {
    const hash = hashContent(bytes);
    if (seen.has(hash)) continue;
    seen.add(hash);
    const base = gzipSync(bytes);
    entries.push([hash, base.length]);
    bases.push(base);
  }
  const header: PackHeader = { format: FORMAT, zlib: process.versions.zlib ?? "", entries };
  return Buffer.concat([Buffer.from(JSON.stringify(header) + "\n", "utf8"), ...bases]);
}

/** The bases in a pack, by the hash of their file's bytes; empty unless this zlib makes exactly those bytes. */
export function readPack(pack: Buffer): Map<string, Buffer> {
  const bases = new Map<string, Buffer>();
  try {
    const end = pack.indexOf(0x0a);
    const header = JSON.parse(pack.toString("utf8", 0, end)) as Partial<PackHeader>;
    if (header.format !== FORMAT || header.zlib !== process.versions.zlib || !Array.isArray(header.entries))
      return bases;
    let offset = end + 1;
    for (const [hash, length] of header.entries) {
      if (offset + length > pack.length) return new Map();
      bases.set(hash, pack.subarray(offset, offset + length));
      offset += length;
    }
    return sameCompression(bases) ? bases : new Map();
  } catch {
    return new Map();
  }
}

/** Whether this process compresses the first base's content to the same bytes, and it is that content. */
function sameCompression(bases: Map<string, Buffer>): boolean {
  const first = bases.entries().next().value;
  if (!first) return true;
  const [hash, base] = first;
  const bytes = gunzipSync(base);
  return hashContent(bytes) === hash && gzipSync(bytes).equals(base);
}

let loaded: Map<string, Buffer> | undefined;

/** The base the build compressed for a file whose bytes hash to `hash`, if any (the pack is read at the first call). */
export function knownBase(hash: string): Buffer | undefined {
  return preloadKnownBases().get(hash);
}

/** Reads and checks the build's pack now, if no call did yet (≈ 2 ms), so that the write finds it read. */
export function preloadKnownBases(): Map<string, Buffer> {
  return (loaded ??= readBuildPack());
}

function readBuildPack(): Map<string, Buffer> {
  const file = join(packageRoot(), PRECOMPRESSED_BASES_FILE);
  return existsSync(file) ? readPack(readFileSync(file)) : new Map();
}
