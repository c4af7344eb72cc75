import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCliRecording } from "../helpers/cli.js";
import { REPO_ROOT } from "../helpers/project.js";

// src/thread-priority.ts: the CLI lowers the priority of V8's background threads, never its main thread's.
describe.runIf(process.platform === "linux")("the CLI's thread priorities", () => {
  it("V8's background threads run at low priority, the main thread at normal", () => {
    const out = join(mkdtempSync(join(tmpdir(), "cgm-priority-")), "out");
    // At exit, each thread's nice value (field 19 of /proc/<pid>/task/<tid>/stat).
    const { record } = runCliRecording<{ pid: number; nice: Record<string, number> }>(
      (file) =>
        [
          'const fs = require("node:fs");',
          'process.on("exit", () => {',
          "  const nice = {};",
          '  for (const tid of fs.readdirSync("/proc/self/task")) {',
          '    const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, "utf8");',
          '    nice[tid] = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);',
          "  }",
          `  fs.writeFileSync(${JSON.stringify(file)}, JSON.stringify({ pid: process.pid, nice }));`,
          "});",
        ].join("\n"),
      ["--quiet", "--from", join(REPO_ROOT, "samples", "petstore.yaml"), "--out", out],
    );
    expect(record.nice[String(record.pid)]).toBe(0);
    const others = Object.entries(record.nice).filter(([tid]) => Number(tid) !== record.pid);
    // V8's pool (four threads by default) and libuv's, both started before the CLI's code runs.
    expect(others.length).toBeGreaterThanOrEqual(4);
    expect(others.filter(([, value]) => value !== 19)).toEqual([]);
  });
});
