import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { toolSeed } from "../../src/guidance/index.js";
import type { ApiModel } from "../../src/model/ir.js";
import { computeOutcomesInParallel, worthJoining, type ExampleWorker } from "../../src/parallel/index.js";
import { computeUnits, type OutcomeResults, warmedGenerator } from "../../src/parallel/outcomes.js";
import { outcomeUnits, queueSlots, sharedQueue, type OutcomeTask, type UnitQueue } from "../../src/parallel/units.js";
import { DIRECTORY_ROOT } from "../helpers/corpus.js";
import { modelFrom, SAMPLES } from "../helpers/pipeline.js";

const tasksOf = (model: ApiModel): OutcomeTask[] =>
  model.tools.map((tool, index) => ({ index, schema: tool.inputSchema, seed: toolSeed(1, tool.name) }));

/** A queue handing out the given unit positions, then the end; `shared` stands for the other thread's view. */
function scriptedQueue(positions: number[], end: number, shared = sharedQueue(queueSlots())): UnitQueue {
  let next = 0;
  return { ...shared, take: () => (next < positions.length ? positions[next++]! : end) };
}

/** Outcomes of two "threads" (two generators), each taking the given positions, merged in tool order. */
function twoThreads(tasks: OutcomeTask[], first: number[], second: number[]): OutcomeResults["outcomes"] {
  const units = outcomeUnits(tasks);
  const shared = sharedQueue(queueSlots());
  const a = computeUnits(units, scriptedQueue(first, units.length, shared));
  const b = computeUnits(units, scriptedQueue(second, units.length, shared));
  return [...a.outcomes, ...b.outcomes].sort((x, y) => x.index - y.index);
}

describe("example outcomes over units shared by two threads", () => {
  it("groups equal input schemas into one unit, largest first, tools in order", () => {
    const big = { type: "object", properties: { a: { type: "string" }, b: { type: "integer" } } };
    const small = { type: "object" };
    const units = outcomeUnits([
      { index: 0, schema: small, seed: 1 },
      { index: 1, schema: big, seed: 2 },
      { index: 2, schema: structuredClone(small), seed: 3 },
      { index: 3, schema: structuredClone(big), seed: 4 },
    ]);
    expect(units.map((unit) => unit.tools.map((tool) => tool.index))).toEqual([
      [1, 3],
      [0, 2],
    ]);
    expect(units[0]!.schema).toBe(big);
  });

  it("gives every tool the same outcome whichever thread takes its unit, in whatever order (Stripe)", async () => {
    const tasks = tasksOf(await modelFrom(join(DIRECTORY_ROOT, "stripe.com.json")));
    const units = outcomeUnits(tasks);
    const alone = computeUnits(units, sharedQueue(queueSlots()));
    expect(alone.compileError).toBeUndefined();
    expect(alone.outcomes).toHaveLength(tasks.length);
    const all = [...units.keys()];
    const byIndex = [...alone.outcomes].sort((a, b) => a.index - b.index);
    // Odd and even positions on two generators, the second backwards; then a half-and-half split.
    const odd = all.filter((position) => position % 2 === 1);
    const even = all.filter((position) => position % 2 === 0).reverse();
    expect(twoThreads(tasks, odd, even)).toEqual(byIndex);
    const half = Math.floor(all.length / 2);
    expect(twoThreads(tasks, all.slice(half), all.slice(0, half))).toEqual(byIndex);
    // The worker's generator, readied before its units arrive, computes the same outcomes as a fresh one.
    expect(computeUnits(units, sharedQueue(queueSlots()), warmedGenerator()).outcomes).toEqual(alone.outcomes);
  }, 120_000);

  it("reports the first uncompilable tool in tool order, whichever thread meets it", async () => {
    const tasks = tasksOf(await modelFrom(join(SAMPLES, "petstore.yaml")));
    const broken = (index: number) => ({ ...tasks[index]!, schema: { type: "strnig", title: `broken ${index}` } });
    tasks[2] = broken(2);
    tasks[5] = broken(5);
    const units = outcomeUnits(tasks);
    const position = (index: number) => units.findIndex((unit) => unit.tools.some((tool) => tool.index === index));
    const others = [...units.keys()].filter((at) => at !== position(2) && at !== position(5));
    const shared = sharedQueue(queueSlots());
    // One thread meets tool 5 first; the other meets tool 2 only after that failure.
    const first = computeUnits(units, scriptedQueue([position(5), ...others], units.length, shared));
    const second = computeUnits(units, scriptedQueue([position(2)], units.length, shared));
    expect(first.compileError?.index).toBe(5);
    expect(second.compileError?.index).toBe(2);
    expect(second.compileError?.message).toMatch(/type/);
    expect(first.outcomes).toEqual([]);
    expect(shared.failed()).toBe(true);
  });

  it("takes each unit once across two queues over the same slots", () => {
    const slots = queueSlots();
    const [a, b] = [sharedQueue(slots), sharedQueue(slots)];
    const taken = [a.take(), b.take(), b.take(), a.take()];
    expect(taken).toEqual([0, 1, 2, 3]);
    expect([a.left(4), b.left(5)]).toEqual([false, true]);
    expect(a.splits()).toBeUndefined();
    b.setSplits(false);
    expect(a.splits()).toBe(false);
  });

  it("computes every unit on this thread when the worker ends without answering", async () => {
    const tasks = tasksOf(await modelFrom(join(SAMPLES, "petstore.yaml")));
    const alone = computeUnits(outcomeUnits(tasks), sharedQueue(queueSlots()));
    expect(alone.outcomes).toHaveLength(tasks.length);
    // A real thread that dies before answering, having taken the first two units from the shared queue.
    const thread = new Worker("process.exit(7)", { eval: true });
    const ended = new Promise<never>((_, reject) => thread.once("exit", (code) => reject(new Error(`exit ${code}`))));
    let released = 0;
    const dying: ExampleWorker = {
      run(units, slots) {
        const queue = sharedQueue(slots);
        expect([queue.take(), queue.take()]).toEqual([0, 1]);
        return { shared: units, results: ended };
      },
      release: () => void released++,
      restoring: (timed) => timed,
    };
    const { results, meanwhile } = await computeOutcomesInParallel(tasks, dying, () => "prepared");
    expect(meanwhile).toBe("prepared");
    expect(released).toBe(1);
    expect(results).toEqual(alone);
  });
});

describe("whether the main thread joins the worker on the units left", () => {
  // Ten units of 1,500 bytes of JSON each: with UNIT_COST, 2,000 apiece.
  const units = Array.from({ length: 10 }, (_, i) => ({
    schema: { type: "object", description: `${i}`.padEnd(1_500 - 34, "x") },
    tools: [{ index: i, seed: i }],
  }));

  it("joins a worker that has no pace yet, and never when every unit is taken", () => {
    expect(worthJoining(units, 0, 50)).toBe(true);
    expect(worthJoining(units, 10, 1)).toBe(false);
  });

  it("joins when, at its pace so far, the worker would still be computing once the search is loaded", () => {
    // Half taken in 10 ms: 10 ms left, less than loading the search.
    expect(worthJoining(units, 5, 10)).toBe(false);
    // Half taken in 30 ms: 30 ms left.
    expect(worthJoining(units, 5, 30)).toBe(true);
    // Nine taken in 90 ms: 10 ms left.
    expect(worthJoining(units, 9, 90)).toBe(false);
  });
});
