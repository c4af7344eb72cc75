/**
 * A cold run's model-cache keys, computed on the example worker's thread.
 *
 * A cold run (no cache entry to reuse) takes the full pipeline and needs its
 * keys only to store what it computed for the next run (src/cache/incremental.ts).
 * Keying GitHub's spec takes ≈ 0.1 s, and this thread used to do it before
 * normalising. A large run starts the example worker right after loading, and
 * the worker then waits for its examples while this thread normalises,
 * dereferences and models. So the worker is given the spec's text and keys
 * it first, from its own parse of the same text, and this thread takes the
 * keys when its model is done. The keys are the same either way, since they
 * depend on the text only, and so is the record the next run reads
 * (src/cache/key-table.ts).
 *
 * Only JSON text goes to the worker (it parses with JSON.parse, as the loader
 * does for JSON; YAML is keyed on this thread as before), and only up to 16 MB
 * of it: a second parsed copy of a larger spec (Microsoft Graph) would raise
 * the run's peak memory by hundreds of MB. If the worker fails or ends before
 * answering, this thread keys a fresh parse of the text itself, so a worker
 * never costs the next run its cache.
 */
import type { LoadedSpec } from "../load/index.js";
import type { HttpMethod } from "../model/http-methods.js";
import type { ModelCache } from "./model-cache.js";
import { documentKeys, type KeyRecord } from "./refs.js";

/** What the worker is sent: the spec's text (its bytes when read from a file: copied faster than a string) and the salt. */
export interface KeysJob {
  spec: Uint8Array | string;
  salt: string;
}

/** What a cold run uses of the keys: the prelude's and each operation's (in document order), and the record to save. */
export interface ColdKeys {
  prelude: string;
  operations: Array<{ path: string; method: HttpMethod; key: string }>;
  record: KeyRecord;
}

/** The worker's answer: the keys, or null when the document cannot be keyed (the same answer this thread would get). */
export type KeysAnswer = ColdKeys | null;

const MAX_TEXT_LENGTH = 16 * 1024 * 1024;

/** The salt of a run's keys: the code's fingerprint, where the spec comes from, and the name asked for. */
export function keysSalt(loaded: LoadedSpec, cache: ModelCache, name: string | undefined): string {
  return `${cache.code}\0${locationSalt(loaded)}\0${name ?? ""}`;
}

/**
 * Where the spec was read from matters to the model only for a spec fetched
 * over http(s) (relative server URLs resolve against it); a local file's path
 * does not, so a copy of the spec elsewhere still hits.
 */
function locationSalt(loaded: LoadedSpec): string {
  return /^https?:/i.test(loaded.location) ? loaded.location : "file";
}

/**
 * The job for the worker when this run is cold (a fresh cache) and its spec qualifies (see the module comment);
 * undefined otherwise. `json`: whether the loader parsed the text as JSON.
 */
export function coldKeysJob(
  loaded: LoadedSpec,
  cache: ModelCache | undefined,
  name: string | undefined,
  json: boolean,
): KeysJob | undefined {
  if (!cache?.fresh || !json || loaded.text.length > MAX_TEXT_LENGTH) return undefined;
  const document = loaded.document;
  if (typeof document !== "object" || document === null || !("openapi" in document || "swagger" in document))
    return undefined;
  return { spec: loaded.bytes ?? loaded.text, salt: keysSalt(loaded, cache, name) };
}

/** On the worker: parses the text as the loader parses JSON, and keys it as `documentKeys` does on a cold run. */
export function computeColdKeys({ spec, salt }: KeysJob): KeysAnswer {
  const text = typeof spec === "string" ? spec : Buffer.from(spec.buffer, spec.byteOffset, spec.byteLength).toString();
  const document = JSON.parse(text.replace(/^\uFEFF/, "")) as Record<string, unknown>;
  return coldKeysOf(documentKeys(document, salt, { checkAll: false }));
}

/** The part of a document's keys a cold run uses. */
export function coldKeysOf(keys: ReturnType<typeof documentKeys>): KeysAnswer {
  if (!keys) return null;
  const operations = keys.operations.map(({ path, method, key }) => ({ path, method, key }));
  return { prelude: keys.prelude, operations, record: keys.record() };
}
