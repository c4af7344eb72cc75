/**
 * Worker-thread entry: computes the example outcomes of the units it takes
 * from the queue it shares with the main thread (see ./index.ts). Started
 * before the units are known, it loads its modules and readies its example
 * generator while the main thread normalises and dereferences, computes the
 * tool drafts sent ahead while the main thread models (./ahead.ts), then its
 * units; it answers one message, and, for a fresh project, writes the files that
 * do not depend on the spec (src/write/early.ts) and answers again.
 */
import { parentPort, workerData } from "node:worker_threads";
import { createExampleGenerator } from "../guidance/examples/index.js";
import type { AheadSetup } from "./ahead.js";
import { AheadReceiver } from "./ahead-receiver.js";
import { computeUnits, warmedGenerator, type WorkerRequest } from "./outcomes.js";
import { sharedQueue, type OutcomeUnit } from "./units.js";
import { writeEarlyFiles } from "../write/early.js";

const generator = readyGenerator();
const ahead = workerData ? new AheadReceiver(workerData as AheadSetup, generator) : undefined;
ahead?.listen();
parentPort?.once("message", ({ mine, shared, slots, early }: WorkerRequest) => {
  // Without drafts sent ahead (a worker started late), every unit comes with its schema.
  const units = ahead?.units(mine, shared) ?? { computed: [], shared: shared as OutcomeUnit[] };
  const queue = sharedQueue(slots);
  const results = computeUnits(units.shared, queue, generator, units.computed);
  // From here on, nothing the main thread does meanwhile delays this answer (see `computeOutcomesInParallel`).
  queue.finishWorker();
  parentPort?.postMessage(results);
  if (!early) return;
  parentPort?.postMessage(writeEarlyFiles(early));
  // Its work is done: the thread ends now, so that its heap is torn down while the main thread emits and writes
  // (the main thread receives every message posted before the exit).
  process.exit(0);
});

/** A failed warm-up must not fail the run: the units then get a fresh generator, as the main thread's do. */
function readyGenerator(): ReturnType<typeof warmedGenerator> {
  try {
    return warmedGenerator();
  } catch {
    return createExampleGenerator();
  }
}
