/**
 * Synchronous writes that create each folder once. The write stage is
 * synchronous: a CLI has nothing else to do meanwhile, and each small
 * asynchronous write cost several trips through libuv's thread pool.
 */
import { close, mkdirSync, openSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

export class FileWriter {
  private readonly made = new Set<string>();
  private readonly releasing: Array<Promise<void>> = [];

  ensureDir(dir: string): void {
    if (this.made.has(dir)) return;
    mkdirSync(dir, { recursive: true });
    this.made.add(dir);
  }

  write(path: string, content: string | Buffer): void {
    this.ensureDir(dirname(path));
    writeFileSync(path, content);
  }

  /** Renames `from` over `to`; `large`: the file it replaces is freed on the thread pool (see `renameReleasing`). */
  rename(from: string, to: string, large = false): void {
    this.ensureDir(dirname(to));
    if (!large) return renameSync(from, to);
    const closing = renameReleasing(from, to);
    if (closing) this.releasing.push(closing);
  }

  /** Resolves once every file replaced by `rename` is freed. */
  async released(): Promise<void> {
    await Promise.all(this.releasing);
  }
}

/**
 * `renameSync(from, to)`, leaving the freeing of the file it replaces to the thread pool; the returned promise
 * settles when it is done (undefined: nothing was held). On ext4, freeing a large file whose blocks are allocated
 * costs the call that drops its last reference 2–6 ms (GitHub's 6 MB data/tools.json, its merge base and the spec
 * copy: each rename over one of them took ≈ 5 ms of this thread). The rename drops its last link, but a descriptor
 * opened before keeps it until closed, and closing it on the pool frees the blocks beside this thread's work. Only
 * on Linux: elsewhere a file held open may not be renamed over.
 */
export function renameReleasing(from: string, to: string): Promise<void> | undefined {
  const held = holdOpen(to);
  try {
    renameSync(from, to);
  } catch (error) {
    if (held !== undefined) close(held);
    throw error;
  }
  // A failed close changes nothing for the renamed file: it only ends this run's hold on the replaced one.
  return held === undefined ? undefined : new Promise((resolve) => close(held, () => resolve()));
}

function holdOpen(file: string): number | undefined {
  if (process.platform !== "linux") return undefined;
  try {
    return openSync(file, "r");
  } catch {
    // Nothing there to replace (or unreadable: then the rename frees it, as before).
    return undefined;
  }
}
