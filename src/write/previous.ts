/** What a generated project holds from its last generation, read before this one is written. */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { TOOLS_DATA_PATH } from "../emit/index.js";
import { isUrl } from "../load/index.js";
import { readAhead, readOnPool, takeAhead } from "../load/read-ahead.js";
import { keysFilePath } from "../cache/key-table.js";
import { MANIFEST_PATH } from "./manifest.js";
import { readBaseBytes } from "./bases.js";
import { hashBytesOnce } from "./hash.js";
import type { Manifest } from "./index.js";

/**
 * The bytes of the last generation's tools file (`generated`): its pristine base when kept, so the user's own edits
 * are not reported as API changes (src/report/text.ts reads only the tools that differ, and never decodes the rest);
 * and the project's file as it is now (`current`, which the write compares with the new one: GitHub's is 6 MB).
 */
export async function readPreviousTools(
  outDir: string,
  manifest: Manifest,
  /** Also prepare `room` (a text-only regeneration's set-up asks: see src/emit/file-tools.ts). */
  { room: wanted = false }: { room?: boolean } = {},
): Promise<{ generated: Buffer | undefined; current: Buffer | undefined; room?: Buffer }> {
  const path = previousToolsPath(outDir);
  const preparing = wanted ? prepareRoom(path) : undefined;
  const current = (await takeAhead(path)) ?? (existsSync(path) ? readFileSync(path) : undefined);
  const generated = readGeneratedBase(outDir, manifest, TOOLS_DATA_PATH, current) ?? current;
  const room = await preparing;
  return { generated, current, ...(room ? { room } : {}) };
}

/** Room for a new tools file this much larger than the last (GitHub's largest tool is ≈ 30 KB). */
const ROOM_SLACK = 64 * 1024;

/**
 * Memory for a new tools file spliced from the last one, its pages already touched: fresh memory costs ≈ 0.4 ms a
 * MB of page faults on first use (GitHub's 6 MB: ≈ 2.5 ms of this thread in the splice), so a pool thread reads the
 * file into it, taking the faults on the other core (the bytes are overwritten). Files under 1 MB, or any failure:
 * none (the splice allocates its own, as before).
 */
function prepareRoom(path: string): Promise<Buffer | undefined> | undefined {
  return readOnPool(
    path,
    ({ size }) => (size < 1 << 20 ? undefined : size + ROOM_SLACK),
    (room) => room,
  );
}

/**
 * Starts reading what a regeneration of the generated project in `outDir` reads later, on the thread pool (see
 * src/load/read-ahead.ts): its spec, when a local file, with the key record it is compared by (src/cache/key-table.ts),
 * and its tools file. Without a generated project there (or without `outDir`: caches not read) it only forgets what
 * an earlier run read ahead.
 */
export function readRegenerationAhead(from: string, outDir: string | undefined): void {
  if (outDir === undefined || !existsSync(join(outDir, MANIFEST_PATH))) return readAhead([]);
  readAhead([...(isUrl(from) ? [] : [resolve(from), keysFilePath(outDir)]), previousToolsPath(outDir)]);
}

/** Where the project's tools file is (read ahead by a regeneration: see src/load/read-ahead.ts). */
export function previousToolsPath(outDir: string): string {
  return resolve(outDir, TOOLS_DATA_PATH);
}

/** The version in the project's own package.json, when it has one (the owner's `npm version` bumps it). */
export function projectVersion(outDir: string): { version?: string } {
  try {
    const { version } = JSON.parse(readFileSync(resolve(outDir, "package.json"), "utf8")) as { version?: unknown };
    return typeof version === "string" && version.length > 0 ? { version } : {};
  } catch {
    return {};
  }
}

/** The bytes the last generation wrote to `path` (before any user edit), if its base was kept; `current`: the project's file. */
function readGeneratedBase(outDir: string, manifest: Manifest, path: string, current: Buffer | undefined) {
  const recorded = manifest.files[path]?.hash;
  if (!recorded) return undefined;
  // The project's own copy, when unedited, is that text: reading it is cheaper than decompressing the base.
  if (current && hashBytesOnce(current) === recorded) return current;
  return readBaseBytes(outDir, path, recorded);
}
