import { cachedDataVersionTag } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { collectGarbageNow } from "../../src/parallel/collect.js";

// As the process had them before any collection made here.
const tagBefore = cachedDataVersionTag();
const exposedBefore = runInNewContext("typeof gc");

describe("a garbage collection made on purpose (src/parallel/collect.ts)", () => {
  it("collects what nothing references", async () => {
    let target: object | undefined = { items: new Array(1000).fill(0) };
    const ref = new WeakRef(target);
    target = undefined;
    // A WeakRef holds its target until the job that made it ends.
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbageNow();
    expect(ref.deref()).toBeUndefined();
  });

  it("leaves V8's flags as they were: the code cache's check, and whether new contexts see gc", () => {
    collectGarbageNow();
    expect(cachedDataVersionTag()).toBe(tagBefore);
    expect(runInNewContext("typeof gc")).toBe(exposedBefore);
  });
});
