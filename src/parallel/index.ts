/**
 * Spreads the per-tool example work (./outcomes.ts) over two threads: this
 * one and one worker. Worth it only for APIs of some hundreds of tools — a
 * worker costs ≈ 50 ms of CPU to start (a Node thread, Ajv and json-schema-faker
 * loaded again, its example generator readied) — so small runs and one-core
 * machines stay single-threaded. The rule depends on the run's size
 * only, never on the machine's current load, so a run behaves the same every
 * time. `GUIDED_MCP_WORKERS=0` turns it off, `=1` forces it on (used by tests).
 *
 * Tools with equal input schemas form one unit, computed by one thread, so
 * no schema is compiled twice; the threads take units from a shared queue.
 */
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import { Worker } from "node:worker_threads";
import { listenToDrafts } from "../model/draft-listener.js";
import { schemaText } from "../model/schema-text.js";
import { collectGarbageNow } from "./collect.js";
import type { Timed } from "../timed.js";
import { openAhead } from "./ahead.js";
// Types only: ./outcomes.ts brings the example search (json-schema-faker, faker), loaded by a run that computes outcomes.
import type { OutcomeResults, WorkerRequest } from "./outcomes.js";
import type { EarlyAnswer, EarlyJob } from "../write/early.js";
import { outcomeUnits, queueSlots, sharedQueue, type OutcomeTask, type OutcomeUnit } from "./units.js";

/**
 * Below this many tools to compute, one thread is as fast or faster than paying for a worker's start-up.
 * Since the CLI lowers the priority of V8's background threads (src/thread-priority.ts), the worker gets the
 * second core instead of sharing it with them (session 7 in docs/benchmarks.md). Paired runs on a quiet 2-core
 * machine with and without the worker, median wall, once the worker no longer held up the run at its end:
 * box.com (258 tools) 0.41 → 0.42 s and digitalocean.com (290) 0.45 → 0.45 s, even or slower; bitbucket.org
 * (305) 0.44 → 0.41 s, vimeo.com (326) 0.34 → 0.33 s, sendgrid.com (334) 0.42 → 0.42 s, zoom.us (373) 0.60 →
 * 0.55 s, Stripe (452) 0.82 → 0.75 s, faster or even, with no more than 0.05 s more CPU in all (less on zoom.us
 * and Stripe). Larger APIs gain more (GitHub, 1,223 tools: 1.10 → 1.02 s when the threshold went to 600).
 */
const MIN_TOOLS_FOR_WORKER = 300;

export function shouldUseWorker(taskCount: number): boolean {
  const setting = process.env["GUIDED_MCP_WORKERS"];
  if (setting === "0") return false;
  if (!workerFile()) return false;
  if (setting === "1") return taskCount > 1;
  return taskCount >= MIN_TOOLS_FOR_WORKER && availableParallelism() >= 2;
}

/** The compiled worker script; absent when running from TypeScript sources (tests), which then stay single-threaded. */
function workerFile(): URL | undefined {
  const url = new URL("./worker.js", import.meta.url);
  return url.protocol === "file:" && existsSync(fileURLToPath(url)) ? url : undefined;
}

/**
 * A worker started ahead of its tasks: created as soon as a run knows it is
 * large (right after loading the spec), it loads Ajv and json-schema-faker on
 * the other core while this thread normalises and dereferences, and computes
 * the tool drafts sent ahead while this thread models (./ahead.ts).
 * `release()` ends it when the run turns out not to need it.
 */
export interface ExampleWorker {
  /**
   * Hands the worker the final units: those it computed ahead stay its own, the others are `shared` between it
   * and this thread (in this order, through `slots`); `results` are the worker's outcomes.
   */
  run(units: OutcomeUnit[], slots: Int32Array): { shared: OutcomeUnit[]; results: Promise<OutcomeResults> };
  /**
   * Asks the worker to write a fresh project's files that do not depend on the spec once it has sent its outcomes
   * (see src/write/early.ts); call before `run`. Settles once the worker no longer writes: with its answer, or
   * undefined when it never started or ended without one.
   */
  afterOutcomes(job: EarlyJob): Promise<EarlyAnswer | undefined>;
  /**
   * Ends the worker without waiting for its thread to stop: tearing down its heap takes 20–40 ms (Stripe,
   * GitHub) on the other core, which the run's next stages need not wait for. A worker that was sent files to write
   * (`afterOutcomes`) is left to end by itself once they are written.
   */
  release(): void;
  /**
   * `timed` as it is, but once its first stage is done, V8's flags are put back as they were before the worker
   * was made (see `withRoomyHeap`); give it to the stages that follow the worker's start.
   */
  restoring(timed: Timed): Timed;
}

/**
 * Starts the worker when a run of `operationCount` operations will use one (same rule as `shouldUseWorker`);
 * the model stage's drafts are sent to it ahead, each with the seed `seedOf` gives its base name. `roomyHeap`:
 * whether the stage that follows (given `restoring`) compiles no script, so the worker can be made with room in
 * its heap (see `withRoomyHeap`): a run with the project's caches keys the spec first; one without them
 * loads the normalise and dereference chunks at once, which the flag would keep from the code cache.
 */
export function startExampleWorker(
  operationCount: number,
  seedOf: (toolName: string) => number,
  roomyHeap: boolean,
): ExampleWorker | undefined {
  if (!shouldUseWorker(operationCount)) return undefined;
  if (operationCount > MAX_OPERATIONS_AHEAD) return spawnWorker();
  // While the other core is still idle (see collect.ts).
  collectGarbageNow();
  return spawnWorker({ operationCount, seedOf, roomyHeap });
}

/**
 * Above this many operations the worker does not compute ahead. During the model stage the second core is not
 * idle: V8's background threads compile the model's code and help its garbage collection there (Stripe, GitHub:
 * ≈ 130–150 ms of their CPU in a ≈ 150 ms model stage), and a busy worker takes it from them, so the model itself
 * takes longer. Up to GitHub's size (1,223 operations; autotask.net's 2,958 in the one quiet pair measured) the
 * worker's head start is worth more (docs/benchmarks.md, session 8). On Microsoft Graph (11,422 operations) the
 * main thread's model CPU grew from ≈ 0.8 to ≈ 1.3 s, the process's CPU by ≈ 0.6 s, the peak memory by 25–40 MB
 * (past 700 MB: the worker's state is held while the dereferenced spec still is), and the run was no faster.
 */
const MAX_OPERATIONS_AHEAD = 5_000;

function spawnWorker(options?: {
  operationCount: number;
  seedOf: (toolName: string) => number;
  roomyHeap: boolean;
}): ExampleWorker | undefined {
  const url = workerFile();
  if (!url) return undefined;
  const ahead = options && openAhead(options.operationCount, options.seedOf);
  // Only a worker computing ahead gets the room: its heap's mark-compact falls in the middle of its examples.
  const make = () => new Worker(url, ahead ? { workerData: ahead.setup, transferList: [ahead.setup.port] } : {});
  const { worker, restore } = ahead && options.roomyHeap ? withRoomyHeap(make) : { worker: make(), restore: () => {} };
  // Waiting for tasks, it must not keep a failed run's process alive.
  worker.unref();
  const stopListening = ahead ? listenToDrafts(ahead.sender.listener) : () => {};
  // Until `run`, an error or exit is only remembered: a run that never uses the worker must not fail for it.
  const ended = new Promise<OutcomeResults>((_, reject) => {
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`example worker exited with code ${code}`)));
  });
  ended.catch(() => {});
  let early: { job: EarlyJob; answered: (answer: EarlyAnswer | undefined) => void; sent: boolean } | undefined;
  return {
    run(units, slots) {
      stopListening();
      const split = ahead?.sender.split(units) ?? { mine: [], shared: units, wire: units };
      worker.ref();
      const answer = new Promise<OutcomeResults>((resolve) =>
        worker.once("message", (results: OutcomeResults) => {
          resolve(results);
          // The early files' answer is the next message (the worker then ends: see worker.ts).
          if (early) worker.once("message", early.answered);
        }),
      );
      const request: WorkerRequest = {
        mine: split.mine,
        shared: split.wire,
        slots,
        ...(early && { early: early.job }),
      };
      if (early) early.sent = true;
      worker.postMessage(request);
      return { shared: split.shared, results: Promise.race([answer, ended]) };
    },
    afterOutcomes(job) {
      return new Promise((resolve) => {
        early = { job, answered: resolve, sent: false };
        // A worker that ends without answering writes nothing any more.
        ended.catch(() => resolve(undefined));
      });
    },
    restoring: (timed) => async (stage, run) => {
      try {
        return await timed(stage, run);
      } finally {
        restore();
      }
    },
    release: () => {
      restore();
      stopListening();
      ahead?.close();
      // A worker writing early files ends by itself once they are written; stopped now, it would leave them half
      // done. Until it ends it stays referenced: this thread may be waiting for nothing but its answer.
      if (early?.sent) return;
      worker.unref();
      early?.answered(undefined);
      void worker.terminate();
    },
  };
}

/**
 * The old generation a worker computing ahead starts with, in MB. Otherwise V8 sets a new heap's first limit from
 * how much of it survives the first scavenges, and the worker, with its modules, its example generator and the
 * schemas sent ahead, reached it at ≈ 17 MB on Stripe: an incremental mark-compact (≈ 15–20 ms of its CPU) in the
 * middle of its examples. With this room it runs none before the join (Stripe, GitHub).
 */
const WORKER_OLD_SPACE_MB = 64;
const OLD_SPACE_FLAG = "--initial-old-space-size";

/**
 * Makes the worker with room in its heap. V8 reads `--initial-old-space-size` when it makes a heap, and its flags
 * are the process's, so the flag is set around `new Worker` only: the worker's thread makes its heap within about
 * a millisecond. V8 also hashes its flags into every code cache check: while this one is set, a script compiled
 * with cached data (src/code-cache.ts; Node's own built-in modules) is refused and compiled afresh, which is why
 * `restore` puts it back after this thread's next stage, which compiles no script. The worker's own start, made
 * under the flag, compiles Node's built-ins afresh: ≈ 20–25 ms more of its CPU, while it waits for the model's
 * first drafts anyway. Should its heap be made after the flag is put back (a machine too busy to start the thread
 * in that time), it gets V8's usual sizing: slower, never different. A flag the user gave Node is left alone.
 */
function withRoomyHeap(make: () => Worker): { worker: Worker; restore: () => void } {
  const given = [...process.execArgv, process.env["NODE_OPTIONS"] ?? ""].some((arg) => arg.includes(OLD_SPACE_FLAG));
  if (given) return { worker: make(), restore: () => {} };
  setFlagsFromString(`${OLD_SPACE_FLAG}=${WORKER_OLD_SPACE_MB}`);
  let restored = false;
  const restore = () => {
    if (restored) return;
    restored = true;
    // 0 is V8's default: the flag hash is again the one every code cache entry was made with.
    setFlagsFromString(`${OLD_SPACE_FLAG}=0`);
  };
  try {
    return { worker: make(), restore };
  } catch (error) {
    restore();
    throw error;
  }
}

/**
 * Runs the tasks on two threads; results as if one thread had computed
 * every unit. Both threads take units from one shared queue, largest first,
 * so the work splits evenly whatever a unit costs; `meanwhile` (work of this
 * thread that does not need the outcomes) runs first, while the worker has
 * the queue to itself; it is given `busy`, which tells whether the worker is
 * still computing: until then, what this thread does meanwhile does not delay
 * the outcomes (this thread would wait for them otherwise). Units the worker
 * computed ahead are its alone.
 */
export async function computeOutcomesInParallel<T>(
  tasks: OutcomeTask[],
  started: ExampleWorker | undefined,
  meanwhile: (busy: () => boolean) => T | Promise<T>,
): Promise<{ results: OutcomeResults; meanwhile: T }> {
  const units = outcomeUnits(tasks);
  const worker = units.length > 1 ? (started ?? spawnWorker()) : undefined;
  if (!worker) {
    started?.release();
    const alongside = await meanwhile(() => false);
    return { results: computeAlone(units, await import("./outcomes.js")), meanwhile: alongside };
  }
  const slots = queueSlots();
  const { shared, results: remote } = worker.run(units, slots);
  // (Not `performance`: its first use loads perf_hooks, ≈ 0.7 ms.)
  const sentAt = process.hrtime.bigint();
  const queue = sharedQueue(slots);
  remote.catch(() => {}); // awaited below, after this thread's share
  let alongside: T;
  let local: OutcomeResults;
  let other: OutcomeResults | undefined;
  try {
    alongside = await meanwhile(() => !queue.workerDone());
    // Loaded once the worker has its units (≈ 10 ms: the example search's chunks), and only when the worker will
    // not have computed every unit by the time that is done (it often has taken them all, with the units it
    // computed ahead).
    local = worthJoining(shared, Atomics.load(slots, 0), Number(process.hrtime.bigint() - sentAt) / 1e6)
      ? (await import("./outcomes.js")).computeUnits(shared, queue)
      : { outcomes: [] };
    other = await remote.catch(() => undefined);
  } finally {
    worker.release();
  }
  // A worker that ended without answering (out of memory, a fault in its thread) is only a lost head start: this
  // thread computes every unit again, as one thread would have, whatever shares the two had taken.
  if (!other) return { results: computeAlone(units, await import("./outcomes.js")), meanwhile: alongside };
  return { results: merged(local, other), meanwhile: alongside };
}

/**
 * What loading the example search costs this thread before it computes a unit (its chunks ≈ 8–10 ms on a quiet
 * machine, and its first units run in code V8 has only just compiled): when the worker will be done sooner, this
 * thread only waits for it.
 */
const JOINING_MS = 12;
/**
 * The cost of a unit beside its schema's JSON length, in the same measure (bytes of JSON): a small unit still takes a
 * compile and its tools' examples. Fitted on cold Stripe runs, where it predicted the worker's remaining time within
 * −15 % … +45 % (with the bytes alone it was 2–3 times too short).
 */
const UNIT_COST = 500;

/**
 * Whether this thread should load the example search and take units from the queue (the first `taken` of `shared`
 * are gone), given how long the worker has had them: when the worker, at the pace it has kept so far, will compute
 * the rest before this thread could start on one, waiting for it ends sooner. A worker that has taken none yet has
 * no pace (a busy machine may have starved it): this thread then joins in.
 */
export function worthJoining(shared: OutcomeUnit[], taken: number, elapsedMs: number): boolean {
  if (taken >= shared.length) return false;
  if (taken === 0) return true;
  let done = 0;
  let left = 0;
  for (let i = 0; i < shared.length; i++) {
    const cost = schemaText(shared[i]!.schema).length + UNIT_COST;
    if (i < taken) done += cost;
    else left += cost;
  }
  return (left / done) * elapsedMs > JOINING_MS;
}

function computeAlone(units: OutcomeUnit[], { computeUnits }: typeof import("./outcomes.js")): OutcomeResults {
  return computeUnits(units, sharedQueue(queueSlots()));
}

/** The single-threaded check reports the first failing tool in model order; so do we. */
function merged(local: OutcomeResults, other: OutcomeResults): OutcomeResults {
  const errors = [local.compileError, other.compileError].filter(
    (error): error is NonNullable<typeof error> => error !== undefined,
  );
  if (errors.length > 0) return { outcomes: [], compileError: errors.reduce((a, b) => (a.index <= b.index ? a : b)) };
  return { outcomes: [...local.outcomes, ...other.outcomes].sort((a, b) => a.index - b.index) };
}
