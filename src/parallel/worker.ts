/**
 * Worker-thread entry: computes the example outcomes of the units it takes
 * from the queue it shares with the main thread (see ./index.ts). Started
 * before the units are known, it loads its modules and readies its example
 * generator while the main thread models, then computes the tool drafts sent
 * ahead (./speculation.ts) until the units come; it answers one message.
 */
import { parentPort, workerData } from "node:worker_threads";
import { computeUnits, sharedQueue, warmedGenerator, type WorkerRequest } from "./outcomes.js";
import { speculate, Speculation, type WorkerSetup } from "./speculation.js";

const generator = readyGenerator();
const ahead = generator ? new Speculation(generator) : undefined;
if (ahead && workerData) speculate(workerData as WorkerSetup, ahead);
parentPort?.once("message", ({ units, slots }: WorkerRequest) =>
  parentPort?.postMessage(computeUnits(units, sharedQueue(slots), generator, ahead)),
);

/** A failed warm-up must not fail the run: the units then get a fresh generator, as the main thread's do. */
function readyGenerator(): ReturnType<typeof warmedGenerator> | undefined {
  try {
    return warmedGenerator();
  } catch {
    return undefined;
  }
}
