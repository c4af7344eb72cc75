#!/usr/bin/env node
// CommonJS (bin/package.json), like everything it loads: Node starts it without its ES module loader (src/start.ts).
"use strict";
require("../dist/start.cjs").start(require("node:path").join(__dirname, "..", "dist", "bin", "cli.js"));
