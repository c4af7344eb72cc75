/**
 * A regeneration's large files, read on the thread pool while this thread does something else.
 *
 * A regeneration reads the spec (GitHub: 7–13 MB) right after opening its caches (≈ 10 ms), and the project's
 * `data/tools.json` (6 MB) after the model and guidance (≈ 0.1 s later). Read synchronously, each costs this thread
 * the read and the page faults of a fresh buffer (≈ 3–5 ms); read here, a pool thread pays them on the other core,
 * and this thread finds the bytes in place when it asks.
 *
 * Each file is opened and measured here, then read whole in one pool task: further trips (a read per chunk, as
 * `fs.readFile` makes) would each wait for this thread to come back to its event loop. The bytes are the file's at
 * the moment of the read, as a synchronous read's are at its own: a file changed meanwhile is read as it was.
 * Anything unusual (no such file, not a regular file, empty, too large, a failed read) leaves the reading to the
 * caller's own synchronous read, which reports any error as before.
 */
import { closeSync, fstatSync, openSync, read, readSync, type Stats } from "node:fs";

/** Larger files are left to the caller (whose own limits and errors apply). */
const MAX_AHEAD_BYTES = 256 * 1024 * 1024;

const pending = new Map<string, Promise<Buffer | undefined>>();

/**
 * Starts reading `paths` (absolute), forgetting whatever an earlier run read ahead: a run takes only what it
 * started itself. Call with no paths to forget only.
 */
export function readAhead(paths: string[]): void {
  pending.clear();
  for (const path of paths) {
    const reading = startReading(path);
    if (reading) pending.set(path, reading);
  }
}

/** The bytes of `path` read ahead by this run, once read (undefined: not read ahead, or left to the caller). */
export function takeAhead(path: string): Promise<Buffer | undefined> | undefined {
  const reading = pending.get(path);
  pending.delete(path);
  return reading;
}

function startReading(path: string): Promise<Buffer | undefined> | undefined {
  return readOnPool(
    path,
    (stats) => (stats.isFile() && stats.size > 0 && stats.size <= MAX_AHEAD_BYTES ? stats.size : undefined),
    (buffer, bytesRead, descriptor) => rest(descriptor, buffer, bytesRead),
  );
}

/**
 * Opens `path`, and reads from its start into a new buffer of `lengthFor(its stats)` bytes in one pool task; `then`
 * gets the buffer and the bytes read while the file is still open. Undefined, and nothing read, when the file cannot
 * be opened or `lengthFor` gives none; a failed read resolves to undefined.
 */
export function readOnPool<T>(
  path: string,
  lengthFor: (stats: Stats) => number | undefined,
  then: (buffer: Buffer, bytesRead: number, descriptor: number) => T | undefined,
): Promise<T | undefined> | undefined {
  let descriptor: number;
  try {
    descriptor = openSync(path, "r");
  } catch {
    return undefined;
  }
  try {
    const length = lengthFor(fstatSync(descriptor));
    if (length === undefined) throw new Error("left to the caller");
    const buffer = Buffer.allocUnsafe(length);
    return new Promise((resolve) =>
      read(descriptor, buffer, 0, buffer.length, 0, (error, bytesRead) => {
        resolve(error ? undefined : then(buffer, bytesRead, descriptor));
        closeSync(descriptor);
      }),
    );
  } catch {
    closeSync(descriptor);
    return undefined;
  }
}

/** The whole buffer, after reading what one read left (a file cut short meanwhile ends where it now ends). */
function rest(descriptor: number, buffer: Buffer, bytesRead: number): Buffer | undefined {
  let position = bytesRead;
  try {
    while (position < buffer.length) {
      const more = readSync(descriptor, buffer, position, buffer.length - position, position);
      if (more === 0) break;
      position += more;
    }
  } catch {
    return undefined;
  }
  return position < buffer.length ? buffer.subarray(0, position) : buffer;
}
