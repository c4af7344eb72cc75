import { join } from "node:path";
import { MessageChannel } from "node:worker_threads";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { createExampleGenerator } from "../../src/guidance/examples/index.js";
import { toolSeed } from "../../src/guidance/index.js";
import { listenToDrafts, type DraftListener } from "../../src/model/draft-listener.js";
import type { ApiModel } from "../../src/model/ir.js";
import { schemaText } from "../../src/model/schema-text.js";
import { aheadSlots, AheadSender, BY_WORKER, CLAIMS } from "../../src/parallel/ahead.js";
import { AheadReceiver } from "../../src/parallel/ahead-receiver.js";
import { computeUnits, type OutcomeResults } from "../../src/parallel/outcomes.js";
import { outcomeUnits, queueSlots, sharedQueue, type OutcomeTask, type UnitQueue } from "../../src/parallel/units.js";
import { DIRECTORY_ROOT } from "../helpers/corpus.js";
import { modelFrom, SAMPLES } from "../helpers/pipeline.js";

/** Both ends of computing ahead in this thread: the main thread's sender and the worker's receiver, on a real port. */
function aheadPair(seedOf: (name: string) => number) {
  const channel = new MessageChannel();
  const slots = aheadSlots(2_000);
  const sender = new AheadSender({ port: channel.port1, slots }, seedOf);
  const generator = createExampleGenerator();
  const receiver = new AheadReceiver({ port: channel.port2, slots }, generator);
  receiver.listen();
  const claimedByWorker = () => slots.slice(CLAIMS).filter((claim) => claim === BY_WORKER).length;
  const close = () => {
    channel.port1.close();
    channel.port2.close();
  };
  return { sender, receiver, generator, claimedByWorker, close };
}

/** Lets the receiver take what was posted, until its claims have not changed for a while. */
async function settled(pair: ReturnType<typeof aheadPair>): Promise<void> {
  let last = -1;
  for (let still = 0; still < 20; still++) {
    await sleep(2);
    if (pair.claimedByWorker() !== last) still = 0;
    last = pair.claimedByWorker();
  }
}

/** A queue handing out the given positions of the shared units, then the end; `shared` is the other thread's view. */
function scriptedQueue(positions: number[], end: number, shared: UnitQueue): UnitQueue {
  let next = 0;
  return { ...shared, take: () => (next < positions.length ? positions[next++]! : end) };
}

/**
 * The final units handed out as a run does: the worker's own first (with what it computed ahead), the shared ones
 * split between the "worker" and a fresh generator for "this thread"; outcomes merged in tool order.
 */
function computeSplit(pair: ReturnType<typeof aheadPair>, tasks: OutcomeTask[]) {
  const { mine, shared, wire } = pair.sender.split(outcomeUnits(tasks));
  const received = pair.receiver.units(mine, wire);
  expect(received.shared.map((unit) => schemaText(unit.schema))).toEqual(shared.map((unit) => schemaText(unit.schema)));
  const slots = sharedQueue(queueSlots());
  const positions = [...shared.keys()];
  const worker = computeUnits(
    received.shared,
    scriptedQueue(
      positions.filter((position) => position % 2 === 0),
      shared.length,
      slots,
    ),
    pair.generator,
    received.computed,
  );
  const main = computeUnits(
    shared,
    scriptedQueue(
      positions.filter((position) => position % 2 === 1),
      shared.length,
      slots,
    ),
  );
  return { mine, shared, wire, worker, main };
}

const byIndex = (outcomes: OutcomeResults["outcomes"]) => [...outcomes].sort((a, b) => a.index - b.index);

describe("example outcomes computed ahead while the model stage runs", () => {
  it("gives the outcomes one thread gives, with tools renamed, filtered out or not reached (Stripe)", async () => {
    const pair = aheadPair((name) => toolSeed(1, name));
    const drafts: Parameters<DraftListener>[0][] = [];
    let model: ApiModel;
    const stop = listenToDrafts((draft) => drafts.push(draft));
    try {
      model = await modelFrom(join(DIRECTORY_ROOT, "stripe.com.json"));
    } finally {
      stop();
    }
    expect(drafts.map((draft) => draft.inputSchema)).toEqual(model.tools.map((tool) => tool.inputSchema));
    // The worker keeps up with the first 40 % of the drafts; the units become final as soon as the rest is made.
    const reached = Math.floor(drafts.length * 0.4);
    for (let at = 0; at < reached; at += 32) {
      for (const draft of drafts.slice(at, Math.min(at + 32, reached))) pair.sender.listener(draft);
      await settled(pair);
    }
    for (const draft of drafts.slice(reached)) pair.sender.listener(draft);
    // Every fifth tool filtered out; every third renamed (another seed than its draft's).
    const tasks = model.tools.flatMap((tool, index) =>
      index % 5 === 4 ? [] : [{ index, schema: tool.inputSchema, seed: toolSeed(index % 3 === 0 ? 7 : 1, tool.name) }],
    );
    const alone = computeUnits(outcomeUnits(tasks), sharedQueue(queueSlots()));
    expect(alone.compileError).toBeUndefined();
    const { mine, shared, wire, worker, main } = computeSplit(pair, tasks);
    pair.close();
    expect(mine.length).toBeGreaterThan(50);
    expect(shared.length).toBeGreaterThan(0);
    // Shared units the worker was sent ahead come as their number; it reads them from its port. No more than a
    // window of drafts (64) is sent beyond what the worker has taken.
    const sentNotTaken = wire.filter((unit) => "id" in unit).length;
    expect(sentNotTaken).toBeGreaterThan(0);
    expect(sentNotTaken).toBeLessThanOrEqual(64);
    expect(worker.compileError ?? main.compileError).toBeUndefined();
    expect(byIndex([...worker.outcomes, ...main.outcomes])).toEqual(byIndex(alone.outcomes));
  }, 120_000);

  it("never lets a failing listener fail the model", async () => {
    let told = 0;
    const stop = listenToDrafts(() => {
      told++;
      throw new Error("listener failed");
    });
    try {
      const model = await modelFrom(join(SAMPLES, "petstore.yaml"));
      expect(model.tools.length).toBeGreaterThan(1);
      // Told once, then no more.
      expect(told).toBe(1);
    } finally {
      stop();
    }
  });

  it("reports the first uncompilable tool in tool order when schemas were sent ahead", async () => {
    const model = await modelFrom(join(SAMPLES, "petstore.yaml"));
    const tasks = model.tools.map((tool, index) => ({ index, schema: tool.inputSchema, seed: toolSeed(1, tool.name) }));
    const broken = (index: number) => ({ ...tasks[index]!, schema: { type: "strnig", title: `broken ${index}` } });
    tasks[2] = broken(2);
    tasks[5] = broken(5);
    const pair = aheadPair((name) => toolSeed(1, name));
    // Sent ahead in reverse tool order, so the worker meets tool 5's schema before tool 2's.
    for (const task of [...tasks].reverse())
      pair.sender.listener({ inputSchema: task.schema, baseName: model.tools[task.index]!.name });
    await settled(pair);
    const { worker, main } = computeSplit(pair, tasks);
    pair.close();
    const errors = [worker.compileError, main.compileError].filter((error) => error !== undefined);
    expect(Math.min(...errors.map((error) => error.index))).toBe(2);
    expect(errors.find((error) => error.index === 2)?.message).toMatch(/type/);
    expect(worker.outcomes).toEqual([]);
    expect(main.outcomes).toEqual([]);
  });
});
