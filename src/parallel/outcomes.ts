/**
 * The costly per-tool work of a generation — compiling the input schema with
 * the server's Ajv (fail closed) and searching for valid examples — as one
 * pure function over a list of tasks, so it can run in this thread or in a
 * worker thread (see ./index.ts) with the same result.
 */
import type { ExampleOutcome } from "../guidance/examples/index.js";
import { createExampleGenerator, exampleCompiler } from "../guidance/index.js";
import type { JsonSchema } from "../model/ir.js";
import { createCheckCompiler } from "../model/validators.js";

export interface OutcomeTask {
  /** The tool's position in the model, to report and merge in tool order. */
  index: number;
  schema: JsonSchema;
  seed: number;
}

export interface OutcomeResults {
  outcomes: Array<{ index: number; outcome: ExampleOutcome }>;
  /** The first task (in task order) whose schema does not compile; then no outcomes are computed. */
  compileError?: { index: number; message: string };
}

/**
 * Compiles every schema first (a failure stops everything, as the
 * single-threaded fail-closed check does), then builds the examples. Tasks
 * with equal schemas share one schema object, so each distinct schema is compiled once.
 */
export function computeOutcomes(tasks: OutcomeTask[]): OutcomeResults {
  const generator = createExampleGenerator();
  const canonical = new Map<string, JsonSchema>();
  const validators = tasks.map((task) => {
    const key = JSON.stringify(task.schema);
    const schema = canonical.get(key) ?? task.schema;
    canonical.set(key, schema);
    return schema;
  });
  const compile = createCheckCompiler(canonical.values(), exampleCompiler(generator));
  const compiled = new Map<JsonSchema, ReturnType<typeof compile>>();
  for (const [position, task] of tasks.entries()) {
    const schema = validators[position]!;
    if (compiled.has(schema)) continue;
    try {
      compiled.set(schema, compile(schema));
    } catch (error) {
      return { outcomes: [], compileError: { index: task.index, message: (error as Error).message } };
    }
  }
  const outcomes = tasks.map((task, position) => {
    const schema = validators[position]!;
    return { index: task.index, outcome: generator.build(schema, task.seed, compiled.get(schema)) };
  });
  return { outcomes };
}
