#!/usr/bin/env node
import { main } from "../dist/src/cli.js";

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`create-guided-mcp: internal error: ${error?.stack ?? error}\nPlease report this with the spec that caused it.\n`);
    process.exitCode = 3;
  },
);
