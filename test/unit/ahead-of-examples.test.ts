/**
 * What a large run makes while the example worker computes the examples
 * (src/guide-stage.ts): the model cache's entries so far, serialised before
 * they are saved (`ModelCache.serialise`). The bytes written are the same.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MODEL_CACHE_FILE, openModelCache } from "../../src/cache/model-cache.js";
import { modelFrom, SAMPLES } from "../helpers/pipeline.js";

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
        }
        // Kept after its section was serialised: serialised at the save.
        cache.keep("operations", "late", { late: "é" } as never);
        cache.keep("guidance", "g", { guidance: { hints: { note: "café" } }, diagnostics: [] } as never);
        await cache.save();
        files.push(readFileSync(join(dir, MODEL_CACHE_FILE)));
      }
      expect(files[1]!.equals(files[0]!)).toBe(true);
      const text = files[0]!.toString("latin1");
      expect(text).toContain('shapes\ts\t"na\\u00efve \\u2615"');
      expect(text).toContain('operations\tlate\t{"late":"\\u00e9"}');
      expect(text.split("\n").filter((line) => line.startsWith("operations\top"))).toHaveLength(model.tools.length);
    } finally {
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    }
  });
});
