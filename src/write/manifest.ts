/** The manifest of a generated project (`.guided-mcp/manifest.json`): what the last generation wrote, and how. */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { GeneratorError } from "../diagnostics.js";
import type { EmittedFile } from "../emit/index.js";
import type { FileOwner } from "../emit/static-files.js";
import { hashContent } from "./hash.js";
import { hasConflictMarkers } from "./merge.js";

export const MANIFEST_PATH = ".guided-mcp/manifest.json";

export interface Manifest {
  generator: { name: string; version: string };
  spec: { source: string; hash: string };
  options: Record<string, unknown>;
  files: Record<string, { hash: string; owner: FileOwner }>;
}

/** Whether emitting now would produce exactly what the manifest says was generated. */
export function isUpToDate(manifest: Manifest, files: EmittedFile[]): { upToDate: boolean; differing: string[] } {
  const differing: string[] = [];
  const emitted = new Set(files.map((file) => file.path));
  for (const file of files) {
    if (file.owner === "user") continue;
    if (manifest.files[file.path]?.hash !== hashContent(file.bytes ?? file.content)) differing.push(file.path);
  }
  for (const [path, entry] of Object.entries(manifest.files))
    if (entry.owner === "generator" && !emitted.has(path)) differing.push(path);
  return { upToDate: differing.length === 0, differing: differing.sort() };
}

/** Generator-owned files that still hold merge conflict markers: a project with them is not up to date. */
export async function unresolvedConflicts(outDir: string, manifest: Manifest): Promise<string[]> {
  const found: string[] = [];
  for (const [path, entry] of Object.entries(manifest.files)) {
    const target = join(outDir, path);
    if (entry.owner === "generator" && existsSync(target) && hasConflictMarkers(readFileSync(target, "utf8")))
      found.push(path);
  }
  return found.sort();
}

export async function readManifest(outDir: string): Promise<Manifest | undefined> {
  const path = join(outDir, MANIFEST_PATH);
  if (!existsSync(path)) return undefined;
  try {
    // Read synchronously: an asynchronous read is four trips through the thread pool, which runs at the lowest
    // priority (src/thread-priority.ts), and a regeneration reads the manifest twice before anything else can go on.
    return JSON.parse(readFileSync(path, "utf8")) as Manifest;
  } catch (error) {
    throw new GeneratorError(
      path,
      `manifest cannot be read (${(error as Error).message})`,
      "restore it from version control, or regenerate into a new folder",
    );
  }
}
