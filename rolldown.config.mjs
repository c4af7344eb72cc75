/**
 * The CLI bundle (npm run build:bundle): dist/src/cli.js, the worker entry and the YAML parser (see `yamlScript`), with
 * their dependencies, into dist/bin.
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

/** A plugin that replaces one line of the module at `file`, and fails the build when the line is not there. */
function replacingLine(name, file, line, replacement) {
  return {
    name,
    transform(code, id) {
      if (!file.test(id)) return null;
      if (!code.includes(line)) this.error(`${id}: expected '${line}' (see rolldown.config.mjs)`);
      return { code: code.replace(line, replacement), map: null };
    },
  };
}

const bundleAjv = replacingLine("bundle-ajv", SHARED_AJV, CREATE_REQUIRE, "");

/**
 * The YAML parser is a script of its own, dist/bin/yaml.js (an entry of the bundle), which src/load/yaml.ts requires
 * at the first YAML document: a JSON run neither evaluates the parser nor reads its compiled code from the V8 code
 * cache. Like the shared Ajv module's, that `require` goes through `createRequire`, which the bundler leaves alone;
 * here it is pointed at the bundle's script instead of the package (the same code: the package is what that script holds).
 */
const YAML_LOADER = /[\\/]src[\\/]load[\\/]yaml\.js$/;
const YAML_MODULE = 'const YAML_MODULE = "yaml";';

const yamlScript = replacingLine("yaml-script", YAML_LOADER, YAML_MODULE, 'const YAML_MODULE = "./yaml.js";');

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

/**
 * yargs' platform shim imports Node's `assert` (≈ 2.5 ms to load with its dependencies) for two checks that pass in
 * every run. Here each check is made inline (`assert`'s strict checks compare with `Object.is`), and `assert` is
 * loaded only to throw its own error when one fails.
 */
const ASSERT_IMPORT = "import { notStrictEqual, strictEqual } from 'assert'";

export function lazyAssert(code) {
  return code.replace(
    ASSERT_IMPORT,
    [
      "const notStrictEqual = (actual, expected, message) => {",
      "  if (Object.is(actual, expected)) process.getBuiltinModule('assert').notStrictEqual(actual, expected, message)",
      "}",
      "const strictEqual = (actual, expected, message) => {",
      "  if (!Object.is(actual, expected)) process.getBuiltinModule('assert').strictEqual(actual, expected, message)",
      "}",
    ].join("\n"),
  );
}

const lazyYargsAssert = {
  name: "lazy-yargs-assert",
  transform(code, id) {
    if (!/[\\/]node_modules[\\/]yargs[\\/]lib[\\/]platform-shims[\\/]esm\.mjs$/.test(id)) return null;
    if (!code.includes(ASSERT_IMPORT)) this.error(`${id}: expected "${ASSERT_IMPORT}" (see rolldown.config.mjs)`);
    return { code: lazyAssert(code), map: null };
  },
};

/**
 * yargs' factory gives every instance a default `--version`: the `version` of the nearest package.json above the
 * working directory, found by listing every folder on the way up (a user's home, `/`: ≈ 1–6 ms, and when none is
 * found, an AssertionError built and caught). The CLI always sets its own version (src/cli.ts), which replaces that
 * default, so the factory leaves it out instead: the same option, described once, where the CLI defines it.
 */
const DEFAULT_VERSION = "yargs.version();";

const noDefaultVersion = {
  name: "no-default-version",
  transform(code, id) {
    if (!/[\\/]node_modules[\\/]yargs[\\/]build[\\/]lib[\\/]yargs-factory\.js$/.test(id)) return null;
    if (code.split(DEFAULT_VERSION).length !== 2)
      this.error(`${id}: expected one "${DEFAULT_VERSION}" (see rolldown.config.mjs)`);
    return { code: code.replace(DEFAULT_VERSION, "yargs.version(false);"), map: null };
  },
};

/**
 * Built-in modules that only some runs use, loaded at their first use instead of when the bundle is: spawning
 * (`--install`), worker threads and V8's flags (the example worker, for large APIs) and the promise API of the file
 * system (the record of a JSON spec's keys) each load up to a dozen more of Node's own modules (≈ 1–2 ms apiece). The bundle
 * reads them only as `name.member`, which the stand-in forwards.
 */
const LAZY_BUILTINS = /^let (\w+) = require\("(node:(?:child_process|worker_threads|fs\/promises|v8))"\);$/gm;

export function lazyBuiltins(code) {
  return code.replace(
    LAZY_BUILTINS,
    (_, name, id) =>
      `let ${name}Loaded;\nconst ${name} = new Proxy({}, { get: (_, key) => (${name}Loaded ??= require("${id}"))[key] });`,
  );
}

const lazyBuiltinModules = {
  name: "lazy-builtin-modules",
  renderChunk(code, chunk) {
    // The worker's own entry uses worker_threads from its first line.
    if (chunk.fileName === "worker.js") return null;
    return { code: lazyBuiltins(code), map: null };
  },
};

/**
 * Every character of the bundle's source one byte: a non-ASCII character anywhere (a "≈" in a comment) makes V8 hold
 * the whole script as a two-byte string, twice the memory to read, hash and scan in every run. JSDoc goes too.
 */
const ASCII_WITHOUT_JSDOC = { charset: "ascii", comments: { legal: true, annotation: true, jsdoc: false } };

/**
 * What the bin requires (src/start.ts with the code cache and the thread priorities): one CommonJS file outside
 * dist/bin, compiled by Node's own loader, so it keeps a real `import()` for the bundle's importer.
 */
const start = {
  input: "dist/src/start.js",
  platform: "node",
  transform: { define: { "import.meta.url": "__importMetaUrl" } },
  logLevel: "warn",
  output: { file: "dist/start.cjs", format: "cjs", banner: BANNER, ...ASCII_WITHOUT_JSDOC },
};

const bundle = {
  input: { cli: "dist/src/cli.js", worker: "dist/src/parallel/worker.js", yaml: "node_modules/yaml/dist/index.js" },
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
    ...ASCII_WITHOUT_JSDOC,
    banner: BANNER,
    cleanDir: true,
    // Scripts compiled with cached data cannot `import()` in Node 20: built-in modules are required instead, and
    // a template folder's helpers.mjs is imported through the loader's importer (see src/code-cache.ts).
    dynamicImportInCjs: false,
  },
  plugins: [
    bundleAjv,
    yamlScript,
    lazyTextLayout,
    lazyYargsAssert,
    noDefaultVersion,
    lazyBuiltinModules,
    {
      name: "commonjs-package",
      generateBundle() {
        this.emitFile({ type: "asset", fileName: "package.json", source: '{ "type": "commonjs" }\n' });
      },
    },
  ],
};

export default [bundle, start];
