/**
 * Keeps the user-level code cache folder (src/code-cache.ts) from growing without end. Every installation of the
 * generator — each `npx` version, each project's `node_modules` copy — leaves its entries there, with a runs record
 * and a code-digest record (src/cache/fingerprint.ts), all named by a 16-digit hexadecimal prefix. Nothing else ever
 * removes those of an installation that is gone or no longer used.
 *
 * So a run that writes to the folder (the first run of an installation, or of a kind of run: rare) also removes
 * each other prefix's files when none of them was read or written for `MAX_IDLE_DAYS`. Reads count where the file
 * system records them: Linux's default `relatime` updates a file's access time when it is read, at most once a
 * day, so an installation in use keeps its entries. On a file system that records no reads, an idle-looking
 * installation that is still in use only makes its entries again on its next run. Temporary files left by an
 * interrupted write are removed after an hour. Files this folder never holds (other names) are left alone.
 */
import { readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";

const DAY_MS = 24 * 60 * 60 * 1000;
export const MAX_IDLE_DAYS = 30;
const TEMPORARY_MAX_AGE_MS = 60 * 60 * 1000;

/** A file of ours: a prefix, a dash, the rest (an entry, a record, or either's temporary file). */
const OWN_FILE = /^([0-9a-f]{16})-/;

/** Removes what the module comment says from `dir`, never the files of `current` (the running installation's prefix). */
export function pruneCodeCache(dir: string, current: string, now = Date.now()): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  const lastUse = new Map<string, number>();
  const files = new Map<string, string[]>();
  for (const name of names) {
    const prefix = OWN_FILE.exec(name)?.[1];
    if (!prefix) continue;
    const used = lastUsed(join(dir, name));
    if (used === undefined) continue;
    if (name.endsWith(".tmp")) {
      if (now - used > TEMPORARY_MAX_AGE_MS) remove(join(dir, name));
      continue;
    }
    lastUse.set(prefix, Math.max(lastUse.get(prefix) ?? 0, used));
    files.set(prefix, [...(files.get(prefix) ?? []), name]);
  }
  for (const [prefix, used] of lastUse) {
    if (prefix === current || now - used <= MAX_IDLE_DAYS * DAY_MS) continue;
    for (const name of files.get(prefix) ?? []) remove(join(dir, name));
  }
}

/** When the file was last read or written, as far as the file system tells; undefined if it is gone. */
function lastUsed(file: string): number | undefined {
  try {
    const stats = statSync(file);
    return Math.max(stats.atimeMs, stats.mtimeMs);
  } catch {
    return undefined;
  }
}

/** A file another run removed meanwhile, or one that cannot be removed, is left to the next prune. */
function remove(file: string): void {
  try {
    rmSync(file, { force: true });
  } catch {
    // See above.
  }
}
