/**
 * A cold run's model-cache keys, computed on a worker thread. A cold run
 * takes the full pipeline and needs the keys only to store what it computed
 * for the next run, yet hashing a large spec's operations and components is
 * ≈ 0.1 s (GitHub) on the main thread, before the model stages can start. So
 * a cold run of a large JSON spec read from a file hands that to a worker
 * (./keys-worker.ts), which reads the file again, checks that its bytes hash
 * to what this thread parsed, and computes the same keys from the same text,
 * while this thread normalises, dereferences and models; the outcomes are
 * stored under them when the cache is saved, if they line up (see
 * incremental.ts). Anything else — no answer, an error, other bytes — stores
 * nothing, which only costs the next run its reuse.
 *
 * Same size rule as the example worker (src/parallel): 150+ operations and two
 * cores, `GUIDED_MCP_WORKERS=0` off, `=1` on; not from TypeScript sources
 * (tests), where the worker script does not exist. Specs over 16 MB of text
 * (Microsoft Graph) keep the keys on this thread: a second parsed copy of the
 * document would raise the run's peak memory by hundreds of MB.
 */
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { LoadedSpec } from "../load/index.js";

export interface ColdKeysRequest {
  /** The spec file. */
  path: string;
  /** The SHA-256 of the bytes this thread parsed. */
  textHash: string;
  salt: string;
}

/** What a cold run needs of the keys: the prelude's, and each operation's in document order. */
export interface ColdKeys {
  prelude: string;
  operations: Array<{ path: string; method: string; key: string }>;
}

const MIN_OPERATIONS = 150;
const MAX_TEXT_LENGTH = 16 * 1024 * 1024;

/** Starts the keys' worker when this cold run qualifies (see above); `keys()` then waits for its answer. */
export function startColdKeys(
  loaded: LoadedSpec,
  salt: string,
  operationCount: number,
): { keys(): Promise<ColdKeys | undefined> } | undefined {
  const setting = process.env["GUIDED_MCP_WORKERS"];
  if (setting === "0") return undefined;
  if (setting !== "1" && (operationCount < MIN_OPERATIONS || availableParallelism() < 2)) return undefined;
  const script = new URL("./keys-worker.js", import.meta.url);
  if (script.protocol !== "file:" || !existsSync(fileURLToPath(script))) return undefined;
  if (!loaded.textHash || !loaded.location.startsWith("file:") || loaded.text.length > MAX_TEXT_LENGTH)
    return undefined;
  if (!/^\uFEFF?\s*\{/.test(loaded.text.slice(0, 256))) return undefined;
  const request: ColdKeysRequest = { path: fileURLToPath(loaded.location), textHash: loaded.textHash, salt };
  const worker = new Worker(script, { workerData: request });
  // Until its answer is awaited, it must not keep a failed run's process alive.
  worker.unref();
  const answer = new Promise<ColdKeys | undefined>((resolve) => {
    worker.once("message", (keys: ColdKeys | null) => resolve(keys ?? undefined));
    worker.once("error", () => resolve(undefined));
    worker.once("exit", () => resolve(undefined));
  });
  return {
    keys() {
      worker.ref();
      return answer;
    },
  };
}
