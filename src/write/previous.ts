/** What a generated project holds from its last generation, read before this one is written. */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { TOOLS_DATA_PATH } from "../emit/index.js";
import { readBaseBytes } from "./bases.js";
import { hashBytesOnce } from "./hash.js";
import type { Manifest } from "./index.js";

/**
 * The bytes of the last generation's tools file: its pristine base when kept, so the user's own edits are not
 * reported as API changes (src/report/text.ts reads only the tools that differ, and never decodes the rest).
 */
export async function readPreviousToolsText(outDir: string, manifest: Manifest): Promise<Buffer | undefined> {
  const path = resolve(outDir, TOOLS_DATA_PATH);
  return readGeneratedBase(outDir, manifest, TOOLS_DATA_PATH) ?? (existsSync(path) ? readFileSync(path) : undefined);
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

/** The bytes the last generation wrote to `path` (before any user edit), if its base was kept. */
function readGeneratedBase(outDir: string, manifest: Manifest, path: string): Buffer | undefined {
  const recorded = manifest.files[path]?.hash;
  if (!recorded) return undefined;
  // The project's own copy, when unedited, is that text: reading it is cheaper than decompressing the base.
  const current = join(outDir, path);
  const bytes = existsSync(current) ? readFileSync(current) : undefined;
  if (bytes && hashBytesOnce(bytes) === recorded) return bytes;
  return readBaseBytes(outDir, path, recorded);
}
