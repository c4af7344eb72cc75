import { mkdir, rename } from "node:fs/promises";
import { dirname } from "node:path";

/**
 * Writes `file` beside itself (`write` fills the temporary path) and renames it into place: a run cut short
 * leaves the previous file, not half of one.
 */
export async function replaceFile(file: string, write: (temporary: string) => Promise<void>): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  await write(temporary);
  await rename(temporary, file);
}
