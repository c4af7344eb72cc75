import { randomBytes } from "node:crypto";
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

/**
 * Writes `file` beside itself (`write` fills the temporary path) and renames it into place: a run cut short
 * leaves the previous file, not half of one. The folder and the rename are synchronous: each is one short system
 * call, and as a trip through the thread pool it waited behind the pool's compression of the merge bases.
 */
export async function replaceFile(file: string, write: (temporary: string) => Promise<void>): Promise<void> {
  mkdirSync(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  await write(temporary);
  renameSync(temporary, file);
}

/**
 * `replaceFile` for bytes already at hand, in one synchronous call: small records (the code cache's entries, the
 * stamps beside the spec copy), where a trip through the thread pool would take longer than the write. The temporary
 * name is unique to this call, so concurrent runs sharing a folder never write into each other's; on failure it is
 * removed and the error thrown.
 */
export function replaceFileSync(file: string, bytes: Buffer | string, encoding?: BufferEncoding): void {
  mkdirSync(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`;
  try {
    writeFileSync(temporary, bytes, encoding);
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}

/**
 * Waits for every write, then fails with the first failure, if any: unlike `Promise.all`, nothing is still writing
 * when the caller goes on (a failed fresh project's staging folder is removed after it).
 */
export async function settleAll(writes: ReadonlyArray<Promise<unknown> | undefined | false | "">): Promise<void> {
  const results = await Promise.allSettled(writes);
  const failed = results.find((result) => result.status === "rejected");
  if (failed) throw failed.reason;
}
