/**
 * Large files rewritten without freeing blocks. On ext4, the call that drops
 * the last name of a large file whose blocks are allocated waits for their
 * writeback (GitHub's 6 MB data/tools.json: ≈ 5 ms of every regeneration, and
 * the disk is busy with the previous runs' files). So a large merge base is
 * written over the old one's bytes, and a large project file
 * replaced by a rename keeps its old blocks under a second name, its *spare*
 * (`.guided-mcp/cache/spare/<path>`, git-ignored with the caches), which the
 * next regeneration claims, writes its new version into and renames into place.
 * Either stays as crash-safe as a rename: the project's file is still replaced
 * by one rename, and until the manifest moves, a base written in part or whole
 * is not the one the manifest's hash names, so `readBase` treats it as missing.
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
  writeSync,
} from "node:fs";
import { dirname, join } from "node:path";

const SPARE_DIR = ".guided-mcp/cache/spare";

/**
 * Writes `bytes` over the file at `target`, when it is a file of its own: a regular file with one name, reached
 * without following a symbolic link. False where it is not, or there is none (nothing written).
 */
function overwriteFile(target: string, bytes: Buffer): boolean {
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

/** Where the spare of the project file at `path` is kept. */
export function sparePath(outDir: string, path: string): string {
  return join(outDir, SPARE_DIR, path);
}

/**
 * Writes `bytes` over `file` (a spare, or a large merge base), claimed first by renaming it to `claimed`, a path of
 * this run's own (in its staging folder), so that a concurrent run cannot write into the same file. Whether it did:
 * if not, nothing is written (a claimed file that is not one of its own stays at `claimed`, to go with the staging
 * folder). The caller renames `claimed` where it belongs.
 */
export function claimAndOverwrite(file: string, claimed: string, bytes: Buffer): boolean {
  if (process.platform === "win32") return false;
  try {
    renameSync(file, claimed);
  } catch {
    return false;
  }
  return overwriteFile(claimed, bytes);
}

/**
 * Renames `staged` over `target`, keeping the file it replaces as `spare`: a second name is made for it first
 * (`second`, a path of this run's own in its staging folder), so the rename drops a name, not the file; then that
 * name moves to `spare`. A name made this way is only ever renamed or removed with the staging folder, never written
 * through; a spare is written only while it is a file of its own (see `overwriteFile`).
 */
export function replaceKeepingSpare(staged: string, target: string, spare: string, second: string): void {
  if (process.platform === "win32") return renameSync(staged, target);
  let kept = true;
  try {
    linkSync(target, second);
  } catch {
    // No file there yet, or no second name possible (another file system, no hard links): it goes, as before.
    kept = false;
  }
  renameSync(staged, target);
  if (!kept) return;
  mkdirSync(dirname(spare), { recursive: true });
  renameSync(second, spare);
}
