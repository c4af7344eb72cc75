/**
 * The units two threads share out (see ./index.ts and ./outcomes.ts): tools
 * with equal input schemas grouped, and the queue both threads take them
 * from. Apart from ./outcomes.ts, which brings the example search, so that
 * the main thread can hand the worker its units before loading that.
 */
import type { JsonSchema } from "../model/ir.js";
import { schemaText } from "../model/schema-text.js";

export interface OutcomeTask {
  /** The tool's position in the model, to report and merge in tool order. */
  index: number;
  schema: JsonSchema;
  seed: number;
}

/** Tools whose input schemas are equal (by JSON text), computed together: one compile, then each tool's examples. */
export interface OutcomeUnit {
  /** The schema of the unit's first tool; it stands for the others'. */
  schema: JsonSchema;
  /** In tool order. */
  tools: Array<{ index: number; seed: number }>;
}

/**
 * Groups tasks into units, largest schema first: taken in this order by two
 * threads, the last units left are the smallest, so both finish at about the
 * same time whatever a unit costs.
 */
export function outcomeUnits(tasks: OutcomeTask[]): OutcomeUnit[] {
  const units = new Map<string, OutcomeUnit>();
  for (const { index, schema, seed } of tasks) {
    const key = schemaText(schema);
    const unit = units.get(key);
    if (unit) unit.tools.push({ index, seed });
    else units.set(key, { schema, tools: [{ index, seed }] });
  }
  return [...units]
    .map(([key, unit]) => ({ size: key.length, unit }))
    .sort((a, b) => b.size - a.size || a.unit.tools[0]!.index - b.unit.tools[0]!.index)
    .map(({ unit }) => unit);
}

/**
 * Which unit to compute next, whether some compile has failed, and whether the
 * fail-closed check splits schemas: the same answers for every thread taking
 * part. Backed by shared memory when two threads take units from one list.
 */
export interface UnitQueue {
  /** The position of the next unit nobody has taken (past the end when all are taken). */
  take(): number;
  /** Whether some of the first `count` units are still to be taken. */
  left(count: number): boolean;
  /** Some thread met a schema that does not compile: examples are no longer worth building. */
  failed(): boolean;
  fail(): void;
  /** What a thread found `createCheckCompiler` does with these units (undefined: nobody has looked yet). */
  splits(): boolean | undefined;
  setSplits(splits: boolean): void;
  /** Whether the worker has computed every unit it took, and is about to answer (see `finishWorker`). */
  workerDone(): boolean;
  /** Said by the worker once it has computed its last unit, before it answers. */
  finishWorker(): void;
}

/** Slots of a `UnitQueue`: next unit, failed (0/1), splits (0 not known, 1 no, 2 yes), worker done (0/1). */
const SLOTS = 4;

/** A queue over slots two threads can share (see `queueSlots`). */
export function sharedQueue(slots: Int32Array): UnitQueue {
  return {
    take: () => Atomics.add(slots, 0, 1),
    left: (count) => Atomics.load(slots, 0) < count,
    failed: () => Atomics.load(slots, 1) !== 0,
    fail: () => void Atomics.store(slots, 1, 1),
    splits: () => [undefined, false, true][Atomics.load(slots, 2)],
    setSplits: (splits) => void Atomics.store(slots, 2, splits ? 2 : 1),
    workerDone: () => Atomics.load(slots, 3) !== 0,
    finishWorker: () => void Atomics.store(slots, 3, 1),
  };
}

/** The slots a `sharedQueue` needs, in memory two threads can share. */
export function queueSlots(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(SLOTS * Int32Array.BYTES_PER_ELEMENT));
}
