/**
 * Keys for cached guidance, one per tool. A tool's guidance (hints, examples,
 * links, pagination, list tool, identifier producers) depends on the tool
 * itself and, through the link and producer indexes, on every other tool of
 * the run, but never on any tool's human texts (`description`, `title`): no
 * guidance module reads them (test/unit/model-cache.test.ts checks that
 * guidance is the same whatever the texts). So a tool's key is the hash of
 *   - the code fingerprint and the run's example seed;
 *   - every tool's model without its texts, in order;
 *   - this tool's own model without its texts.
 * A summary edit thus reuses every tool's guidance; a changed input schema,
 * name or path recomputes all of them.
 */
import { createHash } from "node:crypto";
import type { Diagnostic, ToolGuidance, ToolModel } from "../model/ir.js";
import type { ModelCache } from "./model-cache.js";
import { hashContent } from "../write/hash.js";

export function guidanceKeys(tools: ToolModel[], seed: number, code: string): string[] {
  const all = createHash("sha256").update(`${code}\0${seed}\0`);
  const shapes = tools.map((tool) => {
    const { description: _description, title: _title, annotations, ...rest } = tool;
    const { title: _annotationTitle, ...flags } = annotations;
    const shape = hashContent(JSON.stringify({ ...rest, annotations: flags }));
    all.update(shape);
    return shape;
  });
  const context = all.digest("hex");
  return shapes.map((shape) => hashContent(context + shape).slice(0, 40));
}

/** The guidance stage's view of the cache (see `GuidanceOptions.guidanceCache`). */
export function guidanceCacheFor(cache: ModelCache, tools: ToolModel[], seed: number) {
  const keys = guidanceKeys(tools, seed, cache.code);
  return {
    keys,
    lookup(toolIndex: number) {
      const hit = cache.get("guidance", keys[toolIndex]!);
      if (hit) cache.keep("guidance", keys[toolIndex]!, hit);
      return hit;
    },
    store(toolIndex: number, guidance: ToolGuidance, diagnostics: Diagnostic[]) {
      // Producer calls are completed in place across tools afterwards (completeProducerCalls): keep them as they are now.
      const kept = guidance.producers ? { ...guidance, producers: structuredClone(guidance.producers) } : guidance;
      cache.keep("guidance", keys[toolIndex]!, { guidance: kept, diagnostics });
    },
  };
}
