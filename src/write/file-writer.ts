/**
 * Synchronous writes that create each folder once. The write stage is
 * synchronous: a CLI has nothing else to do meanwhile, and each small
 * asynchronous write cost several trips through libuv's thread pool.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

export class FileWriter {
  private readonly made = new Set<string>();

  ensureDir(dir: string): void {
    if (this.made.has(dir)) return;
    mkdirSync(dir, { recursive: true });
    this.made.add(dir);
  }

  write(path: string, content: string | Buffer): void {
    this.ensureDir(dirname(path));
    writeFileSync(path, content);
  }
}

/**
 * Runs `task` at this thread's next wait (the write's first: it waits longest for the merge bases' compression on
 * the thread pool), as a promise of its end.
 */
export function whileWriting(task: () => unknown): Promise<void> {
  return new Promise((done, fail) =>
    setImmediate(() => {
      Promise.resolve()
        .then(task)
        .then(() => done(), fail);
    }),
  );
}
