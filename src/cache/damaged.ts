/**
 * A damaged cache costs a full run, never a failed one. The caches' lines are read whole (a line cut short by an
 * interrupted write is left out when read), but an entry is parsed only when first used, so an edited or
 * corrupted entry is found late, after the run has counted on it. `withUndamagedCaches` then runs again without
 * reading the caches, and that run rewrites them.
 */
import { GeneratorError } from "../diagnostics.js";

export class DamagedCacheError extends GeneratorError {
  constructor(file: string, what: string) {
    super(file, `${what} does not parse (the file was edited or damaged)`, "delete the file and run again");
    this.name = "DamagedCacheError";
  }
}

/** `run(true)`, reading the caches; on a damaged entry, reported through `progress`, `run(false)`. */
export async function withUndamagedCaches<T>(
  run: (readCaches: boolean) => Promise<T>,
  progress: (line: string) => void,
): Promise<T> {
  try {
    return await run(true);
  } catch (error) {
    if (!(error instanceof DamagedCacheError)) throw error;
    progress(`${error.where}: ${error.problem} — generating again without reading the caches, which this run rewrites`);
    return run(false);
  }
}
