/**
 * The spec copy beside a project's key record (src/cache/key-table.ts), and the stamps that vouch for its bytes.
 */
import { readFileSync, statSync, type Stats, writeFileSync } from "node:fs";
import { join } from "node:path";
import { replaceFile, replaceFileSync } from "./replace-file.js";

const SPEC_COPY_FILE = ".guided-mcp/cache/spec.copy";
/** The copy's stamps as its writer left it, after the hash of its bytes (see `copyStamps`). */
const COPY_STAMPS_FILE = ".guided-mcp/cache/spec.copy.stamps";

/** Where the project's spec copy is. */
export function specCopyPath(projectDir: string): string {
  return join(projectDir, SPEC_COPY_FILE);
}

/**
 * What says that the spec copy is still the file its writer renamed into place: its inode, size and change times.
 * Its bytes cannot change without its ctime moving (a write, a rename over it or a reset mtime all set ctime to
 * "now"), and a file put in its place is another inode, so equal stamps stand for the bytes the record was made
 * for, without hashing them again (GitHub: 7 MB, ≈ 4 ms). Any other stamps (a copied project, a concurrent run's
 * copy, an edit) fall back to the hash.
 */
export function copyStamps(stats: Stats): string {
  return `${stats.ino} ${stats.size} ${stats.mtimeMs} ${stats.ctimeMs}`;
}

/** What the last `saveKeys` recorded of the copy: the hash of its bytes and its stamps; "" if nothing. */
export function recordedStamps(projectDir: string): string {
  try {
    return readFileSync(join(projectDir, COPY_STAMPS_FILE), "latin1");
  } catch {
    return "";
  }
}

/** Writes `spec` as the project's copy, and the stamps that vouch for it as having `specHash`. */
export async function saveCopy(projectDir: string, specHash: string, spec: Buffer): Promise<void> {
  const copy = specCopyPath(projectDir);
  const stampsFile = join(projectDir, COPY_STAMPS_FILE);
  // (Stamps left by an earlier run stay true: they hold only while its copy is in place, with that hash.)
  let written: Stats | undefined;
  // At once (Stripe's 2.5 MB: ≈ 1 ms): through the thread pool it was three trips (open, write, close), each
  // resumed only once this thread's synchronous saves were done, and the write stage then waited for the pool's
  // lowest-priority threads (3–12 ms on Stripe at load 2–3).
  await replaceFile(copy, async (temporary) => {
    writeFileSync(temporary, spec);
    written = statSync(temporary);
  });
  const now = statSync(copy);
  if (now.ino !== written?.ino || now.size !== spec.length) return;
  // A hundred bytes, written at once: a trip through the thread pool (its threads at the lowest priority) would
  // keep the write stage waiting longer than writing them takes.
  replaceFileSync(stampsFile, `${specHash} ${copyStamps(now)}`, "latin1");
}
