/**
 * Keys for cached guidance, one per tool. A tool's guidance (hints, examples,
 * links, pagination, list tool, identifier producers) depends on the tool
 * itself and, through the link and producer indexes, on every other tool of
 * the run, but never on the other tools' human texts: no guidance module reads
 * a tool's `description` or `title` except its own (checked by the warm-equals-
 * cold tests in test/unit/cache.test.ts). So a tool's key is the hash of
 *   - the code fingerprint and the run's example seed;
 *   - this tool's whole model;
 *   - every tool's model without its texts, in order.
 * A summary edit thus recomputes one tool's guidance; a changed input schema,
 * name or path recomputes all of them.
 */
import { createHash } from "node:crypto";
import type { Diagnostic, ToolGuidance, ToolModel } from "../model/ir.js";
import type { ModelCache } from "./model-cache.js";

export function guidanceKeys(tools: ToolModel[], seed: number, code: string): string[] {
  const shapes: string[] = [];
  const texts: string[] = [];
  for (const tool of tools) {
    const { description, title, annotations, ...rest } = tool;
    const { title: annotationTitle, ...flags } = annotations;
    shapes.push(JSON.stringify({ ...rest, annotations: flags }));
    texts.push(JSON.stringify([description, title ?? null, annotationTitle ?? null]));
  }
  const all = createHash("sha256");
  for (const shape of shapes) all.update(shape).update("\n");
  const context = `${code}\0${seed}\0${all.digest("hex")}`;
  return shapes.map((shape, index) =>
    createHash("sha256").update(context).update(shape).update(texts[index]!).digest("hex").slice(0, 40),
  );
}

/** The guidance stage's view of the cache (see `GuidanceOptions.guidanceCache`). */
export function guidanceCacheFor(cache: ModelCache, tools: ToolModel[], seed: number) {
  const keys = guidanceKeys(tools, seed, cache.code);
  return {
    lookup(toolIndex: number) {
      const hit = cache.get("guidance", keys[toolIndex]!);
      if (hit) cache.keep("guidance", keys[toolIndex]!, hit);
      return hit;
    },
    store(toolIndex: number, guidance: ToolGuidance, diagnostics: Diagnostic[]) {
      cache.keep("guidance", keys[toolIndex]!, { guidance, diagnostics });
    },
  };
}
