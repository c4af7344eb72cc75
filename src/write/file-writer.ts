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
