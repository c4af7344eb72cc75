#!/usr/bin/env node
// One bundled CommonJS file (npm run build), compiled through a V8 code cache kept between runs (src/code-cache.ts):
// resolving hundreds of ESM files, then compiling the bundle, were each a large share of a small run.
import { fileURLToPath } from "node:url";
import { requireWithCodeCache } from "../dist/src/code-cache.js";
import { yieldBackgroundThreads } from "../dist/src/thread-priority.js";

yieldBackgroundThreads();

const cli = requireWithCodeCache(fileURLToPath(new URL("../dist/bin/cli.js", import.meta.url)));

cli.exports.main().then(
  (code) => {
    process.exitCode = code;
    cli.save();
  },
  (error) => {
    process.stderr.write(
      `create-guided-mcp: internal error: ${error?.stack ?? error}\nPlease report this with the spec that caused it.\n`,
    );
    process.exitCode = 3;
  },
);
