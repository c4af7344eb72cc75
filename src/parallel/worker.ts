/**
 * Worker-thread entry: computes the example outcomes of the units it takes
 * from the queue it shares with the main thread (see ./index.ts). Started
 * before the units are known, so that loading its modules, and readying its
 * example generator, overlap the main thread's model stages; it answers one message.
 */
import { parentPort } from "node:worker_threads";
import { computeUnits, warmedGenerator, type WorkerRequest } from "./outcomes.js";
import { sharedQueue } from "./units.js";

const generator = readyGenerator();
parentPort?.once("message", ({ units, slots }: WorkerRequest) =>
  parentPort?.postMessage(computeUnits(units, sharedQueue(slots), generator)),
);

/** A failed warm-up must not fail the run: the units then get a fresh generator, as the main thread's do. */
function readyGenerator(): ReturnType<typeof warmedGenerator> | undefined {
  try {
    return warmedGenerator();
  } catch {
    return undefined;
  }
}
