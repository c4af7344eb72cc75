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
import type { Diagnostic, ToolGuidance } from "../model/ir.js";
import type { OpenApiPrelude, OperationOutcome } from "../model/openapi.js";

export const MODEL_CACHE_FILE = ".guided-mcp/cache/model.json";
/** Bump when the file layout changes. */
const FORMAT = 2;

/** What the file holds, by key: the API-level prelude, each operation's model outcome, each tool's guidance. */
export interface CacheSections {
  preludes: OpenApiPrelude;
  operations: OperationOutcome;
  guidance: { guidance: ToolGuidance; diagnostics: Diagnostic[] };
}
type Section = keyof CacheSections;
const SECTIONS: Section[] = ["preludes", "operations", "guidance"];

type Entries = { [S in Section]: Record<string, unknown> };

export interface ModelCache {
  /** Fingerprint of the code that computes what is cached; part of every key. */
  readonly code: string;
  get<S extends Section>(section: S, key: string): CacheSections[S] | undefined;
  /** Records what this run used or computed (serialised now); only these entries are saved. */
  keep<S extends Section>(section: S, key: string, value: CacheSections[S]): void;
  /** Operations' models / tools' guidance taken from an earlier run (hits) or computed (misses). */
  stats(section: "operations" | "guidance"): { hits: number; misses: number };
  /** Writes the kept entries, unless they are exactly what the file already holds. */
  save(): Promise<void>;
}

export function openModelCache(projectDir: string, generatorVersion: string): ModelCache {
  const code = codeFingerprint(generatorVersion);
  const file = join(projectDir, MODEL_CACHE_FILE);
  const previous = readCacheFile(file, code);
  const kept = emptyEntries() as { [S in Section]: Record<string, string> };
  const counts = { operations: { hits: 0, misses: 0 }, guidance: { hits: 0, misses: 0 } };
  const unchanged = () =>
    SECTIONS.every(
      (section) =>
        Object.keys(kept[section]).length === Object.keys(previous[section]).length &&
        Object.keys(kept[section]).every((key) => Object.hasOwn(previous[section], key)),
    );
  return {
    code,
    get: (section, key) =>
      Object.hasOwn(previous[section], key) ? (previous[section][key] as CacheSections[typeof section]) : undefined,
    keep(section: Section, key: string, value: unknown) {
      if (section !== "preludes") counts[section][Object.hasOwn(previous[section], key) ? "hits" : "misses"]++;
      (kept[section] as Record<string, string>)[key] = JSON.stringify(value);
    },
    stats: (section) => ({ ...counts[section] }),
    async save() {
      if (Object.keys(kept.operations).length === 0 && Object.keys(kept.guidance).length === 0) return;
      if (unchanged()) return;
      const body = SECTIONS.map((section) => {
        const entries = Object.entries(kept[section]).map(([key, json]) => `${JSON.stringify(key)}:${json}`);
        return `${JSON.stringify(section)}:{\n${entries.join(",\n")}\n}`;
      });
      const text = `{"format":${FORMAT},"code":${JSON.stringify(code)},\n${body.join(",\n")}}\n`;
      await mkdir(dirname(file), { recursive: true });
      // Write beside and rename: a crash mid-write leaves the previous cache, not half a file.
      const temporary = `${file}.${process.pid}.tmp`;
      await writeFile(temporary, text);
      await rename(temporary, file);
    },
  };
}

function emptyEntries(): Entries {
  return { preludes: Object.create(null), operations: Object.create(null), guidance: Object.create(null) } as Entries;
}

function readCacheFile(file: string, code: string): Entries {
  if (!existsSync(file)) return emptyEntries();
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as Partial<Entries> & { format?: unknown; code?: unknown };
    const isRecord = (value: unknown) => typeof value === "object" && value !== null && !Array.isArray(value);
    if (parsed.format !== FORMAT || parsed.code !== code || !SECTIONS.every((section) => isRecord(parsed[section])))
      return emptyEntries();
    return parsed as Entries;
  } catch {
    return emptyEntries();
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
