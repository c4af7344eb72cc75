/**
 * Stage 7 — write: the only stage that touches the output folder.
 *
 * A new project is written to a temporary sibling folder and renamed into
 * place, so a failed run leaves nothing half-written. An earlier generation
 * is updated file by file from a staging folder, guided by the manifest:
 * generator-owned files the user has not edited are replaced; edited ones are
 * merged three ways with the pristine last generation kept in
 * `.guided-mcp/base/` (see merge.ts; data/tools.json merges structurally, see
 * json-merge.ts), with conflict markers only where both sides changed the same
 * lines; user-owned files are never touched once they exist.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { GeneratorError } from "../diagnostics.js";
import type { EmittedFile, FileOwner } from "../emit/index.js";
import {
  BASE_DIR,
  type BaseCompressor,
  basePath,
  type Encoded,
  hashContent,
  prepareWrite,
  type PreparedWrite,
  readBase,
} from "./bases.js";
import { FileWriter } from "./file-writer.js";
import { hashBytesOnce } from "./hash.js";
import { mergeJson } from "./json-merge.js";
import { hasConflictMarkers, mergeText } from "./merge.js";

export { BASE_DIR, hashContent, prepareWrite, type PreparedWrite };
export const MANIFEST_PATH = ".guided-mcp/manifest.json";

export interface Manifest {
  generator: { name: string; version: string };
  spec: { source: string; hash: string };
  options: Record<string, unknown>;
  files: Record<string, { hash: string; owner: FileOwner }>;
}

/**
 * `merged`: the user's edits and the generator's changes combined cleanly; `conflict`: markers written where both
 * changed the same lines (or, still unresolved from an earlier run, the file is left alone); `kept-edit`: the user
 * edited it and the generator has nothing new for it; `sidecar`: no base to merge with (a project generated before
 * bases were kept), so the new version is written beside it as `<file>.new`.
 */
export type FileAction =
  "create" | "update" | "unchanged" | "merged" | "conflict" | "kept-edit" | "sidecar" | "keep-user" | "delete";

export interface PlannedFile {
  path: string;
  action: FileAction;
  owner: FileOwner;
  /** What a merge did that the user should know: conflicts, kept or dropped edits (pointer or line-based). */
  notes?: string[];
  /** The merged content to write, for `merged` and `conflict`. */
  content?: string;
}

export interface WriteOptions {
  force?: boolean;
  dryRun?: boolean;
  /** Text appended to CHANGELOG.md (created if missing) when an earlier generation is updated. */
  changelogEntry?: string;
}

export const CHANGELOG_PATH = "CHANGELOG.md";

export interface WriteResult {
  outDir: string;
  fresh: boolean;
  plan: PlannedFile[];
  manifest: Manifest;
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
    if (entry.owner === "generator" && existsSync(target) && hasConflictMarkers(await readFile(target, "utf8")))
      found.push(path);
  }
  return found.sort();
}

export async function readManifest(outDir: string): Promise<Manifest | undefined> {
  const path = join(outDir, MANIFEST_PATH);
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(await readFile(path, "utf8")) as Manifest;
  } catch (error) {
    throw new GeneratorError(
      path,
      `manifest cannot be read (${(error as Error).message})`,
      "restore it from version control, or regenerate into a new folder",
    );
  }
}

export async function writeProject(
  outDir: string,
  input: EmittedFile[] | PreparedWrite,
  manifestBase: Omit<Manifest, "files">,
  options: WriteOptions = {},
): Promise<WriteResult> {
  const previous = await readManifest(outDir);
  const fresh = !existsSync(outDir) || readdirSync(outDir).length === 0;
  if (!fresh && !previous && !options.force) {
    throw new GeneratorError(
      outDir,
      "folder is not empty and was not generated by create-guided-mcp",
      "choose another --out, or pass --force to generate into it anyway (existing user files are kept)",
    );
  }
  const { encoded, bases } = Array.isArray(input) ? prepareWrite(outDir, input, previous, !options.dryRun) : input;
  const files = encoded.map(({ file }) => file);
  const manifest: Manifest = { ...manifestBase, files: {} };
  for (const { file, hash } of encoded) manifest.files[file.path] = { hash, owner: file.owner };

  const plan: PlannedFile[] = fresh
    ? files.map((file) => ({ path: file.path, action: "create" as const, owner: file.owner }))
    : planUpdate(outDir, encoded, previous, options.force ?? false);
  // A conflict left unresolved keeps its old base, so the next merge still sees every change since.
  for (const entry of plan)
    if (entry.action === "conflict" && entry.content === undefined && previous?.files[entry.path])
      manifest.files[entry.path] = previous.files[entry.path]!;
  if (!options.dryRun) {
    if (fresh) await writeFresh(outDir, encoded, manifest, bases);
    else await applyUpdate(outDir, encoded, plan, { manifest, previous, bases }, options.changelogEntry);
  }
  return { outDir, fresh, plan: plan.map(({ content: _content, ...entry }) => entry), manifest };
}

function planUpdate(outDir: string, encoded: Encoded[], previous: Manifest | undefined, force: boolean): PlannedFile[] {
  const plan: PlannedFile[] = [];
  for (const { file, bytes, hash } of encoded) {
    const target = join(outDir, file.path);
    if (!existsSync(target)) plan.push({ path: file.path, action: "create", owner: file.owner });
    else if (file.owner === "user") plan.push({ path: file.path, action: "keep-user", owner: file.owner });
    else
      plan.push(
        planGenerated(outDir, file, readFileSync(target), {
          bytes,
          next: hash,
          recorded: previous?.files[file.path]?.hash,
          force,
        }),
      );
  }
  const emitted = new Set(encoded.map(({ file }) => file.path));
  for (const [path, entry] of Object.entries(previous?.files ?? {})) {
    if (emitted.has(path) || entry.owner !== "generator") continue;
    const target = join(outDir, path);
    if (!existsSync(target)) continue;
    // A file the generator no longer produces is removed only if the user never edited it.
    if (hashContent(readFileSync(target)) === entry.hash) plan.push({ path, action: "delete", owner: "generator" });
  }
  return plan;
}

/** A generator-owned file that exists: replace it, merge the user's edits into the new version, or leave it. */
function planGenerated(
  outDir: string,
  file: EmittedFile,
  current: Buffer,
  /** `bytes`, `next`: `file.content` encoded and its hash; `recorded`: the last generation's hash. */
  { bytes, next, recorded, force }: { bytes: Buffer; next: string; recorded: string | undefined; force: boolean },
): PlannedFile {
  const entry = { path: file.path, owner: file.owner };
  // Equal bytes need no hash (most files of a regeneration are unchanged).
  if (current.equals(bytes)) return { ...entry, action: "unchanged" };
  const mine = hashBytesOnce(current);
  if (mine === next) return { ...entry, action: "unchanged" };
  if (mine === recorded || force) return { ...entry, action: "update" };
  const text = current.toString("utf8");
  if (hasConflictMarkers(text)) {
    return {
      ...entry,
      action: "conflict",
      notes: ["still has conflict markers from an earlier regeneration: resolve them, then regenerate again"],
    };
  }
  if (next === recorded) return { ...entry, action: "kept-edit" };
  const base = recorded ? readBase(outDir, file.path, recorded) : undefined;
  if (base === undefined) return { ...entry, action: "sidecar" };
  return file.path.endsWith(".json")
    ? mergeJsonFile(entry, base, text, file.content)
    : mergeTextFile(entry, base, text, file.content);
}

function mergeTextFile(
  entry: Pick<PlannedFile, "path" | "owner">,
  base: string,
  current: string,
  next: string,
): PlannedFile {
  const merged = mergeText(base, current, next);
  if (merged.conflicts === 0) return { ...entry, action: "merged", content: merged.content };
  return {
    ...entry,
    action: "conflict",
    content: merged.content,
    notes: [
      `${merged.conflicts} place(s) where you and the generator changed the same lines: look for <<<<<<< yours … >>>>>>> generated`,
    ],
  };
}

/** JSON data merges structurally; if the user's copy no longer parses, a line merge is the best left to do. */
function mergeJsonFile(
  entry: Pick<PlannedFile, "path" | "owner">,
  base: string,
  current: string,
  next: string,
): PlannedFile {
  let parsed: [unknown, unknown, unknown];
  try {
    parsed = [JSON.parse(base), JSON.parse(current), JSON.parse(next)];
  } catch {
    return mergeTextFile(entry, base, current, next);
  }
  const { value, notes } = mergeJson(...parsed);
  // Keep the generator's layout (indented for small APIs, compact for large ones), so an unedited re-run is byte-identical.
  const indent = next.startsWith("{\n") || next.startsWith("[\n") ? 2 : undefined;
  const content = JSON.stringify(value, null, indent) + "\n";
  return {
    ...entry,
    action: "merged",
    content,
    ...(notes.length > 0 ? { notes: notes.map((note) => `${note.pointer}: ${note.message}`) } : {}),
  };
}

/** Written to a temporary sibling folder, then renamed into place (see file-writer.ts on writing synchronously). */
async function writeFresh(
  outDir: string,
  encoded: Encoded[],
  manifest: Manifest,
  bases: BaseCompressor,
): Promise<void> {
  const parent = dirname(outDir);
  mkdirSync(parent, { recursive: true });
  const staging = join(parent, `.${basename(outDir)}.tmp-${randomBytes(4).toString("hex")}`);
  const writer = new FileWriter();
  try {
    for (const { file, bytes } of encoded) writer.write(join(staging, file.path), bytes);
    for (const { file, bytes, hash } of encoded)
      if (file.owner === "generator")
        writer.write(basePath(staging, file.path), await bases.compressed(file.path, bytes, hash));
    writer.write(join(staging, MANIFEST_PATH), JSON.stringify(manifest, null, 2) + "\n");
    if (existsSync(outDir)) rmdirSync(outDir);
    renameSync(staging, outDir);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
}

async function applyUpdate(
  outDir: string,
  encoded: Encoded[],
  plan: PlannedFile[],
  state: { manifest: Manifest; previous: Manifest | undefined; bases: BaseCompressor },
  changelogEntry?: string,
): Promise<void> {
  const staging = join(outDir, ".guided-mcp", `staging-${randomBytes(4).toString("hex")}`);
  const writer = new FileWriter();
  try {
    const moves = stageFiles(outDir, join(staging, "files"), encoded, plan, writer);
    if (changelogEntry) moves.push(stageChangelog(outDir, join(staging, "files"), changelogEntry, writer));
    const bases = await stageBases(outDir, staging, encoded, plan, state, writer);
    const stagedManifest = join(staging, MANIFEST_PATH);
    writer.write(stagedManifest, JSON.stringify(state.manifest, null, 2) + "\n");
    for (const [from, to] of [...moves, ...bases.moves]) {
      writer.ensureDir(dirname(to));
      renameSync(from, to);
    }
    for (const entry of plan) if (entry.action === "delete") rmSync(join(outDir, entry.path), { force: true });
    removeStaleBases(join(outDir, BASE_DIR), bases.kept);
    // The manifest moves last: until then, a re-run still sees the previous generation.
    renameSync(stagedManifest, join(outDir, MANIFEST_PATH));
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** Writes what the plan changes into the staging folder; returns the moves into the project. */
function stageFiles(
  outDir: string,
  staging: string,
  encoded: Encoded[],
  plan: PlannedFile[],
  writer: FileWriter,
): Array<[string, string]> {
  const byPath = new Map(encoded.map((entry) => [entry.file.path, entry]));
  const moves: Array<[string, string]> = [];
  const stage = (destination: string, content: string | Buffer) => {
    const staged = join(staging, destination);
    writer.write(staged, content);
    moves.push([staged, join(outDir, destination)]);
  };
  for (const entry of plan) {
    const file = byPath.get(entry.path);
    if (!file) continue;
    if (entry.action === "create" || entry.action === "update") stage(entry.path, file.bytes);
    else if (entry.action === "sidecar") stage(`${entry.path}.new`, file.bytes);
    else if ((entry.action === "merged" || entry.action === "conflict") && entry.content !== undefined)
      stage(entry.path, entry.content);
  }
  return moves;
}

function stageChangelog(outDir: string, staging: string, entry: string, writer: FileWriter): [string, string] {
  const changelog = join(outDir, CHANGELOG_PATH);
  const existing = existsSync(changelog)
    ? readFileSync(changelog, "utf8")
    : "# API changes\n\nWritten by create-guided-mcp at each regeneration.\n\n";
  const staged = join(staging, CHANGELOG_PATH);
  writer.write(staged, existing + entry);
  return [staged, changelog];
}

/**
 * The bases of the next merge: each file as generated now. A file generated
 * exactly as last time keeps its compressed base where it is (same bytes, no
 * need to compress GitHub's 6 MB tools.json again, nor to copy it); so does a
 * file whose conflict is still unresolved, so the next merge still sees every
 * change since. New bases are staged, then renamed over the old ones: a run cut
 * short in between leaves bases that no longer match the manifest's hashes,
 * which `readBase` treats as missing (the edit is kept and the new version
 * written beside it), never as a wrong base.
 */
async function stageBases(
  outDir: string,
  staging: string,
  encoded: Encoded[],
  plan: PlannedFile[],
  { manifest, previous, bases }: { manifest: Manifest; previous: Manifest | undefined; bases: BaseCompressor },
  writer: FileWriter,
): Promise<{ moves: Array<[string, string]>; kept: Set<string> }> {
  const unresolved = new Set(
    plan.filter((entry) => entry.action === "conflict" && entry.content === undefined).map((entry) => entry.path),
  );
  const moves: Array<[string, string]> = [];
  const kept = new Set<string>();
  for (const { file, bytes, hash } of encoded) {
    if (file.owner !== "generator") continue;
    const old = basePath(outDir, file.path);
    const keepOld = unresolved.has(file.path) || previous?.files[file.path]?.hash === manifest.files[file.path]?.hash;
    if (keepOld && existsSync(old)) kept.add(old);
    else if (!unresolved.has(file.path)) {
      const staged = basePath(staging, file.path);
      writer.write(staged, await bases.compressed(file.path, bytes, hash));
      moves.push([staged, old]);
      kept.add(old);
    }
  }
  return { moves, kept };
}

/** Removes the bases of files no longer generated (and empty folders they leave), keeping those in `kept`. */
function removeStaleBases(dir: string, kept: Set<string>): boolean {
  if (!existsSync(dir)) return true;
  let empty = true;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory() ? removeStaleBases(full, kept) : !kept.has(full))
      rmSync(full, { recursive: true, force: true });
    else empty = false;
  }
  return empty;
}
