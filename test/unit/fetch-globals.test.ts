import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { withoutLoadingFetch } from "../../src/fetch-globals.js";
import { REPO_ROOT } from "../helpers/project.js";

describe("withoutLoadingFetch", () => {
  it("puts a stand-in Headers in place while it runs, and Node's own back after, also on failure", async () => {
    const before = Object.getOwnPropertyDescriptor(globalThis, "Headers");
    const inside = await withoutLoadingFetch(async () => new Headers() instanceof Headers && Headers.name);
    expect(inside).toBe("Headers");
    await expect(withoutLoadingFetch(() => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(Object.getOwnPropertyDescriptor(globalThis, "Headers")).toEqual(before);
    expect(new Headers({ a: "1" }).get("a")).toBe("1");
  });

  it("keeps a generation of an OpenAPI spec from loading Node's fetch implementation", () => {
    const dir = mkdtempSync(join(tmpdir(), "cgm-fetch-"));
    const preload = join(dir, "record.cjs");
    const record = join(dir, "modules.json");
    writeFileSync(
      preload,
      `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(record)}, JSON.stringify(process.moduleLoadList)));`,
    );
    const cli = join(REPO_ROOT, "bin", "create-guided-mcp.js");
    const spec = join(REPO_ROOT, "samples", "petstore.yaml");
    const run = spawnSync(
      process.execPath,
      ["-r", preload, cli, "--quiet", "--from", spec, "--out", join(dir, "out")],
      {
        encoding: "utf8",
      },
    );
    expect(run.status, run.stderr).toBe(0);
    const modules = JSON.parse(readFileSync(record, "utf8")) as string[];
    expect(modules.some((name) => name.includes("zlib"))).toBe(true);
    expect(modules.filter((name) => name.includes("undici"))).toEqual([]);
  });
});
