/** Worker-thread entry: computes the example outcomes of the tasks it was started with (see ./index.ts). */
import { parentPort, workerData } from "node:worker_threads";
import { computeOutcomes, type OutcomeTask } from "./outcomes.js";

parentPort?.postMessage(computeOutcomes(workerData as OutcomeTask[]));
