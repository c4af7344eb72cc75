/** What a generated project holds from its last generation, read before this one is written. */
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { TOOLS_DATA_PATH } from "../emit/index.js";
import { readGeneratedBase, type Manifest } from "./index.js";

/**
 * The bytes of the last generation's tools file: its pristine base when kept, so the user's own edits are not
 * reported as API changes (src/report/text.ts reads only the tools that differ, and never decodes the rest).
 */
export async function readPreviousToolsText(outDir: string, manifest: Manifest): Promise<Buffer | undefined> {
  const path = resolve(outDir, TOOLS_DATA_PATH);
  return (
    (await readGeneratedBase(outDir, manifest, TOOLS_DATA_PATH)) ?? (existsSync(path) ? readFileSync(path) : undefined)
  );
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
