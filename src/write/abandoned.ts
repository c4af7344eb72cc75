/**
 * Staging folders that a killed run left behind. A write stages into a folder of its own: a fresh project into a
 * hidden sibling of the output folder (`.<name>.tmp-<8 hex>`), a regeneration into `.guided-mcp/staging-<8 hex>`
 * inside the project. Both are removed when the write ends, whether it succeeds or fails; only a run that is killed
 * (or a machine that stops) leaves one, which would then sit in the user's folder, or show in `git status`, for
 * good. A run takes seconds, so a staging folder nothing was written into for an hour is no run's any more:
 * the next write removes it. A staging folder's contents never matter to a later run (a merge base is checked
 * against the manifest's hash before use, a spare is found where it belongs), so removing one loses nothing.
 */
import { readdirSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";

const ABANDONED_AFTER_MS = 60 * 60 * 1000;

/** Removes the abandoned staging folders of the project at `outDir` (see the module comment). */
export function removeAbandonedStaging(outDir: string, now = Date.now()): void {
  removeOld(join(outDir, ".guided-mcp"), (name) => /^staging-[0-9a-f]{8}$/.test(name), now);
  const sibling = `.${basename(outDir)}.tmp-`;
  removeOld(
    dirname(outDir),
    (name) => name.startsWith(sibling) && /^[0-9a-f]{8}$/.test(name.slice(sibling.length)),
    now,
  );
}

function removeOld(dir: string, isStaging: (name: string) => boolean, now: number): void {
  let names: string[];
  try {
    names = readdirSync(dir).filter(isStaging);
  } catch {
    return;
  }
  for (const name of names) {
    try {
      const folder = join(dir, name);
      if (now - statSync(folder).mtimeMs > ABANDONED_AFTER_MS) rmSync(folder, { recursive: true, force: true });
    } catch {
      // Gone meanwhile, or not ours to remove: the next write looks again.
    }
  }
}
