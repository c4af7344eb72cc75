/**
 * Spreads the per-tool example work (./outcomes.ts) over two threads: this
 * one and one worker. Worth it only for large APIs — a worker costs ~0.2 s
 * of start-up (loading Ajv and json-schema-faker again) — so small runs and
 * one-core machines stay single-threaded. The rule depends on the run's size
 * only, never on the machine's current load, so a run behaves the same every
 * time. `GUIDED_MCP_WORKERS=0` turns it off, `=1` forces it on (used by tests).
 *
 * Tools with equal input schemas go to the same side, so no schema is
 * compiled twice; each side gets about half of the schema bytes.
 */
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { computeOutcomes, type OutcomeResults, type OutcomeTask } from "./outcomes.js";

/** Below this many tools to compute, one thread is faster than paying for a worker's start-up. */
const MIN_TOOLS_FOR_WORKER = 150;

export function shouldUseWorker(taskCount: number): boolean {
  const setting = process.env["GUIDED_MCP_WORKERS"];
  if (setting === "0") return false;
  if (!workerFile()) return false;
  if (setting === "1") return taskCount > 1;
  // Measured paired at load 2–4 on 2 cores: Stripe 4.40 s with the worker against 5.38 s without (median
  // of 3), GitHub even (5.22 / 5.17 s); it costs ~0.4–0.6 s of extra CPU, which a free core absorbs.
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
 * the other core while this thread normalises, dereferences and models.
 * `release()` ends it when the run turns out not to need it.
 */
export interface ExampleWorker {
  run(tasks: OutcomeTask[]): Promise<OutcomeResults>;
  release(): Promise<void>;
}

/** Starts the worker when a run of `operationCount` operations will use one (same rule as `shouldUseWorker`). */
export function startExampleWorker(operationCount: number): ExampleWorker | undefined {
  return shouldUseWorker(operationCount) ? spawnWorker() : undefined;
}

function spawnWorker(): ExampleWorker | undefined {
  const url = workerFile();
  if (!url) return undefined;
  const worker = new Worker(url);
  // Waiting for tasks, it must not keep a failed run's process alive.
  worker.unref();
  // Until `run`, an error or exit is only remembered: a run that never uses the worker must not fail for it.
  const ended = new Promise<OutcomeResults>((_, reject) => {
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`example worker exited with code ${code}`)));
  });
  ended.catch(() => {});
  return {
    run(tasks) {
      worker.ref();
      const answer = new Promise<OutcomeResults>((resolve) => worker.once("message", resolve));
      worker.postMessage(tasks);
      return Promise.race([answer, ended]);
    },
    release: async () => void (await worker.terminate()),
  };
}

/** Runs the tasks on two threads; results as if `computeOutcomes(tasks)` had run on one. */
export async function computeOutcomesInParallel(
  tasks: OutcomeTask[],
  started?: ExampleWorker,
): Promise<OutcomeResults> {
  const [mine, theirs] = split(tasks);
  const worker = theirs.length > 0 ? (started ?? spawnWorker()) : undefined;
  if (!worker) {
    await started?.release();
    return computeOutcomes(tasks);
  }
  const remote = worker.run(theirs);
  remote.catch(() => {}); // awaited below, after this thread's half
  const local = computeOutcomes(mine);
  let other: OutcomeResults;
  try {
    other = await remote;
  } finally {
    await worker.release();
  }
  // The single-threaded check reports the first failing tool in model order; so do we.
  const errors = [local.compileError, other.compileError].filter(
    (error): error is NonNullable<typeof error> => error !== undefined,
  );
  if (errors.length > 0) return { outcomes: [], compileError: errors.reduce((a, b) => (a.index <= b.index ? a : b)) };
  return { outcomes: [...local.outcomes, ...other.outcomes].sort((a, b) => a.index - b.index) };
}

/** Two halves by schema bytes, equal schemas together, each half in task order. */
function split(tasks: OutcomeTask[]): [OutcomeTask[], OutcomeTask[]] {
  const groups = new Map<string, OutcomeTask[]>();
  for (const task of tasks) {
    const key = JSON.stringify(task.schema);
    const group = groups.get(key);
    if (group) group.push(task);
    else groups.set(key, [task]);
  }
  // Largest first into the lighter side: a simple, deterministic balance.
  const sized = [...groups]
    .map(([key, group]) => ({ size: key.length, group }))
    .sort((a, b) => b.size - a.size || a.group[0]!.index - b.group[0]!.index);
  const sides: [OutcomeTask[], OutcomeTask[]] = [[], []];
  const load = [0, 0];
  for (const { size, group } of sized) {
    const side = load[0]! <= load[1]! ? 0 : 1;
    sides[side].push(...group);
    load[side]! += size + 2000;
  }
  return [sides[0].sort((a, b) => a.index - b.index), sides[1].sort((a, b) => a.index - b.index)];
}
