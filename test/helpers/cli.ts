/** Runs the real `create-guided-mcp` bin in a child process, as users do. */
import { spawnSync } from "node:child_process";
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
