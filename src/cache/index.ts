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
import { randomBytes } from "node:crypto";
import { closeSync, existsSync, fstatSync, openSync, readFileSync, readSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ExampleOutcome } from "../guidance/examples/index.js";
import { codeFingerprint } from "./fingerprint.js";
import { hashContent } from "../write/hash.js";
import type { JsonSchema } from "../model/ir.js";
import { readSchemaRef } from "../model/lazy-schema.js";
import { schemaText } from "../model/schema-text.js";
import { replaceFile } from "./replace-file.js";
import { DamagedCacheError } from "./damaged.js";

export const CACHE_DIR = ".guided-mcp/cache";
const EXAMPLES_FILE = "examples.json";
/** Bump when the file layout changes (2: one line per entry, each parsed only when used; 3: the id and the count). */
const FORMAT = 3;

/**
 * The file's first line: the format, the code fingerprint the entries were made with (informational; it is part
 * of every key too), and the schema keys by the model cache entry of the operation whose tool has that input schema
 * (see `ExampleCache.prime`). Then one line per entry: `key <tab> outcome JSON` (JSON text never holds a raw tab
 * or newline). A regeneration whose every tool's guidance is cached reads no outcome: it only keeps them.
 */
interface CacheHeader {
  format: number;
  code: string;
  /** Made at random by each write, and how many entries follow: see `ExampleCache.keepAllRecorded`. */
  id: string;
  entries: number;
  origins?: Record<string, string>;
}

export interface ExampleCache {
  /** The stored outcome for this schema and seed, if this generator made one. */
  lookup(schema: JsonSchema, seed: number): ExampleOutcome | undefined;
  /** Whether `lookup` would hit (does not count as a use). `schema` may be a tool's `schemaRef` (src/model/lazy-schema.ts). */
  has(schema: JsonSchema | object, seed: number): boolean;
  /**
   * Keeps a copy of `outcome` (the caller goes on using it), or, with `handedOver`, the object itself: the caller
   * keeps no reference (a run's freshly computed results, stored once each; a cold GitHub run's copies cost ≈ 8 ms).
   */
  store(schema: JsonSchema, seed: number, outcome: ExampleOutcome, handedOver?: boolean): void;
  /**
   * Keys `schema` as the last run keyed the input schema of the tool made from the same operation cache entry
   * (`origin`, see src/cache/guidance-keys.ts `recordToolOrigins`): that entry fixes the tool's input schema, so its text
   * need not be serialised and hashed again (GitHub: 1,222 of 1,223 schemas after a summary edit).
   */
  prime(schema: JsonSchema | object, origin: string): void;
  /** Keeps this schema's entry for the next run, as `lookup` would, without handing out a copy (a tool whose whole guidance was cached). */
  keep(schema: JsonSchema | object, seed: number): void;
  /**
   * Keeps every entry of the file, as a text-only regeneration (src/cache/text-edit.ts) reuses every tool's example,
   * if the file is the one the last tools index names (`saved`, see `saved`) and holds one entry per tool (`tools`):
   * the last run's tools, which are this run's, each with its schema and seed. Its entries are not read. Else false,
   * and nothing kept.
   */
  keepAllRecorded(saved: string, tools: number): boolean;
  /** The file's id and size once `save` has been called (its own, if the save leaves it as it is): `id:size`. */
  saved(): string | undefined;
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
  /** `readExisting` false: the project's file is not read (see ./damaged.ts), and the save rewrites it. */
  options: { exampleOptions?: unknown; readExisting?: boolean } = {},
): ExampleCache {
  const code = codeFingerprint(
    `format ${FORMAT}\0generator ${generatorVersion}\0options ${JSON.stringify(options.exampleOptions ?? {})}`,
    ["ajv", "ajv-formats", "json-schema-faker"],
  );
  const file = join(projectDir, CACHE_DIR, EXAMPLES_FILE);
  // Read when first needed: a text-only regeneration reads the header's first bytes only (`keepAllRecorded`).
  let read: CacheFile | undefined = options.readExisting === false ? emptyCacheFile() : undefined;
  const readFile = () => (read ??= readCacheFile(file, code));
  const saveId = randomBytes(8).toString("hex");
  /** Set by `keepAllRecorded`: every entry of the file is kept, as it is. */
  let allKept: string | undefined;
  let saved: string | undefined;
  const origins: Record<string, string> = Object.create(null) as Record<string, string>;
  /** This run's entries: an outcome, or an earlier run's JSON text, written back as it was. */
  const used = new Map<string, ExampleOutcome | string>();
  // By schema, or by a tool's `schemaRef` while its schema is still text (a hash parses it; a primed key does not).
  const keys = new WeakMap<object, string>();
  const computed = new Set<string>();
  let hits = 0;
  let misses = 0;

  const schemaKeyOf = (schema: object): string => {
    let schemaKey = keys.get(schema);
    if (!schemaKey) {
      schemaKey = hashContent(`${code}\0${schemaText(readSchemaRef(schema) as JsonSchema)}`).slice(0, 40);
      keys.set(schema, schemaKey);
    }
    return schemaKey;
  };
  const keyFor = (schema: object, seed: number): string => `${schemaKeyOf(schema)}:${seed}`;

  return {
    lookup(schema, seed) {
      const key = keyFor(schema, seed);
      const hit = used.get(key) ?? readFile().entries.get(key);
      if (hit === undefined) return undefined;
      const outcome = typeof hit === "string" ? parsedOutcome(file, hit) : structuredClone(hit);
      // Only entries from an earlier run count as reuse; this run's own stores do not.
      if (!computed.has(key)) hits++;
      used.set(key, hit);
      // Callers own what they get: a parse, or a copy of what this run stored, never the kept object itself.
      return outcome;
    },
    keep(schema, seed) {
      const key = keyFor(schema, seed);
      const text = readFile().entries.get(key);
      if (used.has(key) || text === undefined) return;
      hits++;
      used.set(key, text);
    },
    has(schema, seed) {
      const key = keyFor(schema, seed);
      return used.has(key) || readFile().entries.has(key);
    },
    store(schema, seed, outcome, handedOver = false) {
      const key = keyFor(schema, seed);
      used.set(key, handedOver ? outcome : structuredClone(outcome));
      computed.add(key);
      misses++;
    },
    keepAllRecorded(recorded, tools) {
      if (allKept || used.size > 0) return false;
      const head = read
        ? read.id && { saved: `${read.id}:${read.size}`, entries: read.entries.size }
        : headerOf(file, code);
      if (!head || head.saved !== recorded || head.entries !== tools) return false;
      allKept = recorded;
      hits += tools;
      return true;
    },
    saved: () => saved,
    prime(schema, origin) {
      const { origins: previousOrigins } = readFile();
      const known = Object.hasOwn(previousOrigins, origin) ? previousOrigins[origin] : undefined;
      if (typeof known === "string" && !keys.has(schema)) keys.set(schema, known);
      origins[origin] = schemaKeyOf(schema);
    },
    stats: () => ({ hits, misses }),
    async save(root = projectDir) {
      // Nothing computed and nothing dropped: the file already holds exactly these entries. (Every entry kept as
      // read, by `keepAllRecorded`: nothing else was kept.)
      if (root === projectDir && allKept) {
        saved = allKept;
        return;
      }
      const previous = readFile();
      if (root === projectDir && computed.size === 0 && used.size > 0 && used.size === previous.entries.size) {
        saved = previous.id && `${previous.id}:${previous.size}`;
        return;
      }
      // Origins alone never rewrite the file: one the file lacks costs the next run one schema's hash.
      const header: CacheHeader = { format: FORMAT, code, id: saveId, entries: used.size, origins };
      const lines = [JSON.stringify(header)];
      for (const [key, entry] of used)
        lines.push(`${key}\t${typeof entry === "string" ? entry : JSON.stringify(entry)}`);
      const target = join(root, CACHE_DIR, EXAMPLES_FILE);
      // Synchronously, like the model cache: a run waits for this file at its end, and a trip through the thread
      // pool (whose threads run at the lowest priority, see src/thread-priority.ts) waited up to ≈ 200 ms under load.
      const bytes = Buffer.from(lines.join("\n") + "\n", "utf8");
      saved = `${saveId}:${bytes.length}`;
      await replaceFile(target, async (temporary) => writeFileSync(temporary, bytes));
    },
  };
}

/**
 * An entry's outcome. Every line read is whole (a last line without its end is left out), so only an edited or
 * damaged file fails here, after `has` answered for the entry without parsing it (see ./damaged.ts).
 */
function parsedOutcome(file: string, text: string): ExampleOutcome {
  try {
    return JSON.parse(text) as ExampleOutcome;
  } catch {
    throw new DamagedCacheError(file, "a cached example outcome");
  }
}

/** What the file holds: its entries (as JSON text, by key), its origins and its id. */
interface CacheFile {
  entries: Map<string, string>;
  origins: Record<string, string>;
  id: string | undefined;
  size: number;
}

function emptyCacheFile(): CacheFile {
  return { entries: new Map(), origins: {}, id: undefined, size: 0 };
}

/** The file's entries and origins, if this code made it; else none. */
function readCacheFile(file: string, code: string): CacheFile {
  const empty = emptyCacheFile();
  if (!existsSync(file)) return empty;
  try {
    const bytes = readFileSync(file);
    const text = bytes.toString("utf8");
    const lines = text.split("\n");
    const header = JSON.parse(lines[0]!) as Partial<CacheHeader>;
    if (header.format !== FORMAT || header.code !== code) return empty;
    const entries = new Map<string, string>();
    // A file cut short (no final newline): its last line is incomplete, and left out.
    for (const line of lines.slice(1, text.endsWith("\n") ? undefined : -1)) {
      const tab = line.indexOf("\t");
      if (tab > 0) entries.set(line.slice(0, tab), line.slice(tab + 1));
    }
    const origins = typeof header.origins === "object" && header.origins !== null ? header.origins : {};
    // An id stands for the count of entries written with it: a file that lost some is not the one written.
    const id = typeof header.id === "string" && header.entries === entries.size ? header.id : undefined;
    return { entries, origins, id, size: bytes.length };
  } catch {
    return empty;
  }
}

/**
 * The file's id and size (`id:size`) and the count of entries its header holds, if this code wrote it: read from its
 * first bytes only (the header's first members; the origins follow them).
 */
function headerOf(file: string, code: string): { saved: string; entries: number } | undefined {
  try {
    const descriptor = openSync(file, "r");
    try {
      const bytes = Buffer.alloc(256);
      const length = readSync(descriptor, bytes, 0, bytes.length, 0);
      const head = /^\{"format":(\d+),"code":"([0-9a-f]+)","id":"([0-9a-f]{16})","entries":(\d+),/.exec(
        bytes.toString("latin1", 0, length),
      );
      if (!head || Number(head[1]) !== FORMAT || head[2] !== code) return undefined;
      return { saved: `${head[3]}:${fstatSync(descriptor).size}`, entries: Number(head[4]) };
    } finally {
      closeSync(descriptor);
    }
  } catch {
    return undefined;
  }
}
