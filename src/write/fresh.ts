/** A new project's write: everything staged in a sibling folder, which is renamed into place (see index.ts). */
import { existsSync, mkdirSync, renameSync, rmdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { basePath, type BaseCompressor, type Encoded } from "./bases.js";
import { type EarlyFiles, freshStagingPath, keptAhead } from "./early.js";
import { FileWriter } from "./file-writer.js";
import { MANIFEST_PATH, type Manifest } from "./manifest.js";

/**
 * Written to a temporary sibling folder, then renamed into place (see file-writer.ts on writing synchronously). With
 * `early`, that folder is the one the example worker wrote the files that do not depend on the spec into, and only
 * the others are written here (see early.ts).
 */
export async function writeFresh(
  outDir: string,
  encoded: Encoded[],
  { manifest, bases, early }: { manifest: Manifest; bases: BaseCompressor; early: EarlyFiles | undefined },
  alongside: ((root: string) => Promise<void>) | undefined,
): Promise<void> {
  mkdirSync(dirname(outDir), { recursive: true });
  // From here on nothing else writes into the staging folder.
  const ahead = await early?.written();
  const staging = ahead && early ? early.staging : freshStagingPath(outDir);
  const writer = new FileWriter();
  let saving: Promise<void> | undefined;
  try {
    const { files, bases: baseDone } = keptAhead(staging, encoded, ahead);
    for (const { file, bytes } of encoded) if (!files.has(file.path)) writer.write(join(staging, file.path), bytes);
    // The caches go into the staging folder too (their writes on the pool overlap the bases'), and move into place with the rest.
    saving = started(alongside, staging);
    for (const { file, bytes, hash } of encoded)
      if (file.owner === "generator" && !baseDone.has(file.path))
        writer.write(basePath(staging, file.path, bytes.length), bases.compressed(file, bytes, hash));
    await saving;
    writer.write(join(staging, MANIFEST_PATH), JSON.stringify(manifest, null, 2) + "\n");
    if (existsSync(outDir)) rmdirSync(outDir);
    renameSync(staging, outDir);
  } catch (error) {
    // Nothing may still be writing into the folder when it goes.
    await saving?.catch(() => undefined);
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
}

/** Starts `alongside` under `root`; a failure waits to be awaited (the write's own failure, if any, is reported instead). */
export function started(
  alongside: ((root: string) => Promise<void>) | undefined,
  root: string,
): Promise<void> | undefined {
  const saving = alongside?.(root);
  saving?.catch(() => undefined);
  return saving;
}
