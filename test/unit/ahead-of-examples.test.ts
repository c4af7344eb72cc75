/**
 * What a large run makes while the example worker finishes the examples
 * (src/guide-stage.ts): each tool's JSON for data/tools.json up to its
 * examples (src/emit/tool-json.ts), and the model cache's entries so far
 * (`ModelCache.serialise`). Either way the bytes written are the same.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MODEL_CACHE_FILE, openModelCache } from "../../src/cache/model-cache.js";
import { toToolData } from "../../src/emit/index.js";
import { guidanceJson, prepareToolJson, toolJson } from "../../src/emit/tool-json.js";
import { createExampleGenerator, prepareGuidance } from "../../src/guidance/index.js";
import { finishGuidance } from "../../src/guidance/guide.js";
import type { GuidedApiModel, GuidedTool } from "../../src/model/ir.js";
import { DIRECTORY_ROOT } from "../helpers/corpus.js";
import { modelFrom, SAMPLES } from "../helpers/pipeline.js";

/** The guided model as a large run makes it: guidance prepared, tool JSON heads made, then the examples joined. */
async function guidedWithHeads(spec: string): Promise<GuidedApiModel> {
  const model = await modelFrom(spec);
  const prepared = prepareGuidance(model, {});
  prepared.tools.forEach((entry, position) => {
    if ("own" in entry) prepareToolJson(model.tools[position]!, entry.own.guidance.hints, entry.own.guidance.links);
  });
  return finishGuidance(model, prepared, { seed: 1 }, () => createExampleGenerator());
}

describe("a tool's JSON from the head made before its examples", () => {
  it("is JSON.stringify(toToolData(tool)) for every Stripe tool", async () => {
    const guided = await guidedWithHeads(join(DIRECTORY_ROOT, "stripe.com.json"));
    const withProducers = guided.tools.filter((tool) => tool.guidance.producers).length;
    expect(withProducers).toBeGreaterThan(100);
    for (const tool of guided.tools) {
      // The guidance cache's entry (src/cache/guidance-keys.ts) is made first, from the same hints and links.
      expect(guidanceJson(tool.guidance)).toBe(JSON.stringify(tool.guidance));
      expect(toolJson(tool)).toBe(JSON.stringify(toToolData(tool)));
    }
    // A head is used once: then there is none for the guidance either.
    expect(guidanceJson(guided.tools[0]!.guidance)).toBeUndefined();
  });

  it("uses the head: it holds the hints as they were when it was made (guidance does not change them after)", async () => {
    const guided = await guidedWithHeads(join(SAMPLES, "petstore.yaml"));
    const tool = guided.tools[0]!;
    const before = JSON.stringify(toToolData(tool));
    tool.guidance.hints.typed["late"] = { type: "string" } as never;
    expect(toolJson(tool)).toBe(before);
    // Used once: the next call serialises the tool as it is now.
    expect(toolJson(tool)).toBe(JSON.stringify(toToolData(tool)));
    expect(toolJson(tool)).not.toBe(before);
  });

  it("serialises the tool whole when it no longer has the members its head was made from", async () => {
    const guided = await guidedWithHeads(join(SAMPLES, "petstore.yaml"));
    const [first, second, third, fourth] = guided.tools.slice(0, 4) as [GuidedTool, GuidedTool, GuidedTool, GuidedTool];
    const renamed = { ...first, description: `${first.description} (changed)` };
    expect(toolJson(renamed)).toBe(JSON.stringify(toToolData(renamed)));
    const otherLinks = {
      ...second,
      guidance: { ...second.guidance, links: [...second.guidance.links, { tool: "extra" } as never] },
    };
    expect(toolJson(otherLinks)).toBe(JSON.stringify(toToolData(otherLinks)));
    // Members in another order: JSON.stringify's order is the object's.
    const { hints, ...rest } = third.guidance;
    const reordered = { ...third, guidance: { ...rest, hints } };
    expect(toolJson(reordered)).toBe(JSON.stringify(toToolData(reordered)));
    // Members after the links that JSON leaves out (undefined) or writes.
    const extra = { ...fourth, guidance: { ...fourth.guidance, listTool: undefined, fallbackTool: "list_pets" } };
    expect(toolJson(extra)).toBe(JSON.stringify(toToolData(extra)));
  });
});

describe("the model cache's entries serialised before they are saved", () => {
  it("writes the same file whether its entries were serialised early or at the save", async () => {
    const model = await modelFrom(join(SAMPLES, "petstore.yaml"));
    const dirs = [0, 1].map(() => mkdtempSync(join(tmpdir(), "cgm-ahead-")));
    try {
      const files = [];
      for (const [index, dir] of dirs.entries()) {
        const cache = openModelCache(dir, "0.0.0-test");
        model.tools.forEach((tool, position) => cache.keep("operations", `op${position}`, { tool } as never));
        cache.keep("shapes", "s", "naïve ☕");
        if (index === 1) {
          cache.serialise("operations");
          cache.serialise("shapes");
          // Kept after its section was serialised: serialised at the save.
          cache.keep("operations", "late", { late: "é" } as never);
        } else cache.keep("operations", "late", { late: "é" } as never);
        // Kept with its JSON made by the caller (see src/cache/guidance-keys.ts), or serialised at the save.
        const guidance = { guidance: { hints: { note: "café" } }, diagnostics: [] } as never;
        cache.keep("guidance", "g", guidance, index === 1 ? JSON.stringify(guidance) : undefined);
        await cache.save();
        files.push(readFileSync(join(dir, MODEL_CACHE_FILE)));
      }
      expect(files[1]!.equals(files[0]!)).toBe(true);
      expect(files[0]!.toString("latin1")).toContain('shapes\ts\t"na\\u00efve \\u2615"');
      expect(files[0]!.toString("latin1")).toContain("caf\\u00e9");
    } finally {
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    }
  });
});
