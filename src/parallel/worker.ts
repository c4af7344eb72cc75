/**
 * Worker-thread entry (see ./index.ts). Started right after the spec is
 * loaded, it first computes a cold run's cache keys when asked
 * (src/cache/cold-keys.ts), then loads the example code and readies its
 * example generator, all while the main thread normalises, dereferences and
 * models; then it computes the example outcomes of the units it takes from
 * the queue it shares with the main thread, and answers once more.
 */
import { parentPort, workerData } from "node:worker_threads";
import { computeColdKeys, type KeysAnswer } from "../cache/cold-keys.js";
import type { WorkerAnswer, WorkerRequest, WorkerStart } from "./outcomes.js";

const answer = (message: WorkerAnswer) => parentPort?.postMessage(message);

const job = (workerData as WorkerStart | undefined)?.keys;
if (job) answer({ kind: "keys", keys: keysOrFailed() });

// Loaded after the keys: they are wanted first.
const outcomes = import("./outcomes.js");
const generator = outcomes.then(({ warmedGenerator }) => {
  try {
    return warmedGenerator();
  } catch {
    // A failed warm-up must not fail the run: the units then get a fresh generator, as the main thread's do.
    return undefined;
  }
});

parentPort?.once("message", async ({ units, slots }: WorkerRequest) => {
  const { computeUnits, sharedQueue } = await outcomes;
  answer({ kind: "outcomes", results: computeUnits(units, sharedQueue(slots), await generator) });
});

function keysOrFailed(): KeysAnswer | "failed" {
  try {
    return computeColdKeys(job!);
  } catch {
    // The main thread then keys the document itself, and meets the same error there.
    return "failed";
  }
}
