import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { EmittedFile } from "../../src/emit/index.js";
import { writeProject } from "../../src/write/index.js";

const base = { generator: { name: "create-guided-mcp", version: "test" }, spec: { source: "spec.yaml", hash: "h" }, options: {} };
const files = (version: string): EmittedFile[] => [
  { path: "src/server.ts", content: `// server ${version}\n`, owner: "generator" },
  { path: "src/runtime/http.ts", content: `// http ${version}\n`, owner: "generator" },
  { path: "src/hooks.ts", content: `// hooks ${version}\n`, owner: "user" },
  ...(version === "v1" ? [{ path: "src/old.ts", content: "// old\n", owner: "generator" as const }] : []),
];

describe("write", () => {
  it("creates a fresh project atomically, then updates it without losing user work", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "cgm-write-")), "project");
    const first = await writeProject(out, files("v1"), base);
    expect(first.fresh).toBe(true);
    expect(readFileSync(join(out, "src/server.ts"), "utf8")).toBe("// server v1\n");

    writeFileSync(join(out, "src/hooks.ts"), "// my hooks\n");
    writeFileSync(join(out, "src/runtime/http.ts"), "// my edit\n");
    writeFileSync(join(out, "src/mine.ts"), "// my file\n");

    const second = await writeProject(out, files("v2"), base);
    const actions = Object.fromEntries(second.plan.map((entry) => [entry.path, entry.action]));
    expect(actions).toEqual({ "src/server.ts": "update", "src/runtime/http.ts": "conflict", "src/hooks.ts": "keep-user", "src/old.ts": "delete" });
    expect(readFileSync(join(out, "src/server.ts"), "utf8")).toBe("// server v2\n");
    expect(readFileSync(join(out, "src/runtime/http.ts"), "utf8")).toBe("// my edit\n");
    expect(readFileSync(join(out, "src/runtime/http.ts.new"), "utf8")).toBe("// http v2\n");
    expect(readFileSync(join(out, "src/hooks.ts"), "utf8")).toBe("// my hooks\n");
    expect(readFileSync(join(out, "src/mine.ts"), "utf8")).toBe("// my file\n");
    expect(existsSync(join(out, "src/old.ts"))).toBe(false);
  });

  it("writes nothing on a dry run", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "cgm-write-")), "project");
    const result = await writeProject(out, files("v1"), base, { dryRun: true });
    expect(result.plan.every((entry) => entry.action === "create")).toBe(true);
    expect(existsSync(out)).toBe(false);
  });

  it("replaces edited generated files with --force, but never user-owned ones", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "cgm-write-")), "project");
    await writeProject(out, files("v1"), base);
    writeFileSync(join(out, "src/runtime/http.ts"), "// my edit\n");
    writeFileSync(join(out, "src/hooks.ts"), "// my hooks\n");
    await writeProject(out, files("v2"), base, { force: true });
    expect(readFileSync(join(out, "src/runtime/http.ts"), "utf8")).toBe("// http v2\n");
    expect(readFileSync(join(out, "src/hooks.ts"), "utf8")).toBe("// my hooks\n");
  });
});
