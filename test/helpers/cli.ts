/** Runs the real `create-guided-mcp` bin in a child process, as users do. */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "./project.js";

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(
  args: string[],
  options: { quiet?: boolean; cwd?: string; env?: Record<string, string> } = {},
): CliRun {
  const quiet = options.quiet && args[0] !== "templates" ? ["--quiet"] : [];
  const run = spawnSync(process.execPath, [join(REPO_ROOT, "bin", "create-guided-mcp.js"), ...args, ...quiet], {
    cwd: options.cwd ?? REPO_ROOT,
    encoding: "utf8",
    ...(options.env ? { env: { ...process.env, ...options.env } } : {}),
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/**
 * Runs the real bin with a CommonJS preload (`node -r`) that saves what it observed as JSON when the process
 * exits. `preload(recordFile)` gives the preload's source; it must write `recordFile`.
 */
export function runCliRecording<T>(preload: (recordFile: string) => string, args: string[]): CliRun & { record: T } {
  const dir = mkdtempSync(join(tmpdir(), "cgm-record-"));
  const preloadFile = join(dir, "record.cjs");
  const recordFile = join(dir, "record.json");
  writeFileSync(preloadFile, preload(recordFile));
  const run = spawnSync(
    process.execPath,
    ["-r", preloadFile, join(REPO_ROOT, "bin", "create-guided-mcp.js"), ...args],
    {
      cwd: REPO_ROOT,
      encoding: "utf8",
    },
  );
  if (run.status !== 0) throw new Error(`create-guided-mcp ${args.join(" ")} exited with ${run.status}: ${run.stderr}`);
  return {
    code: run.status,
    stdout: run.stdout,
    stderr: run.stderr,
    record: JSON.parse(readFileSync(recordFile, "utf8")) as T,
  };
}
