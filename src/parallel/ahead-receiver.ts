/**
 * The worker's side of computing ahead (see ./ahead.ts): it computes each draft's schema and seed as they come,
 * until the units are final, then hands over what it has computed and the schemas it was sent.
 */
import { receiveMessageOnPort } from "node:worker_threads";
import type { ValidateFunction } from "ajv/dist/2020.js";
import type { ExampleOutcome } from "../guidance/examples/index.js";
import { exampleCompiler, type ExampleGenerator } from "../guidance/guide.js";
import { interpretable } from "../model/interpret/index.js";
import type { JsonSchema } from "../model/ir.js";
import { BY_WORKER, CLAIMS, STOPPED, TAKEN, type AheadItem, type AheadSetup, type WorkerUnit } from "./ahead.js";
import type { OutcomeUnit } from "./units.js";

/** A unit computed ahead: its validator or the error the check gives, and the outcomes built by seed. */
export interface ComputedUnit extends OutcomeUnit {
  validate?: ValidateFunction;
  error?: string;
  outcomes: Map<number, ExampleOutcome>;
}

interface Entry {
  schema: JsonSchema;
  mine?: { validate?: ValidateFunction; error?: string; outcomes: Map<number, ExampleOutcome> };
}

/** The worker's side: computes what arrives until the units are final, then hands over what it has. */
export class AheadReceiver {
  private readonly entries: Entry[] = [];
  private readonly compile: (schema: JsonSchema) => ValidateFunction;

  constructor(
    private readonly setup: AheadSetup,
    private readonly generator: ExampleGenerator,
  ) {
    this.compile = exampleCompiler(generator);
  }

  /**
   * Computes each draft as it comes. Node may hand over every waiting batch in one go; the stop flag is read
   * before each draft, so once the units are final what is left is only kept, and the units are not kept waiting.
   */
  listen(): void {
    this.setup.port.on("message", (batch: AheadItem[]) => {
      for (const item of batch) {
        this.add(item);
        Atomics.add(this.setup.slots, TAKEN, 1);
      }
    });
  }

  private stopped(): boolean {
    return Atomics.load(this.setup.slots, STOPPED) !== 0;
  }

  private add({ id, schema, seed }: AheadItem): void {
    if (schema !== undefined) this.entries[id] = { schema };
    const entry = this.entries[id];
    if (!entry || this.stopped()) return;
    if (schema !== undefined && interpretable(schema) && this.claim(id)) {
      entry.mine = { outcomes: new Map() };
      try {
        entry.mine.validate = this.compile(schema);
      } catch (error) {
        entry.mine.error = (error as Error).message;
      }
    }
    const { mine } = entry;
    if (mine?.validate && !mine.outcomes.has(seed))
      mine.outcomes.set(seed, this.generator.build(entry.schema, seed, mine.validate));
  }

  private claim(id: number): boolean {
    return Atomics.compareExchange(this.setup.slots, CLAIMS + id, 0, BY_WORKER) === 0;
  }

  /** The units as sent: the worker's own (computed ahead) and the shared ones, with the schemas sent ahead. */
  units(mine: WorkerUnit[], shared: WorkerUnit[]): { computed: ComputedUnit[]; shared: OutcomeUnit[] } {
    // Whatever is still on the port was posted before the units: read it, computing nothing more.
    for (let message = receiveMessageOnPort(this.setup.port); message; message = receiveMessageOnPort(this.setup.port))
      for (const item of message.message as AheadItem[]) this.add(item);
    const computed = mine.map((unit) => {
      const entry = this.entry(unit);
      return { schema: entry.schema, tools: unit.tools, outcomes: new Map(), ...entry.mine };
    });
    return { computed, shared: shared.map((unit) => ({ schema: this.entry(unit).schema, tools: unit.tools })) };
  }

  private entry(unit: WorkerUnit): Entry {
    if (!("id" in unit)) return unit;
    const entry = this.entries[unit.id];
    if (!entry) throw new Error(`internal: schema ${unit.id} was not sent ahead to the example worker`);
    return entry;
  }
}
