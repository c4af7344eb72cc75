/**
 * Worker-thread entry: computes the example outcomes of the tasks it is sent
 * (see ./index.ts). Started before the tasks are known, so that loading its
 * modules overlaps the main thread's model stages; it answers one message.
 */
import { parentPort } from "node:worker_threads";
import { computeOutcomes, type OutcomeTask } from "./outcomes.js";

parentPort?.once("message", (tasks: OutcomeTask[]) => parentPort?.postMessage(computeOutcomes(tasks)));
