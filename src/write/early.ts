/**
 * A fresh project's files that do not depend on the spec, written ahead by the example worker.
 *
 * Most of a project's files are copied as they are from the templates (the runtime and a few configuration files:
 * 75 of Stripe's 85), and their merge bases come compressed by the build (see known-bases.ts): 150 of the 176 files a
 * fresh Stripe project's write creates.
 * Creating a file is the costly part of writing a small one (on ext4 ≈ 60–80 µs a file, far more while other
 * processes write), and the write stage made them all on this thread after the join. A run that has the example
 * worker hands it this job with its units: once it has answered with its outcomes, the worker writes these files
 * into the project's staging folder on its own core (while this thread finishes guidance and emit), answers with
 * what it wrote, and ends. The write stage (fresh.ts `writeFresh`) then stages only the rest, into the same folder.
 * A run without the worker (fewer than 300 operations, one core, `GUIDED_MCP_WORKERS=0`) writes everything itself.
 *
 * Nothing of the write's guarantees changes: the worker writes only into a staging folder of this run's own, which
 * is renamed into place with everything else or removed; a file it wrote is kept only when the run emits that path
 * with the same bytes (and its base only for a generator-owned file), any other is written again or removed; and
 * a run that fails, or whose worker fails, waits until the worker no longer writes, then removes the folder.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync, rmdirSync, rmSync } from "node:fs";
import { basename, dirname, join, sep } from "node:path";
import { staticOutput } from "../emit/static-files.js";
import { readTemplates } from "../emit/template-files.js";
import { basePath, type Encoded, RAW_BASE_SIZE } from "./bases.js";
import { FileWriter } from "./file-writer.js";
import { hashContent } from "./hash.js";
import { knownBase } from "./known-bases.js";

/** What the worker is asked to write (it reads the templates itself: this thread has nothing to send). */
export interface EarlyJob {
  /** The staging folder, which the worker makes. */
  staging: string;
  templatesDir?: string;
  /** Project paths to leave out: distribution files this run does not write. */
  skip: string[];
}

/** A file the worker wrote: the hash of its bytes, their length, and whether its merge base was written too. */
export interface WrittenAhead {
  hash: string;
  size: number;
  base: boolean;
}

/** Each file the worker wrote, with its project path. */
export type EarlyWritten = Array<WrittenAhead & { path: string }>;

/** The worker's answer: what it wrote, or why it stopped (it may have written part of the files). */
export type EarlyAnswer = { written: EarlyWritten } | { failed: string };

/**
 * Writes the project's files copied as they are from the templates, and their merge bases when the build's pack
 * holds them (a pack base is byte for byte what `gzipSync` gives here, see known-bases.ts, so the write stage
 * would write the same bytes). Runs in the example worker.
 */
export function writeEarlyFiles(job: EarlyJob): EarlyAnswer {
  try {
    const writer = new FileWriter();
    const skip = new Set(job.skip);
    const written: EarlyWritten = [];
    for (const template of readTemplates(job.templatesDir).values()) {
      const output = staticOutput(template);
      if (!output || skip.has(output.path)) continue;
      const { path, bytes } = output;
      writer.write(join(job.staging, path), bytes);
      const hash = hashContent(bytes);
      const base = bytes.length < RAW_BASE_SIZE ? knownBase(hash) : undefined;
      if (base) writer.write(basePath(job.staging, path, bytes.length), base);
      written.push({ path, hash, size: bytes.length, base: base !== undefined });
    }
    return { written };
  } catch (error) {
    return { failed: error instanceof Error ? error.message : String(error) };
  }
}

/** A new staging folder's path for a fresh project at `outDir`: a hidden sibling (see abandoned.ts). */
export function freshStagingPath(outDir: string): string {
  return join(dirname(outDir), `.${basename(outDir)}.tmp-${randomBytes(4).toString("hex")}`);
}

/** Whether a write to `outDir` would make a fresh project (the folder is missing or empty). */
export function isFreshTarget(outDir: string): boolean {
  return !existsSync(outDir) || readdirSync(outDir).length === 0;
}

/** A fresh project's files being written ahead into `staging` (see the module comment). */
export class EarlyFiles {
  constructor(
    readonly outDir: string,
    readonly staging: string,
    /** Settles once nothing writes into `staging` any more: what was written, or undefined. */
    private readonly answer: Promise<EarlyAnswer | undefined>,
  ) {}

  /** What the worker wrote, once it is done; undefined (and its folder removed) when it did not write them all. */
  async written(): Promise<Map<string, WrittenAhead> | undefined> {
    const answer = await this.answer;
    if (answer && "written" in answer) return new Map(answer.written.map(({ path, ...file }) => [path, file]));
    rmSync(this.staging, { recursive: true, force: true });
    return undefined;
  }

  /** Waits for the worker to stop writing, then removes what it wrote (a run that failed or wrote otherwise). */
  async discard(): Promise<void> {
    await this.answer;
    rmSync(this.staging, { recursive: true, force: true });
  }
}

/**
 * Of the files written ahead (see early.ts), those this run writes with the same bytes, and the generator-owned
 * ones among them whose base was written too (a base is the same bytes from whichever thread, see known-bases.ts).
 * Any other file written ahead, and its base, is removed.
 */
export function keptAhead(
  staging: string,
  encoded: readonly Encoded[],
  ahead: ReadonlyMap<string, WrittenAhead> | undefined,
): { files: Set<string>; bases: Set<string> } {
  const files = new Set<string>();
  const bases = new Set<string>();
  if (!ahead) return { files, bases };
  for (const { file, hash } of encoded) {
    const written = ahead.get(file.path);
    if (written?.hash !== hash) continue;
    files.add(file.path);
    if (written.base && file.owner === "generator") bases.add(file.path);
  }
  for (const [path, written] of ahead) {
    if (!files.has(path)) removeWrittenAhead(staging, join(staging, path));
    if (written.base && !bases.has(path)) removeWrittenAhead(staging, basePath(staging, path, written.size));
  }
  return { files, bases };
}

/**
 * Removes a file written ahead that this run does not write there after all, and the folders it leaves empty (the
 * staging folder itself stays).
 */
export function removeWrittenAhead(staging: string, file: string): void {
  rmSync(file, { force: true });
  for (let dir = dirname(file); dir.startsWith(staging + sep); dir = dirname(dir)) {
    if (readdirSync(dir).length > 0) return;
    rmdirSync(dir);
  }
}
