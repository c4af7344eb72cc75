/**
 * Outcomes the example worker computes ahead. A large cold run starts the
 * worker right after loading the spec, and it is ready long before the model
 * stage ends (GitHub: ≈ 0.25 s of modelling on the other core). Meanwhile the
 * main thread sends it each tool draft's input schema with the seed of its
 * base name; the worker compiles and builds examples for them until the real
 * units arrive, then takes the units it has already computed first.
 *
 * What is computed ahead is only a head start, never an answer of its own: an
 * outcome depends only on the schema's content and the seed (the property
 * test/unit/parallel.test.ts checks across orders and threads), so an entry is
 * used only for a unit whose schema has the same JSON text, and a tool whose
 * final name (hence seed) differs from its draft's base name, or a tool the
 * run filters out, simply finds nothing or leaves an entry unused.
 */
import { receiveMessageOnPort, type MessagePort } from "node:worker_threads";
import type { ValidateFunction } from "ajv/dist/2020.js";
import type { ExampleOutcome } from "../guidance/examples/index.js";
import { exampleCompiler, type ExampleGenerator } from "../guidance/index.js";
import type { JsonSchema } from "../model/ir.js";

/** One schema computed ahead: its validator or the compile error the fail-closed check would report, and outcomes by seed. */
export interface Speculated {
  schema: JsonSchema;
  validate?: ValidateFunction;
  error?: string;
  outcomes: Map<number, ExampleOutcome>;
}

/** A schema and seed sent ahead by the main thread. */
export interface SpeculationItem {
  schema: JsonSchema;
  seed: number;
}

export class Speculation {
  private readonly byKey = new Map<string, Speculated>();
  private readonly compile: (schema: JsonSchema) => ValidateFunction;

  constructor(private readonly generator: ExampleGenerator) {
    this.compile = exampleCompiler(generator);
  }

  add({ schema, seed }: SpeculationItem): void {
    const key = JSON.stringify(schema);
    let entry = this.byKey.get(key);
    if (!entry) {
      entry = { schema, outcomes: new Map() };
      try {
        entry.validate = this.compile(schema);
      } catch (error) {
        entry.error = (error as Error).message;
      }
      this.byKey.set(key, entry);
    }
    if (entry.validate && !entry.outcomes.has(seed))
      entry.outcomes.set(seed, this.generator.build(entry.schema, seed, entry.validate));
  }

  get(key: string): Speculated | undefined {
    return this.byKey.get(key);
  }

  /** Positions of the units with a schema computed ahead, which the worker takes first. */
  positions(units: Array<{ key: string }>): number[] {
    if (this.byKey.size === 0) return [];
    return units.flatMap((unit, position) => (this.byKey.has(unit.key) ? [position] : []));
  }
}

/** What the worker is given at its start: the port schemas come ahead on, and a flag the main thread sets when they stop. */
export interface WorkerSetup {
  ahead: MessagePort;
  stop: Int32Array;
}

/**
 * Computes what arrives on `ahead` until the main thread sets the stop slot,
 * a batch at a time, giving the event loop a turn between batches so the
 * units are not kept waiting once they come.
 */
export function speculate({ ahead, stop }: WorkerSetup, speculation: Speculation): void {
  const stopped = () => Atomics.load(stop, 0) !== 0;
  const step = (): void => {
    if (stopped()) return;
    const received = receiveMessageOnPort(ahead);
    if (!received) {
      setTimeout(step, 2);
      return;
    }
    try {
      for (const item of received.message as SpeculationItem[]) {
        if (stopped()) return;
        speculation.add(item);
      }
    } catch {
      // Only a head start: on any surprise, stop, and the units are computed as they would have been.
      return;
    }
    setImmediate(step);
  };
  step();
}
