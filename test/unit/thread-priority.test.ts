import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/project.js";

// src/thread-priority.ts: the CLI lowers the priority of V8's background threads, never its main thread's.
describe.runIf(process.platform === "linux")("the CLI's thread priorities", () => {
  it("V8's background threads run at low priority, the main thread at normal", () => {
    const dir = mkdtempSync(join(tmpdir(), "cgm-priority-"));
    const preload = join(dir, "record.cjs");
    const record = join(dir, "threads.json");
    // At exit, each thread's nice value (field 19 of /proc/<pid>/task/<tid>/stat).
    writeFileSync(
      preload,
      [
        'const fs = require("node:fs");',
        'process.on("exit", () => {',
        "  const nice = {};",
        '  for (const tid of fs.readdirSync("/proc/self/task")) {',
        '    const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, "utf8");',
        '    nice[tid] = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);',
        "  }",
        `  fs.writeFileSync(${JSON.stringify(record)}, JSON.stringify({ pid: process.pid, nice }));`,
        "});",
      ].join("\n"),
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
    const { pid, nice } = JSON.parse(readFileSync(record, "utf8")) as { pid: number; nice: Record<string, number> };
    expect(nice[String(pid)]).toBe(0);
    const others = Object.entries(nice).filter(([tid]) => Number(tid) !== pid);
    // V8's pool (four threads by default) and libuv's, both started before the CLI's code runs.
    expect(others.length).toBeGreaterThanOrEqual(4);
    expect(others.filter(([, value]) => value !== 19)).toEqual([]);
  });
});
