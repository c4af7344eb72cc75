/**
 * The costly per-tool work of a generation — compiling the input schema with
 * the server's Ajv (fail closed) and searching for valid examples — over
 * units of tools with equal input schemas, so it can run in this thread, in a
 * worker thread, or in both at once (see ./index.ts) with the same result:
 * a unit's outcomes depend on its schema and its tools' seeds only.
 */
import type { EarlyJob } from "../write/early.js";
import type { ValidateFunction } from "ajv/dist/2020.js";
import type { ExampleOutcome } from "../guidance/examples/index.js";
import { createExampleGenerator } from "../guidance/examples/index.js";
import { exampleCompiler, type ExampleGenerator } from "../guidance/guide.js";
import type { JsonSchema } from "../model/ir.js";
import { createCheckCompiler, type SchemaCompiler } from "../model/validators.js";
import type { WorkerUnit } from "./ahead.js";
import type { ComputedUnit } from "./ahead-receiver.js";
import type { OutcomeUnit, UnitQueue } from "./units.js";

export interface OutcomeResults {
  outcomes: Array<{ index: number; outcome: ExampleOutcome }>;
  /** The first task (in task order) whose schema does not compile; then no outcomes are returned. */
  compileError?: { index: number; message: string };
}

/**
 * Computes the units this thread takes from `queue`, after those it `computed` ahead (./ahead.ts; the worker's
 * alone, so no other thread takes them). Each unit's schema is compiled before its examples are built; once any
 * compile has failed, the units still taken are only compiled, so that the first failing tool in tool order is
 * found whichever thread meets it.
 */
export function computeUnits(
  units: OutcomeUnit[],
  queue: UnitQueue,
  generator: ExampleGenerator = createExampleGenerator(),
  computed: ComputedUnit[] = [],
): OutcomeResults {
  const compile = checkCompiler(units, exampleCompiler(generator), queue);
  const outcomes: OutcomeResults["outcomes"] = [];
  let compileError: OutcomeResults["compileError"];
  const computeUnit = ({ schema, tools }: OutcomeUnit, validated: () => ValidateFunction, known?: ComputedUnit) => {
    let validate: ValidateFunction;
    try {
      validate = validated();
    } catch (error) {
      queue.fail();
      if (!compileError || tools[0]!.index < compileError.index)
        compileError = { index: tools[0]!.index, message: (error as Error).message };
      return;
    }
    if (queue.failed()) return;
    for (const { index, seed } of tools)
      outcomes.push({ index, outcome: known?.outcomes.get(seed) ?? generator.build(schema, seed, validate) });
  };
  for (const unit of computed) computeUnit(unit, () => unit.validate ?? failed(unit.error), unit);
  for (let position = queue.take(); position < units.length; position = queue.take()) {
    const unit = units[position]!;
    computeUnit(unit, () => compile(unit.schema));
  }
  return compileError ? { outcomes: [], compileError } : { outcomes };
}

function failed(message: string | undefined): never {
  throw new Error(message ?? "schema does not compile");
}

/**
 * What the worker is sent: the units it computed ahead (its own), the units both threads take from the queue,
 * and the queue's shared slots.
 */
export interface WorkerRequest {
  mine: WorkerUnit[];
  shared: WorkerUnit[];
  slots: Int32Array;
  /** Files to write once the outcomes are sent (see src/write/early.ts): the answer is a second message. */
  early?: EarlyJob;
}

/**
 * The fail-closed check over every unit, whichever this thread takes, as one
 * thread would make it. When it would not split schemas (it then returns the
 * example generator's compiler as it is), the first thread to find that out
 * says so, and the other skips counting the API's sub-schemas (≈ 0.1 s on GitHub).
 */
function checkCompiler(units: OutcomeUnit[], whole: SchemaCompiler, queue: UnitQueue): SchemaCompiler {
  if (queue.splits() === false) return whole;
  const compile = createCheckCompiler(
    units.map((unit) => unit.schema),
    whole,
  );
  queue.setSplits(compile !== whole);
  return compile;
}

/**
 * A schema with the keywords most input schemas use (formats, patterns,
 * bounds, enums, lists, nesting, a oneOf): compiling it and building its
 * examples makes a new generator's Ajv instance (with its meta-schema) and
 * gets the compile and example code compiled by V8.
 */
const WARM_UP_SCHEMA: JsonSchema = {
  type: "object",
  properties: {
    id: { type: "integer", minimum: 1 },
    name: { type: "string", minLength: 2, maxLength: 20, pattern: "^[a-z]+$" },
    email: { type: "string", format: "email" },
    created_at: { type: "string", format: "date-time" },
    state: { type: "string", enum: ["open", "closed"] },
    labels: { type: "array", items: { type: "string" }, maxItems: 3 },
    owner: {
      type: "object",
      properties: { login: { type: "string" }, url: { type: "string", format: "uri" } },
      required: ["login"],
    },
    target: { oneOf: [{ type: "integer" }, { type: "string", minLength: 40 }] },
    note: { type: ["string", "null"], description: "Free text" },
  },
  required: ["id", "name", "state"],
  additionalProperties: false,
};

/**
 * A generator made ready while its thread has nothing else to do (the worker,
 * before its units arrive). Its outcomes stay what a fresh generator's would
 * be: a unit's outcome never depends on what the generator computed before,
 * which test/unit/parallel.test.ts checks by computing units in other orders.
 */
export function warmedGenerator(): ExampleGenerator {
  const generator = createExampleGenerator();
  const compiled = generator.compile(WARM_UP_SCHEMA);
  generator.build(WARM_UP_SCHEMA, 1, compiled.validate);
  return generator;
}
