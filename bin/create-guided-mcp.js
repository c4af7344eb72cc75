#!/usr/bin/env node
// One bundled file (npm run build): module resolution of hundreds of files was a third of a small run.
import { main } from "../dist/bin/cli.js";

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`create-guided-mcp: internal error: ${error?.stack ?? error}\nPlease report this with the spec that caused it.\n`);
    process.exitCode = 3;
  },
);
