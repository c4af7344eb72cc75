/** What a generated project holds from its last generation, read before this one is written. */
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { TOOLS_DATA_PATH } from "../emit/index.js";
import type { ToolData } from "../model/ir.js";
import { readGeneratedBase, type Manifest } from "./index.js";

/** The tools of the last generation: from its pristine base when kept, so the user's own edits are not reported as API changes. */
export async function readPreviousTools(outDir: string, manifest: Manifest): Promise<ToolData[] | undefined> {
  const path = resolve(outDir, TOOLS_DATA_PATH);
  const text =
    (await readGeneratedBase(outDir, manifest, TOOLS_DATA_PATH)) ??
    (existsSync(path) ? readFileSync(path, "utf8") : undefined);
  if (text === undefined) return undefined;
  try {
    return (JSON.parse(text) as { tools: ToolData[] }).tools;
  } catch {
    return undefined;
  }
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
