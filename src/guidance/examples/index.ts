/**
 * Valid example arguments for a tool, generated once at generation time.
 *
 * Strategy, per tool:
 *  1. Shape a bounded copy of the input schema for json-schema-faker (shape.ts:
 *     caps on array and string sizes and on nesting, readOnly properties
 *     removed, one branch of each oneOf/anyOf chosen, the non-null member of
 *     each type union, the spec's first `examples`/`default`/`enum` value preferred).
 *  2. Generate with a fixed seed (reproducible) and validate the result with the
 *     very Ajv configuration the generated server uses (`createAjv()`).
 *  3. When invalid, REPAIR (repair.ts): walk the Ajv errors and fix each failing
 *     value from its own subschema (leaf.ts computes values from constraints),
 *     then validate again.
 *  4. Still invalid: retry without the spec's own examples and with other
 *     seeds; then fall back to a smaller valid object (`full` := `minimal`).
 *     If nothing valid can be built the examples are omitted and a problem is
 *     reported — an invalid example is never returned (build.ts).
 */
import type { ValidateFunction } from "ajv/dist/2020.js";
import type { JsonSchema } from "../../model/ir.js";
import { buildExamples, type ExampleOutcome } from "./build.js";
import { createContext, type ExampleGeneratorOptions } from "./context.js";

export type { ExampleMode, ExampleGeneratorOptions } from "./context.js";
export type { ExampleOutcome, ToolExamples } from "./build.js";

/**
 * Creates a generator holding one Ajv instance and a validator cache keyed by
 * schema object identity; reuse it across the tools of one API.
 */
export function createExampleGenerator(options: ExampleGeneratorOptions = {}) {
  const ctx = createContext(options);
  return {
    build: (schema: JsonSchema, seed: number, validate?: ValidateFunction): ExampleOutcome =>
      buildExamples(ctx, schema, seed, validate),
    compile: ctx.compile,
  };
}
