/**
 * Example outcomes computed ahead. A large cold run starts the example worker right after loading the spec, and
 * it is ready before the model stage begins; without this it would wait through the model (GitHub, Stripe:
 * ≈ 150–170 ms). So the model stage tells the main thread of each tool draft (src/model/draft-listener.ts), and
 * the main thread sends the worker each distinct input schema once, with the seed of the draft's base name. The
 * worker compiles it and builds its examples while the main thread models the rest.
 *
 * What is computed ahead is a head start, never an answer of its own. A unit's outcome depends only on its
 * schema's content and its tools' seeds (test/unit/parallel.test.ts), so when the units are final the worker
 * keeps a unit it has computed, and uses an outcome only for a tool whose final seed is the one computed: a tool
 * renamed when names are made unique gets its outcome computed then, and a schema only filtered-out tools had is
 * left unused. Which thread has a schema sent ahead is settled by a claim slot each: the worker claims one before
 * computing it, the main thread, when the units are final, claims those the worker has not reached, and they go
 * to the shared queue as usual.
 *
 * Only schemas the generation-time interpreter takes on are computed ahead: the fail-closed check judges those
 * with the example generator's own compiler, whatever the other schemas are. The others are left to the shared
 * queue, where the check decides over all of them together whether to split them (src/model/validators.ts).
 */
import { MessageChannel, type MessagePort } from "node:worker_threads";
import type { DraftListener } from "../model/draft-listener.js";
import type { JsonSchema } from "../model/ir.js";
import { schemaText } from "../model/schema-text.js";
import type { OutcomeUnit } from "./units.js";

/** One draft sent ahead: its schema's number, the schema the first time, and the seed of its base name. */
export interface AheadItem {
  id: number;
  schema?: JsonSchema;
  seed: number;
}

/** What the worker is given at its start: the port drafts come on, and the slots both threads read. */
export interface AheadSetup {
  port: MessagePort;
  slots: Int32Array;
}

/**
 * Slots: [0] set once the units are final (the worker stops computing ahead), [1] how many drafts the worker has
 * taken from its port, then one claim per schema.
 */
export const STOPPED = 0;
export const TAKEN = 1;
export const CLAIMS = 2;
/** A claim slot's values: nobody's yet, the worker's, the main thread's. */
export const BY_WORKER = 1;
const BY_MAIN = 2;

/** The slots for up to `schemas` schemas sent ahead, in memory two threads share. */
export function aheadSlots(schemas: number): Int32Array {
  return new Int32Array(new SharedArrayBuffer((CLAIMS + schemas) * Int32Array.BYTES_PER_ELEMENT));
}

/**
 * The main thread's end of computing ahead for a run of up to `operationCount` operations, and the `setup` the
 * worker is started with (its port must be in the start's transfer list).
 */
export function openAhead(operationCount: number, seedOf: (toolName: string) => number) {
  const channel = new MessageChannel();
  const slots = aheadSlots(operationCount);
  // Drafts waiting to be sent must not keep a failed run's process alive.
  channel.port1.unref();
  const setup: AheadSetup = { port: channel.port2, slots };
  const sender = new AheadSender({ port: channel.port1, slots }, seedOf);
  return { setup, sender, close: () => channel.port1.close() };
}

/** Drafts per message: a message per draft would cost this thread more than it saves the worker. */
const BATCH = 8;
/**
 * At most this many drafts sent and not yet taken by the worker: the model makes drafts faster than the worker
 * computes them (GitHub: ≈ 8 against ≈ 2.5 a millisecond), and copying what the worker cannot reach before the
 * units are final costs this thread as much as copying it then, and holds the copies in memory meanwhile
 * (Microsoft Graph: thousands of schemas of up to 24 KB). A draft not sent is computed from the shared queue.
 */
const WINDOW = 8 * BATCH;

/** The main thread's side: sends drafts as the model makes them, then hands out the units. */
export class AheadSender {
  private readonly ids = new Map<string, number>();
  private batch: AheadItem[] = [];
  private fresh: string[] = [];
  private broken = false;
  private sent = 0;

  constructor(
    private readonly setup: AheadSetup,
    private readonly seedOf: (toolName: string) => number,
  ) {}

  readonly listener: DraftListener = (draft) => {
    if (this.broken || this.sent - Atomics.load(this.setup.slots, TAKEN) >= WINDOW) return;
    const text = schemaText(draft.inputSchema);
    let id = this.ids.get(text);
    if (id === undefined) {
      if (this.ids.size >= this.setup.slots.length - CLAIMS) return;
      id = this.ids.size;
      this.ids.set(text, id);
      this.fresh.push(text);
      this.batch.push({ id, schema: draft.inputSchema, seed: this.seedOf(draft.baseName) });
    } else this.batch.push({ id, seed: this.seedOf(draft.baseName) });
    this.sent++;
    if (this.batch.length >= BATCH) this.flush();
  };

  private flush(): void {
    if (this.batch.length === 0) return;
    try {
      this.setup.port.postMessage(this.batch);
    } catch {
      // A value that cannot be copied (none is expected): what this batch named is not the worker's to know.
      this.broken = true;
      for (const text of this.fresh) this.ids.delete(text);
    }
    this.batch = [];
    this.fresh = [];
  }

  /**
   * The units are final: the worker stops computing ahead, and each unit is either the worker's (it has claimed
   * its schema: computed, or being computed) or goes to the shared queue, as its schema's number when the worker
   * was sent that schema (it reads what is still on its port), else as the schema itself.
   */
  split(units: OutcomeUnit[]): { mine: WorkerUnit[]; shared: OutcomeUnit[]; wire: WorkerUnit[] } {
    this.flush();
    this.broken = true;
    Atomics.store(this.setup.slots, STOPPED, 1);
    const mine: WorkerUnit[] = [];
    const shared: OutcomeUnit[] = [];
    const wire: WorkerUnit[] = [];
    for (const unit of units) {
      const id = this.ids.get(schemaText(unit.schema));
      if (id === undefined) {
        shared.push(unit);
        wire.push(unit);
      } else if (Atomics.compareExchange(this.setup.slots, CLAIMS + id, 0, BY_MAIN) === 0) {
        shared.push(unit);
        wire.push({ id, tools: unit.tools });
      } else mine.push({ id, tools: unit.tools });
    }
    return { mine, shared, wire };
  }
}

/** A unit as the worker is sent it: with its schema, or the number of a schema sent ahead. */
export type WorkerUnit = OutcomeUnit | { id: number; tools: OutcomeUnit["tools"] };
