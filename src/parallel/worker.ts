/**
 * Worker-thread entry: computes the example outcomes of the units it takes
 * from the queue it shares with the main thread (see ./index.ts). Started
 * before the units are known, so that loading its modules overlaps the main
 * thread's model stages; it answers one message.
 */
import { parentPort } from "node:worker_threads";
import { computeUnits, sharedQueue, type WorkerRequest } from "./outcomes.js";

parentPort?.once("message", ({ units, slots }: WorkerRequest) =>
  parentPort?.postMessage(computeUnits(units, sharedQueue(slots))),
);
