/**
 * Spreads the per-tool example work (./outcomes.ts) over two threads: this
 * one and one worker. Worth it only for large APIs — a worker costs ~0.2 s
 * of start-up (loading Ajv and json-schema-faker again) — so small runs and
 * one-core machines stay single-threaded. The rule depends on the run's size
 * only, never on the machine's current load, so a run behaves the same every
 * time. `GUIDED_MCP_WORKERS=0` turns it off, `=1` forces it on (used by tests).
 *
 * Tools with equal input schemas form one unit, computed by one thread, so
 * no schema is compiled twice; the threads take units from a shared queue.
 */
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { MessageChannel, Worker, type MessagePort } from "node:worker_threads";
import { toolSeed } from "../guidance/index.js";
import { operationCount } from "../load/index.js";
import { listenToDrafts, type DraftListener } from "../model/draft-listener.js";
import {
  computeUnits,
  outcomeUnits,
  queueSlots,
  sharedQueue,
  type OutcomeResults,
  type OutcomeTask,
  type WorkerRequest,
} from "./outcomes.js";
import type { SpeculationItem, WorkerSetup } from "./speculation.js";

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
  run(request: WorkerRequest): Promise<OutcomeResults>;
  release(): Promise<void>;
}

/**
 * Starts the worker when a run of the parsed `document`'s operations will use
 * one (same rule as `shouldUseWorker`); the model stage's tool drafts are sent
 * to it ahead, with their seeds from `seed` (see ./speculation.ts).
 */
export function startExampleWorker(document: unknown, seed: number): ExampleWorker | undefined {
  return shouldUseWorker(operationCount(document)) ? spawnWorker(seed) : undefined;
}

/** Drafts sent ahead per message: one message per tool would cost this thread more than it saves the worker. */
const AHEAD_BATCH = 16;

function spawnWorker(seed?: number): ExampleWorker | undefined {
  const url = workerFile();
  if (!url) return undefined;
  const channel = new MessageChannel();
  const setup: WorkerSetup = { ahead: channel.port2, stop: new Int32Array(new SharedArrayBuffer(4)) };
  const worker = new Worker(url, { workerData: setup, transferList: [channel.port2] });
  // Waiting for tasks, it must not keep a failed run's process alive.
  worker.unref();
  channel.port1.unref();
  const stopListening = seed === undefined ? () => {} : listenToDrafts(sendAhead(channel.port1, seed));
  const stopAhead = () => {
    stopListening();
    Atomics.store(setup.stop, 0, 1);
  };
  // Until `run`, an error or exit is only remembered: a run that never uses the worker must not fail for it.
  const ended = new Promise<OutcomeResults>((_, reject) => {
    worker.once("error", reject);
    worker.once("exit", (code) => reject(new Error(`example worker exited with code ${code}`)));
  });
  ended.catch(() => {});
  return {
    run(request) {
      stopAhead();
      worker.ref();
      const answer = new Promise<OutcomeResults>((resolve) => worker.once("message", resolve));
      worker.postMessage(request);
      return Promise.race([answer, ended]);
    },
    release: async () => {
      stopAhead();
      channel.port1.close();
      await worker.terminate();
    },
  };
}

/** Batches each tool draft's input schema and seed to the worker while the model stage runs. */
function sendAhead(port: MessagePort, seed: number): DraftListener {
  let batch: SpeculationItem[] = [];
  let broken = false;
  return (draft) => {
    if (broken) return;
    batch.push({ schema: draft.inputSchema, seed: toolSeed(seed, draft.baseName) });
    if (batch.length < AHEAD_BATCH) return;
    try {
      port.postMessage(batch);
    } catch {
      broken = true; // a value that cannot be cloned: nothing more is sent ahead, and the units are computed as usual
    }
    batch = [];
  };
}

/**
 * Runs the tasks on two threads; results as if one thread had computed
 * every unit. Both threads take units from one shared queue, largest first,
 * so the work splits evenly whatever a unit costs; `meanwhile` (work of this
 * thread that does not need the outcomes) runs first, while the worker has
 * the queue to itself.
 */
export async function computeOutcomesInParallel<T>(
  tasks: OutcomeTask[],
  started: ExampleWorker | undefined,
  meanwhile: () => T | Promise<T>,
): Promise<{ results: OutcomeResults; meanwhile: T }> {
  const units = outcomeUnits(tasks);
  const worker = units.length > 1 ? (started ?? spawnWorker()) : undefined;
  if (!worker) {
    await started?.release();
    const alongside = await meanwhile();
    return { results: computeUnits(units, sharedQueue(queueSlots(units.length))), meanwhile: alongside };
  }
  const slots = queueSlots(units.length);
  const remote = worker.run({ units, slots });
  remote.catch(() => {}); // awaited below, after this thread's share
  let alongside: T;
  let local: OutcomeResults;
  let other: OutcomeResults;
  try {
    alongside = await meanwhile();
    local = computeUnits(units, sharedQueue(slots));
    other = await remote;
  } finally {
    await worker.release();
  }
  return { results: merged(local, other), meanwhile: alongside };
}

/** The single-threaded check reports the first failing tool in model order; so do we. */
function merged(local: OutcomeResults, other: OutcomeResults): OutcomeResults {
  const errors = [local.compileError, other.compileError].filter(
    (error): error is NonNullable<typeof error> => error !== undefined,
  );
  if (errors.length > 0) return { outcomes: [], compileError: errors.reduce((a, b) => (a.index <= b.index ? a : b)) };
  return { outcomes: [...local.outcomes, ...other.outcomes].sort((a, b) => a.index - b.index) };
}
