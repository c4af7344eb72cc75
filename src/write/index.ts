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
import { createHash, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rename, rm, rmdir, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { GeneratorError } from "../diagnostics.js";
import type { EmittedFile, FileOwner } from "../emit/index.js";
import { mergeJson } from "./json-merge.js";
import { hasConflictMarkers, mergeText } from "./merge.js";

export const MANIFEST_PATH = ".guided-mcp/manifest.json";
/** The pristine last generation of each generator-owned file, gzipped: the base of the next three-way merge. */
export const BASE_DIR = ".guided-mcp/base";

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

export function hashContent(content: string | Buffer): string {
  return createHash("sha256").update(content).digest("hex");
}

/** Whether emitting now would produce exactly what the manifest says was generated. */
export function isUpToDate(manifest: Manifest, files: EmittedFile[]): { upToDate: boolean; differing: string[] } {
  const differing: string[] = [];
  const emitted = new Set(files.map((file) => file.path));
  for (const file of files) {
    if (file.owner === "user") continue;
    if (manifest.files[file.path]?.hash !== hashContent(file.content)) differing.push(file.path);
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
  files: EmittedFile[],
  manifestBase: Omit<Manifest, "files">,
  options: WriteOptions = {},
): Promise<WriteResult> {
  const previous = await readManifest(outDir);
  const entries = existsSync(outDir) ? await readdir(outDir) : [];
  const fresh = entries.length === 0;
  if (!fresh && !previous && !options.force) {
    throw new GeneratorError(
      outDir,
      "folder is not empty and was not generated by create-guided-mcp",
      "choose another --out, or pass --force to generate into it anyway (existing user files are kept)",
    );
  }
  const manifest: Manifest = { ...manifestBase, files: {} };
  for (const file of files) manifest.files[file.path] = { hash: hashContent(file.content), owner: file.owner };

  const plan: PlannedFile[] = fresh
    ? files.map((file) => ({ path: file.path, action: "create" as const, owner: file.owner }))
    : await planUpdate(outDir, files, manifest, previous, options.force ?? false);
  // A conflict left unresolved keeps its old base, so the next merge still sees every change since.
  for (const entry of plan)
    if (entry.action === "conflict" && entry.content === undefined && previous?.files[entry.path])
      manifest.files[entry.path] = previous.files[entry.path]!;
  if (!options.dryRun) {
    if (fresh) await writeFresh(outDir, files, manifest);
    else await applyUpdate(outDir, files, plan, { manifest, previous }, options.changelogEntry);
  }
  return { outDir, fresh, plan: plan.map(({ content: _content, ...entry }) => entry), manifest };
}

async function planUpdate(
  outDir: string,
  files: EmittedFile[],
  next: Manifest,
  previous: Manifest | undefined,
  force: boolean,
): Promise<PlannedFile[]> {
  const plan: PlannedFile[] = [];
  for (const file of files) {
    const target = join(outDir, file.path);
    if (!existsSync(target)) plan.push({ path: file.path, action: "create", owner: file.owner });
    else if (file.owner === "user") plan.push({ path: file.path, action: "keep-user", owner: file.owner });
    else
      plan.push(
        await planGenerated(outDir, file, await readFile(target, "utf8"), {
          next: next.files[file.path]!.hash,
          recorded: previous?.files[file.path]?.hash,
          force,
        }),
      );
  }
  const emitted = new Set(files.map((file) => file.path));
  for (const [path, entry] of Object.entries(previous?.files ?? {})) {
    if (emitted.has(path) || entry.owner !== "generator") continue;
    const target = join(outDir, path);
    if (!existsSync(target)) continue;
    // A file the generator no longer produces is removed only if the user never edited it.
    if (hashContent(await readFile(target)) === entry.hash) plan.push({ path, action: "delete", owner: "generator" });
  }
  return plan;
}

/** A generator-owned file that exists: replace it, merge the user's edits into the new version, or leave it. */
async function planGenerated(
  outDir: string,
  file: EmittedFile,
  current: string,
  /** `next`: the hash of `file.content` (computed once, for the manifest); `recorded`: the last generation's. */
  { next, recorded, force }: { next: string; recorded: string | undefined; force: boolean },
): Promise<PlannedFile> {
  const entry = { path: file.path, owner: file.owner };
  // Equal text needs no hash (most files of a regeneration are unchanged).
  if (current === file.content) return { ...entry, action: "unchanged" };
  const mine = hashContent(current);
  if (mine === next) return { ...entry, action: "unchanged" };
  if (mine === recorded || force) return { ...entry, action: "update" };
  if (hasConflictMarkers(current)) {
    return {
      ...entry,
      action: "conflict",
      notes: ["still has conflict markers from an earlier regeneration: resolve them, then regenerate again"],
    };
  }
  if (next === recorded) return { ...entry, action: "kept-edit" };
  const base = recorded ? await readBase(outDir, file.path, recorded) : undefined;
  if (base === undefined) return { ...entry, action: "sidecar" };
  return file.path.endsWith(".json")
    ? mergeJsonFile(entry, base, current, file.content)
    : mergeTextFile(entry, base, current, file.content);
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

/** What the last generation wrote to `path` (before any user edit), if its base was kept. */
export async function readGeneratedBase(outDir: string, manifest: Manifest, path: string): Promise<string | undefined> {
  const recorded = manifest.files[path]?.hash;
  return recorded ? readBase(outDir, path, recorded) : undefined;
}

async function readBase(outDir: string, path: string, recorded: string): Promise<string | undefined> {
  const file = join(outDir, BASE_DIR, `${path}.gz`);
  if (!existsSync(file)) return undefined;
  try {
    const text = gunzipSync(await readFile(file)).toString("utf8");
    return hashContent(text) === recorded ? text : undefined;
  } catch {
    return undefined;
  }
}

async function writeBases(root: string, files: Array<{ path: string; content: string | Buffer }>): Promise<void> {
  for (const file of files) {
    const path = join(root, BASE_DIR, `${file.path}.gz`);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, typeof file.content === "string" ? gzipSync(file.content) : file.content);
  }
}

async function writeFresh(outDir: string, files: EmittedFile[], manifest: Manifest): Promise<void> {
  const parent = dirname(outDir);
  await mkdir(parent, { recursive: true });
  const staging = join(parent, `.${basename(outDir)}.tmp-${randomBytes(4).toString("hex")}`);
  try {
    for (const file of files) await writeFileDeep(join(staging, file.path), file.content);
    await writeBases(
      staging,
      files.filter((file) => file.owner === "generator"),
    );
    await writeFileDeep(join(staging, MANIFEST_PATH), JSON.stringify(manifest, null, 2) + "\n");
    if (existsSync(outDir)) await rmdir(outDir);
    await rename(staging, outDir);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
}

async function applyUpdate(
  outDir: string,
  files: EmittedFile[],
  plan: PlannedFile[],
  { manifest, previous }: { manifest: Manifest; previous: Manifest | undefined },
  changelogEntry?: string,
): Promise<void> {
  const byPath = new Map(files.map((file) => [file.path, file]));
  const staging = join(outDir, ".guided-mcp", `staging-${randomBytes(4).toString("hex")}`);
  const moves: Array<[string, string]> = [];
  const stage = async (destination: string, content: string) => {
    const staged = join(staging, "files", destination);
    await writeFileDeep(staged, content);
    moves.push([staged, join(outDir, destination)]);
  };
  try {
    for (const entry of plan) {
      const file = byPath.get(entry.path);
      if (!file) continue;
      if (entry.action === "create" || entry.action === "update") await stage(entry.path, file.content);
      else if (entry.action === "sidecar") await stage(`${entry.path}.new`, file.content);
      else if ((entry.action === "merged" || entry.action === "conflict") && entry.content !== undefined)
        await stage(entry.path, entry.content);
    }
    if (changelogEntry) {
      const changelog = join(outDir, CHANGELOG_PATH);
      const existing = existsSync(changelog)
        ? await readFile(changelog, "utf8")
        : "# API changes\n\nWritten by create-guided-mcp at each regeneration.\n\n";
      await stage(CHANGELOG_PATH, existing + changelogEntry);
    }
    await stageBases(
      outDir,
      staging,
      files,
      plan,
      (path) => previous?.files[path]?.hash === manifest.files[path]?.hash,
    );
    const stagedManifest = join(staging, MANIFEST_PATH);
    await writeFileDeep(stagedManifest, JSON.stringify(manifest, null, 2) + "\n");
    for (const [from, to] of moves) {
      await mkdir(dirname(to), { recursive: true });
      await rename(from, to);
    }
    for (const entry of plan) if (entry.action === "delete") await rm(join(outDir, entry.path), { force: true });
    await rm(join(outDir, BASE_DIR), { recursive: true, force: true });
    await rename(join(staging, BASE_DIR), join(outDir, BASE_DIR));
    // The manifest moves last: until then, a re-run still sees the previous generation.
    await rename(stagedManifest, join(outDir, MANIFEST_PATH));
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** The new bases: this generation, except where a conflict is still unresolved (that file keeps its old base). */
/**
 * The bases of the next merge: each file as generated now. A file generated
 * exactly as last time keeps its compressed base as it is (same bytes, no
 * need to compress GitHub's 6 MB tools.json again).
 */
async function stageBases(
  outDir: string,
  staging: string,
  files: EmittedFile[],
  plan: PlannedFile[],
  generatedAsBefore: (path: string) => boolean,
): Promise<void> {
  const unresolved = new Set(
    plan.filter((entry) => entry.action === "conflict" && entry.content === undefined).map((entry) => entry.path),
  );
  const bases: Array<{ path: string; content: string | Buffer }> = [];
  for (const file of files) {
    if (file.owner !== "generator") continue;
    const old = join(outDir, BASE_DIR, `${file.path}.gz`);
    if (unresolved.has(file.path) || generatedAsBefore(file.path)) {
      if (existsSync(old)) bases.push({ path: file.path, content: await readFile(old) });
      else if (!unresolved.has(file.path)) bases.push(file);
    } else bases.push(file);
  }
  await mkdir(join(staging, BASE_DIR), { recursive: true });
  await writeBases(staging, bases);
}

async function writeFileDeep(path: string, content: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, content);
}
