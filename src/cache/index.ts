/**
 * Incremental regeneration: the per-tool results that cost the most (the
 * input schema's Ajv compile and the example search) are kept in the project
 * under `.guided-mcp/cache/`, keyed by a hash of what they depend on:
 *
 *   - the tool's input schema (its exact JSON) and its example seed;
 *   - the code that computes them: the generator version, the versions of
 *     Ajv, ajv-formats and json-schema-faker, and the bytes of the guidance
 *     modules and the shared Ajv configuration as installed.
 *
 * Any change to those gives a new key, so a stale entry can never be used;
 * an upgrade simply misses and recomputes. Everything else (hints, links,
 * pagination, emit, templates) is recomputed on every run: it is cheap, and
 * it keeps templates and cross-tool links out of the key.
 *
 * A hit also stands for the fail-closed check: the same schema compiled with
 * the same Ajv and configuration when the entry was made.
 */
import { existsSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ExampleOutcome } from "../guidance/examples/index.js";
import { codeFingerprint } from "./fingerprint.js";
import { hashContent } from "../write/hash.js";
import type { JsonSchema } from "../model/ir.js";
import { schemaText } from "../model/schema-text.js";
import { replaceFile } from "./replace-file.js";

export const CACHE_DIR = ".guided-mcp/cache";
const EXAMPLES_FILE = "examples.json";
/** Bump when the file layout changes. */
const FORMAT = 1;

interface CacheFile {
  format: number;
  /** The code fingerprint the entries were made with (informational; it is part of every key too). */
  code: string;
  entries: Record<string, ExampleOutcome>;
  /** Schema keys by the model cache entry of the operation whose tool has that input schema (see `ExampleCache.prime`). */
  origins?: Record<string, string>;
}

export interface ExampleCache {
  /** The stored outcome for this schema and seed, if this generator made one. */
  lookup(schema: JsonSchema, seed: number): ExampleOutcome | undefined;
  /** Whether `lookup` would hit (does not count as a use). */
  has(schema: JsonSchema, seed: number): boolean;
  store(schema: JsonSchema, seed: number, outcome: ExampleOutcome): void;
  /**
   * Keys `schema` as the last run keyed the input schema of the tool made from the same operation cache entry
   * (`origin`, see src/cache/guidance-keys.ts `recordToolOrigins`): that entry fixes the tool's input schema, so its text
   * need not be serialised and hashed again (GitHub: 1,222 of 1,223 schemas after a summary edit).
   */
  prime(schema: JsonSchema, origin: string): void;
  /** Keeps this schema's entry for the next run, as `lookup` would, without handing out a copy (a tool whose whole guidance was cached). */
  keep(schema: JsonSchema, seed: number): void;
  /** Outcomes reused from an earlier run (hits) and computed by this one (misses), for progress lines and the benchmark. */
  stats(): { hits: number; misses: number };
  /** Writes the entries used by this run (unused ones are dropped); `root`: where the project is being written (see ModelCache.save). */
  save(root?: string): Promise<void>;
}

/**
 * Opens the project's example cache. A missing, unreadable or foreign-format
 * file is an empty cache: the cache only ever saves work, never decides output.
 */
export function openExampleCache(
  projectDir: string,
  generatorVersion: string,
  options: { exampleOptions?: unknown } = {},
): ExampleCache {
  const code = codeFingerprint(
    `format ${FORMAT}\0generator ${generatorVersion}\0options ${JSON.stringify(options.exampleOptions ?? {})}`,
    ["ajv", "ajv-formats", "json-schema-faker"],
  );
  const file = join(projectDir, CACHE_DIR, EXAMPLES_FILE);
  const { entries: previous, origins: previousOrigins } = readCacheFile(file, code);
  const origins: Record<string, string> = Object.create(null) as Record<string, string>;
  const used: Record<string, ExampleOutcome> = Object.create(null) as Record<string, ExampleOutcome>;
  const keys = new WeakMap<JsonSchema, string>();
  const computed = new Set<string>();
  let hits = 0;
  let misses = 0;

  const schemaKeyOf = (schema: JsonSchema): string => {
    let schemaKey = keys.get(schema);
    if (!schemaKey) {
      schemaKey = hashContent(`${code}\0${schemaText(schema)}`).slice(0, 40);
      keys.set(schema, schemaKey);
    }
    return schemaKey;
  };
  const keyFor = (schema: JsonSchema, seed: number): string => `${schemaKeyOf(schema)}:${seed}`;

  return {
    lookup(schema, seed) {
      const key = keyFor(schema, seed);
      const hit = Object.hasOwn(used, key) ? used[key] : Object.hasOwn(previous, key) ? previous[key] : undefined;
      if (!hit) return undefined;
      // Only entries from an earlier run count as reuse; this run's own stores do not.
      if (!computed.has(key)) hits++;
      used[key] = hit;
      // Callers own what they get: never hand out the cached object itself.
      return structuredClone(hit);
    },
    keep(schema, seed) {
      const key = keyFor(schema, seed);
      if (Object.hasOwn(used, key)) return;
      if (!Object.hasOwn(previous, key)) return;
      hits++;
      used[key] = previous[key]!;
    },
    has(schema, seed) {
      const key = keyFor(schema, seed);
      return key in used || Object.hasOwn(previous, key);
    },
    store(schema, seed, outcome) {
      const key = keyFor(schema, seed);
      used[key] = structuredClone(outcome);
      computed.add(key);
      misses++;
    },
    prime(schema, origin) {
      const known = Object.hasOwn(previousOrigins, origin) ? previousOrigins[origin] : undefined;
      if (typeof known === "string" && !keys.has(schema)) keys.set(schema, known);
      origins[origin] = schemaKeyOf(schema);
    },
    stats: () => ({ hits, misses }),
    async save(root = projectDir) {
      // Nothing computed and nothing dropped: the file already holds exactly these entries.
      const count = Object.keys(used).length;
      if (root === projectDir && computed.size === 0 && count > 0 && count === Object.keys(previous).length) return;
      // Origins alone never rewrite the file: one the file lacks costs the next run one schema's hash.
      const content: CacheFile = { format: FORMAT, code, entries: used, origins };
      const target = join(root, CACHE_DIR, EXAMPLES_FILE);
      await replaceFile(target, (temporary) => writeFile(temporary, JSON.stringify(content) + "\n"));
    },
  };
}

function readCacheFile(file: string, code: string): Pick<CacheFile, "entries"> & { origins: Record<string, string> } {
  const empty = { entries: {}, origins: {} };
  if (!existsSync(file)) return empty;
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as Partial<CacheFile>;
    if (
      parsed.format !== FORMAT ||
      parsed.code !== code ||
      typeof parsed.entries !== "object" ||
      parsed.entries === null
    )
      return empty;
    const origins = typeof parsed.origins === "object" && parsed.origins !== null ? parsed.origins : {};
    return { entries: parsed.entries, origins };
  } catch {
    return empty;
  }
}
