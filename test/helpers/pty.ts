/**
 * A real pseudo-terminal for the CLI, through util-linux `script` (no native
 * module needed): the child sees a TTY on stdin and stdout, as a person's shell gives it.
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import { join } from "node:path";
import { AGENT_ENV_HINTS } from "../../src/interactive.js";
import { REPO_ROOT } from "./project.js";

export const HAS_SCRIPT = spawnSync("script", ["--version"], { encoding: "utf8" }).status === 0;

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;

export interface PtySession {
  /** Everything the terminal showed so far, escape sequences removed. */
  screen(): string;
  /** Waits until the screen matches, then types `keys` (use "\r" for Enter). */
  answer(expected: RegExp, keys: string): Promise<void>;
  waitFor(expected: RegExp): Promise<void>;
  exit: Promise<number | null>;
}

/** Runs the CLI in a pseudo-terminal of 120×40, with no CI or agent hints in its environment unless `env` adds them. */
export function runCliInPty(
  args: string[],
  options: { cwd: string; env?: Record<string, string>; timeoutMs?: number },
): PtySession {
  const env: NodeJS.ProcessEnv = { ...process.env, TERM: "xterm-256color", ...options.env };
  for (const name of ["CI", ...AGENT_ENV_HINTS]) if (!options.env?.[name]) delete env[name];
  const quoted = [process.execPath, join(REPO_ROOT, "bin", "create-guided-mcp.js"), ...args]
    .map((part) => `'${part.replace(/'/g, `'\\''`)}'`)
    .join(" ");
  // A pty made by `script` without a terminal of its own has 0 columns; clack would wrap every character.
  const child: ChildProcessWithoutNullStreams = spawn(
    "script",
    ["-qfec", `stty cols 120 rows 40 && exec ${quoted}`, "/dev/null"],
    { cwd: options.cwd, env },
  );
  let raw = "";
  child.stdout.on("data", (chunk: Buffer) => (raw += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (raw += chunk.toString("utf8")));
  const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const screen = () => raw.replace(ANSI, "");
  const timeoutMs = options.timeoutMs ?? 30_000;
  const waitFor = async (expected: RegExp) => {
    const start = Date.now();
    while (!expected.test(screen())) {
      if (Date.now() - start > timeoutMs)
        throw new Error(`the terminal never showed ${expected}; it showed:\n${screen()}`);
      if (child.exitCode !== null)
        throw new Error(`the CLI exited (${child.exitCode}) before showing ${expected}; it showed:\n${screen()}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  return {
    screen,
    waitFor,
    async answer(expected, keys) {
      await waitFor(expected);
      child.stdin.write(keys);
    },
    exit,
  };
}
