/**
 * Large files rewritten without freeing blocks. On ext4, the call that drops
 * the last name of a large file whose blocks are allocated waits for their
 * writeback (GitHub's 6 MB data/tools.json: ≈ 5 ms of every regeneration, and
 * the disk is busy with the previous runs' files). So a large merge base is
 * written over the old one's bytes (see bases.ts), and a large project file
 * replaced by a rename keeps its old blocks under a second name, its *spare*
 * (`.guided-mcp/cache/spare/<path>`, git-ignored with the caches), which the
 * next regeneration writes its new version into and renames into place.
 */
import {
  closeSync,
  constants,
  fstatSync,
  ftruncateSync,
  linkSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { dirname, join } from "node:path";

const SPARE_DIR = ".guided-mcp/cache/spare";

/**
 * Writes `bytes` over the file at `target`, when it is a file of its own: a regular file with one name, reached
 * without following a symbolic link. False where it is not, or there is none (nothing written).
 */
export function overwriteFile(target: string, bytes: Buffer): boolean {
  if (process.platform === "win32") return false;
  let descriptor: number;
  try {
    descriptor = openSync(target, constants.O_WRONLY | constants.O_NOFOLLOW);
  } catch {
    return false;
  }
  try {
    const stats = fstatSync(descriptor);
    // Another name (a hard-linked backup of the project, the project's own file) shares these bytes: they stay.
    if (!stats.isFile() || stats.nlink !== 1) return false;
    for (let written = 0; written < bytes.length;)
      written += writeSync(descriptor, bytes, written, bytes.length - written, written);
    ftruncateSync(descriptor, bytes.length);
    return true;
  } finally {
    closeSync(descriptor);
  }
}

/** Writes `bytes` into the spare of the project file at `path`, if it has one of its own; returns it, else undefined. */
export function stageInSpare(outDir: string, path: string, bytes: Buffer): string | undefined {
  const spare = join(outDir, SPARE_DIR, path);
  return overwriteFile(spare, bytes) ? spare : undefined;
}

/**
 * Renames `staged` over the project file `target` (at `path`), keeping the file it replaces as the spare of `path`:
 * a second name is made for it first, so the rename drops a name, not the file. That name is only ever removed or
 * renamed: a run cut short while it names the project's live file leaves it to the next run, which removes it (never
 * writing through it; a spare is written only with one name, see `overwriteFile`).
 */
export function replaceKeepingSpare(outDir: string, path: string, staged: string, target: string): void {
  if (process.platform === "win32") return renameSync(staged, target);
  const spare = join(outDir, SPARE_DIR, path);
  const second = `${spare}.old`;
  rmSync(second, { force: true });
  let kept = true;
  try {
    mkdirSync(dirname(spare), { recursive: true });
    linkSync(target, second);
  } catch {
    // No file there yet, or no second name possible (another file system, no hard links): it goes, as before.
    kept = false;
  }
  renameSync(staged, target);
  if (kept) renameSync(second, spare);
}
