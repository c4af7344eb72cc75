/**
 * A JSON spec's cache keys from its bytes and their layout alone, without its parsed document: what the key thread
 * (src/cache/key-thread.ts) computes beside a cold run's front stages, and what that run computes itself when the
 * thread has not answered in time. `documentKeys` of a sparse document (src/cache/sparse-document.ts) with the
 * bytes as texts (src/cache/spec-bytes.ts) gives the keys that `documentKeys` of the parsed document with the same
 * texts gives (test/unit/key-table.test.ts), parsing only the top level, the path items' own fields and whatever a
 * `$ref` points into below a component.
 */
import { documentKeys, type KeyRecord } from "./refs.js";
import { SpecBytes } from "./spec-bytes.js";
import { sparseDocument, type Skeleton } from "./sparse-document.js";

/** The record of a cold run's keys (nothing to reuse: unreached `$ref`s are not checked); undefined when unkeyable. */
export function byteKeys(bytes: Buffer, skeleton: Skeleton, salt: string): KeyRecord | undefined {
  const texts = new SpecBytes(bytes, skeleton);
  return documentKeys(sparseDocument(bytes, skeleton), salt, { checkAll: false, bytes: texts })?.record();
}
