/**
 * A regeneration reads a cached tool's guidance only when something reads it
 * (src/guidance/guide.ts `withGuidanceRead`, src/cache/guidance-keys.ts): the
 * guided tools, their producer calls and the run's warnings are what a run
 * that parses every entry at once makes.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { guidanceCacheFor } from "../../src/cache/guidance-keys.js";
import { MODEL_CACHE_FILE, openModelCache } from "../../src/cache/model-cache.js";
import { GeneratorError } from "../../src/diagnostics.js";
import { toToolData } from "../../src/emit/index.js";
import { generatorVersion } from "../../src/generate.js";
import { addGuidance } from "../../src/guidance/index.js";
import type { Diagnostic, ToolGuidance } from "../../src/model/ir.js";
import { modelFrom, SAMPLES } from "../helpers/pipeline.js";

/** The catalogue's guidance computed, and each tool's entry as a run stores it (before producer calls are completed). */
async function catalogue() {
  const model = await modelFrom(join(SAMPLES, "catalogue.yaml"));
  const stored: string[] = [];
  const cold = addGuidance(model, {
    seed: 1,
    guidanceCache: {
      lookup: () => undefined,
      store: (index, guidance, diagnostics) => (stored[index] = JSON.stringify({ guidance, diagnostics })),
    },
  });
  return { model, cold, stored };
}

describe("cached guidance read when first used", () => {
  it("reads a tool's guidance (and its producers') when asked, completing producer calls as at once", async () => {
    const { model, cold, stored } = await catalogue();
    // Completion changes some stored guidance: the comparison below covers it.
    expect(stored.some((text, index) => JSON.stringify(cold.tools[index]!.guidance) !== text.slice(12, -18))).toBe(
      true,
    );
    const reads: number[] = [];
    const warm = addGuidance(model, {
      seed: 1,
      guidanceCache: {
        lookup: (index) => {
          const entry = JSON.parse(stored[index]!) as { guidance: ToolGuidance; diagnostics: Diagnostic[] };
          return {
            diagnostics: entry.diagnostics,
            guidance: () => {
              reads.push(index);
              return entry.guidance;
            },
          };
        },
        store: () => expect.unreachable("every tool is cached"),
      },
    });
    expect(reads).toEqual([]);
    expect(warm.diagnostics).toEqual(cold.diagnostics);

    const order = warm.tools.findIndex((tool) => tool.name === "get_order");
    expect(toToolData(warm.tools[order]!)).toEqual(toToolData(cold.tools[order]!));
    // Its producer (create_order, through list_books) was read for its example, and nothing else.
    const names = reads.map((index) => warm.tools[index]!.name);
    expect(names[0]).toBe("get_order");
    expect(names).toContain("create_order");
    expect(reads.length).toBeLessThan(warm.tools.length);

    expect(JSON.stringify(warm.tools.map(toToolData))).toBe(JSON.stringify(cold.tools.map(toToolData)));
    // Each read once.
    expect(new Set(reads).size).toBe(reads.length);
  });

  describe("from the model cache", () => {
    const version = generatorVersion();

    async function saved() {
      const { model, cold } = await catalogue();
      const dir = mkdtempSync(join(tmpdir(), "cgm-lazy-guidance-"));
      const cache = openModelCache(dir, version);
      addGuidance(model, { seed: 1, guidanceCache: guidanceCacheFor(cache, model.tools, 1) });
      await cache.save();
      return { model, cold, dir };
    }

    it("hands out an entry without warnings unparsed; one with warnings parsed; a run's output is unchanged", async () => {
      const { model, cold, dir } = await saved();
      const warning: Diagnostic = { pointer: "#/paths", severity: "warning", message: "m", fix: "f" };
      const reopened = openModelCache(dir, version);
      const keyed = guidanceCacheFor(reopened, model.tools, 1);
      // The first tool's entry replaced by one with a warning (a later line for a key replaces an earlier one).
      const file = join(dir, MODEL_CACHE_FILE);
      const guidance = cold.tools[0]!.guidance;
      writeFileSync(
        file,
        `${readFileSync(file, "latin1")}guidance\t${keyed.keys[0]}\t${JSON.stringify({ guidance, diagnostics: [warning] })}\n`,
      );
      const cache = openModelCache(dir, version);
      const lookup = guidanceCacheFor(cache, model.tools, 1);
      expect(lookup.lookup(0)).toEqual({ guidance, diagnostics: [warning] });
      expect(typeof lookup.lookup(1)!.guidance).toBe("function");

      const warm = addGuidance(model, {
        seed: 1,
        guidanceCache: guidanceCacheFor(openModelCache(dir, version), model.tools, 1),
      });
      expect(warm.diagnostics).toEqual([...cold.diagnostics, warning]);
      expect(JSON.stringify(warm.tools.map(toToolData))).toBe(JSON.stringify(cold.tools.map(toToolData)));
      expect(cache.stats("guidance")).toEqual({ hits: 2, misses: 0 });
    });

    it("reports an entry edited by hand when it is read, naming the file", async () => {
      const { model, dir } = await saved();
      const file = join(dir, MODEL_CACHE_FILE);
      const text = readFileSync(file, "latin1");
      writeFileSync(file, text.replace(/^(guidance\t\w+\t\{"guidance":\{"hints")/m, "$1 oops "));
      const warm = addGuidance(model, {
        seed: 1,
        guidanceCache: guidanceCacheFor(openModelCache(dir, version), model.tools, 1),
      });
      expect(() => warm.tools.map((tool) => tool.guidance)).toThrow(GeneratorError);
      expect(() => warm.tools.map((tool) => tool.guidance)).toThrow(/model\.json.*does not parse.*delete/);
    });

    it("leaves out a last line without its end (a file cut short)", async () => {
      const { model, dir } = await saved();
      const file = join(dir, MODEL_CACHE_FILE);
      const text = readFileSync(file, "latin1");
      writeFileSync(file, text.slice(0, -1));
      const cache = openModelCache(dir, version);
      const keys = guidanceCacheFor(cache, model.tools, 1).keys;
      const last = text.slice(0, -1).split("\n").at(-1)!.split("\t");
      expect(cache.text(last[0] as "guidance", last[1]!)).toBeUndefined();
      expect(keys.filter((key) => cache.text("guidance", key) !== undefined).length).toBeGreaterThan(0);
    });
  });
});
