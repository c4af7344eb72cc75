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

/**
 * The shared Ajv configuration (templates/server/src/runtime/shared/ajv.ts, copied as it is into every generated
 * project) requires Ajv lazily through `createRequire`, which a bundler cannot follow. In the CLI bundle those
 * `require` calls become the bundle's own: Ajv and ajv-formats are bundled (still evaluated only at first use) and
 * so go through the V8 code cache, instead of ≈ 80 files resolved, read and compiled from node_modules in every run.
 * Same code, same configuration: only where the modules are loaded from changes.
 */
const SHARED_AJV = /[\\/]templates[\\/]server[\\/]src[\\/]runtime[\\/]shared[\\/]ajv\.js$/;
const CREATE_REQUIRE = "const require = createRequire(import.meta.url);";

const bundleAjv = {
  name: "bundle-ajv",
  transform(code, id) {
    if (!SHARED_AJV.test(id)) return null;
    if (!code.includes(CREATE_REQUIRE)) this.error(`${id}: expected "${CREATE_REQUIRE}" (see rolldown.config.mjs)`);
    return { code: code.replace(CREATE_REQUIRE, ""), map: null };
  },
};

/**
 * yargs' help layout (string-width, in three versions) makes an `Intl.Segmenter` and Unicode-property regexes
 * (`\\p{…}`) when its module is evaluated: the first segmenter loads ICU's break data and the regexes its
 * property tables, ≈ 10 ms each in every run, though a run that prints no help never measures a wide string.
 * Here each is made at its first use instead: the segmenter behind an object with the one method these modules
 * call (`.segment(text)`), each regex behind a getter that every use of its name calls (module-private names).
 */
const SEGMENTER = /^const (\w+) = new Intl\.Segmenter\(\);$/m;
const PROPERTY_REGEX = /^const (\w+) = (\/.*\\p\{.*\/[a-z]*);$/gm;

export function lazySegmenter(code) {
  return code.replace(
    SEGMENTER,
    (_, name) =>
      `let ${name}Instance;\nconst ${name} = { segment: (text) => (${name}Instance ??= new Intl.Segmenter()).segment(text) };`,
  );
}

export function lazyRegexes(code) {
  for (const [, name, literal] of [...code.matchAll(PROPERTY_REGEX)]) {
    const uses = code.replace(new RegExp(`\\b${name}\\b`, "g"), `${name}Get()`);
    code = uses.replace(
      `const ${name}Get() = ${literal};`,
      `let ${name}Made;\nconst ${name}Get = () => (${name}Made ??= ${literal});`,
    );
  }
  return code;
}

const lazyTextLayout = {
  name: "lazy-text-layout",
  transform(code, id) {
    if (!/[\\/]node_modules[\\/](.+[\\/])?string-width[\\/]index\.js$/.test(id)) return null;
    return { code: lazyRegexes(lazySegmenter(code)), map: null };
  },
};

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
    bundleAjv,
    lazyTextLayout,
    {
      name: "commonjs-package",
      generateBundle() {
        this.emitFile({ type: "asset", fileName: "package.json", source: '{ "type": "commonjs" }\n' });
      },
    },
  ],
};
