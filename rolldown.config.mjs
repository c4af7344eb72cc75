/**
 * The CLI bundle (npm run build:bundle): dist/src/cli.js and the worker entry, with their dependencies, into dist/bin.
 *
 * CommonJS, not ESM: Node 20 can keep V8's compiled code of a CommonJS script between runs (`vm.Script`
 * cachedData; see src/code-cache.ts) but has no such cache for ES modules, and compiling the bundle is a
 * large share of a small run. dist/bin/package.json says so to Node, so the files keep their `.js` names.
 */
const BANNER = [
  // The sources are ES modules, which are always strict.
  '"use strict";',
  // `import.meta.url` (template and package lookups, createRequire) from the CommonJS file name.
  'const __importMetaUrl = require("node:url").pathToFileURL(__filename).href;',
].join("\n");

export default {
  input: ["dist/src/cli.js", "dist/src/parallel/worker.js"],
  platform: "node",
  transform: { define: { "import.meta.url": "__importMetaUrl" } },
  logLevel: "warn",
  onLog(level, log, handler) {
    // yargs reads `import.meta.resolve` only for a config file's `extends`, which this CLI does not offer.
    if (log.code === "EMPTY_IMPORT_META" && log.id?.includes("/yargs/")) return;
    handler(level, log);
  },
  output: {
    dir: "dist/bin",
    format: "cjs",
    banner: BANNER,
    cleanDir: true,
    // Scripts compiled with cached data cannot `import()` in Node 20: built-in modules are required instead, and
    // a template folder's helpers.mjs is imported through the loader's importer (see src/code-cache.ts).
    dynamicImportInCjs: false,
  },
  plugins: [
    {
      name: "commonjs-package",
      generateBundle() {
        this.emitFile({ type: "asset", fileName: "package.json", source: '{ "type": "commonjs" }\n' });
      },
    },
  ],
};
