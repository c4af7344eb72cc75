/**
 * The per-operation model cache (`.guided-mcp/cache/model.json`): each
 * operation's finished model outcome (its tool draft, diagnostics and
 * credential notes) under the key src/cache/refs.ts computes from the parsed
 * document, plus the API-level prelude under its own key. Every key also
 * covers the code that computes them: the generator version, the bytes of the
 * generator's modules as installed (an unreleased edit invalidates too) and the
 * versions of the OpenAPI upgrader and the `$ref` resolver.
 *
 * Like the example cache, it only ever saves work: a missing, corrupt or
 * foreign file is an empty cache, and a hit is what this very code computed
 * from these very inputs.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, rename, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { OpenApiPrelude, OperationOutcome } from "../model/openapi.js";

export const MODEL_CACHE_FILE = ".guided-mcp/cache/model.json";
/** Bump when the file layout changes. */
const FORMAT = 1;

interface CacheFile {
  format: number;
  code: string;
  preludes: Record<string, OpenApiPrelude>;
  operations: Record<string, OperationOutcome>;
}

export interface ModelCache {
  /** Fingerprint of the code that computes model outcomes; part of every key. */
  readonly code: string;
  prelude(key: string): OpenApiPrelude | undefined;
  operation(key: string): OperationOutcome | undefined;
  /** Records what this run used or computed; only these entries are saved. */
  keep(
    preludeKey: string,
    prelude: OpenApiPrelude,
    operations: Array<{ key: string; outcome: OperationOutcome }>,
  ): void;
  stats(): { hits: number; misses: number };
  /** Writes the kept entries, unless they are exactly what the file already holds. */
  save(): Promise<void>;
}

export function openModelCache(projectDir: string, generatorVersion: string): ModelCache {
  const code = codeFingerprint(generatorVersion);
  const file = join(projectDir, MODEL_CACHE_FILE);
  const previous = readCacheFile(file, code);
  let kept: { preludes: Record<string, string>; operations: Record<string, string> } | undefined;
  let hits = 0;
  let misses = 0;
  return {
    code,
    prelude: (key) => (Object.hasOwn(previous.preludes, key) ? previous.preludes[key] : undefined),
    operation: (key) => (Object.hasOwn(previous.operations, key) ? previous.operations[key] : undefined),
    keep(preludeKey, prelude, operations) {
      // Serialised now: later stages must not be able to change what is stored.
      kept = { preludes: { [preludeKey]: JSON.stringify(prelude) }, operations: Object.create(null) };
      hits = misses = 0;
      for (const { key, outcome } of operations) {
        if (Object.hasOwn(previous.operations, key)) hits++;
        else misses++;
        kept.operations[key] = JSON.stringify(outcome);
      }
    },
    stats: () => ({ hits, misses }),
    async save() {
      if (!kept) return;
      const unchanged =
        misses === 0 &&
        Object.keys(previous.operations).length === hits &&
        Object.keys(kept.preludes).every((key) => Object.hasOwn(previous.preludes, key)) &&
        Object.keys(previous.preludes).length === 1;
      if (unchanged) return;
      const entries = (record: Record<string, string>) =>
        Object.entries(record)
          .map(([key, json]) => `${JSON.stringify(key)}:${json}`)
          .join(",\n");
      const text = `{"format":${FORMAT},"code":${JSON.stringify(code)},\n"preludes":{${entries(kept.preludes)}},\n"operations":{\n${entries(kept.operations)}\n}}\n`;
      await mkdir(dirname(file), { recursive: true });
      // Write beside and rename: a crash mid-write leaves the previous cache, not half a file.
      const temporary = `${file}.${process.pid}.tmp`;
      await writeFile(temporary, text);
      await rename(temporary, file);
    },
  };
}

function readCacheFile(file: string, code: string): Pick<CacheFile, "preludes" | "operations"> {
  const empty = { preludes: {}, operations: {} };
  if (!existsSync(file)) return empty;
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as Partial<CacheFile>;
    const isRecord = (value: unknown) => typeof value === "object" && value !== null && !Array.isArray(value);
    if (parsed.format !== FORMAT || parsed.code !== code || !isRecord(parsed.preludes) || !isRecord(parsed.operations))
      return empty;
    return { preludes: parsed.preludes!, operations: parsed.operations! };
  } catch {
    return empty;
  }
}

/** A hash of everything in the generator that decides a model outcome (see the module comment). */
function codeFingerprint(generatorVersion: string): string {
  const hash = createHash("sha256");
  hash.update(`model-cache ${FORMAT}\0generator ${generatorVersion}\0`);
  const require = createRequire(import.meta.url);
  for (const name of ["@scalar/openapi-parser", "@apidevtools/json-schema-ref-parser"]) {
    const pkg = JSON.parse(readFileSync(packageJsonOf(require, name), "utf8")) as { version: string };
    hash.update(`${name} ${pkg.version}\0`);
  }
  const here = dirname(fileURLToPath(import.meta.url));
  const roots = [join(here, ".."), join(here, "..", "..", "templates", "server", "src", "runtime")];
  for (const root of roots)
    for (const path of filesUnder(root)) hash.update(path.slice(root.length)).update(readFileSync(path));
  return hash.digest("hex");
}

function packageJsonOf(require: NodeJS.Require, name: string): string {
  // Not require.resolve(`${name}/package.json`): packages with an `exports` map may refuse it.
  for (const dir of require.resolve.paths(name) ?? []) {
    const candidate = join(dir, name, "package.json");
    if (existsSync(candidate)) return candidate;
  }
  throw new Error(`cannot find package.json of ${name}`);
}

function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(full));
    else if (/\.(js|ts)$/.test(entry.name) && !entry.name.endsWith(".d.ts")) out.push(full);
  }
  return out;
}
