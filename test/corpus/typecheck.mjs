/**
 * Child process of the corpus run: type-checks generated projects with each
 * project's own tsconfig.json and the TypeScript in its (shared, symlinked)
 * node_modules — the same check as `tsc -p <project> --noEmit`, but one
 * process checks many projects and parses the declaration files they share
 * (lib.*.d.ts, @types/node, the MCP SDK, Ajv) only once.
 *
 * Input: project folders as arguments. Output: one JSON line per project,
 * `{ dir, ok, ms, errors }`, errors formatted like tsc's (first 10).
 */
import { realpathSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const dirs = process.argv.slice(2);
if (dirs.length === 0) process.exit(0);
const ts = createRequire(join(realpathSync(join(dirs[0], "node_modules")), "typescript", "package.json"))("typescript");

/** Declaration files outside the projects are identical for every project: parse each once. */
const shared = new Map();
const isShared = (fileName) => fileName.includes("/node_modules/");

function check(dir) {
  const started = performance.now();
  const configErrors = [];
  const parsed = ts.getParsedCommandLineOfConfigFile(
    join(dir, "tsconfig.json"),
    { noEmit: true },
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => configErrors.push(diagnostic),
    },
  );
  if (!parsed) return { dir, ok: false, ms: 0, errors: configErrors.map(format) };
  const host = ts.createCompilerHost(parsed.options);
  const read = host.getSourceFile;
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    if (!isShared(fileName)) return read.call(host, fileName, languageVersion, onError, shouldCreate);
    const key = `${fileName}\0${JSON.stringify(languageVersion)}`;
    let file = shared.get(key);
    if (!file) {
      file = read.call(host, fileName, languageVersion, onError, shouldCreate);
      if (file) shared.set(key, file);
    }
    return file;
  };
  const program = ts.createProgram({
    rootNames: parsed.fileNames,
    options: parsed.options,
    host,
    configFileParsingDiagnostics: parsed.errors,
  });
  const diagnostics = ts.getPreEmitDiagnostics(program);
  return {
    dir,
    ok: diagnostics.length === 0,
    ms: Math.round(performance.now() - started),
    errors: diagnostics.slice(0, 10).map(format),
  };
}

function format(diagnostic) {
  const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, " ");
  if (!diagnostic.file) return `error TS${diagnostic.code}: ${message}`;
  const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
  return `${diagnostic.file.fileName}:${line + 1}:${character + 1} error TS${diagnostic.code}: ${message}`;
}

for (const dir of dirs) {
  let result;
  try {
    result = check(dir);
  } catch (error) {
    result = {
      dir,
      ok: false,
      ms: 0,
      errors: [
        `type-check crashed: ${String(error?.stack ?? error)
          .split("\n")
          .slice(0, 4)
          .join(" ")}`,
      ],
    };
  }
  process.stdout.write(JSON.stringify(result) + "\n");
}
