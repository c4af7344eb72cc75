/**
 * What `bin/create-guided-mcp.js` runs: the bundled CLI (dist/bin/cli.js), compiled through the V8 code cache
 * (src/code-cache.ts), after lowering the priority of V8's background threads (src/thread-priority.ts).
 *
 * This file and those two are built into one CommonJS file, dist/start.cjs (rolldown.config.mjs), which the bin
 * (CommonJS too: bin/package.json) requires. Node then starts the CLI without its ES module loader, whose set-up
 * and asynchronous reads of these three files cost ≈ 5 ms of every run's main thread.
 */
import { requireWithCodeCache } from "./code-cache.js";
import { yieldBackgroundThreads } from "./thread-priority.js";

interface Cli {
  main(): Promise<number>;
}

/** Runs the CLI bundled in `bundle` with the process's arguments; the exit code becomes the process's. */
export function start(bundle: string): void {
  yieldBackgroundThreads();
  const cli = requireWithCodeCache<Cli>(bundle);
  cli.exports.main().then(
    (code) => {
      process.exitCode = code;
      cli.save();
    },
    (error: Error | undefined) => {
      process.stderr.write(
        `create-guided-mcp: internal error: ${error?.stack ?? error}\nPlease report this with the spec that caused it.\n`,
      );
      process.exitCode = 3;
    },
  );
}
