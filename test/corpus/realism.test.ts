/**
 * Issue 13 "Examples that look like real data": on GitHub, Stripe and the
 * samples, at most 5% of the example strings that no enum, format or pattern
 * dictates look like random tokens (before: GitHub 78%, Stripe 55%).
 * `node test/bench/realism.mjs` prints the same numbers for the README.
 */
import { describe, expect, it } from "vitest";
import { addGuidance } from "../../src/guidance/index.js";
import { looksRandom, measureRealism, realismSpecs } from "../bench/realism.mjs";
import { modelFrom } from "../helpers/pipeline.js";

describe("example realism", () => {
  it("recognises random tokens and nothing else", () => {
    for (const token of ["PDvE", "gItmB4ITw", "HGVwDRkvE", "9wTUu9T96", "FLeAwlahG"])
      expect(looksRandom(token), token).toBe(true);
    for (const word of [
      "octocat",
      "Dune",
      "helloWorld",
      "jane-doe",
      "The Rainbow",
      "bk_example",
      "abc123",
      "USD",
      "e3b0c44298fc",
    ]) {
      expect(looksRandom(word), word).toBe(false);
    }
  });

  it.each(realismSpecs())("%s: at most five percent of free example strings look random", async (_label, spec) => {
    const guided = addGuidance(await modelFrom(spec), { seed: 1 });
    const measured = measureRealism(guided.tools);
    expect(measured.strings).toBeGreaterThan(0);
    expect(measured.share, JSON.stringify(measured.examples)).toBeLessThanOrEqual(0.05);
  });
});
