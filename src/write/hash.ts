/** The hash recorded for generated files and the spec in the manifest (its own module: load uses it too). */
import { hash } from "node:crypto";

/** SHA-256 in hex. One-shot `crypto.hash` (no Hash object per call): the caches hash thousands of small texts per run. */
export function hashContent(content: string | Buffer): string {
  return hash("sha256", content, "hex");
}

/** The last two large contents hashed by `hashBytesOnce`: the previous and the new data/tools.json. */
const recent: Array<{ bytes: Buffer; hash: string }> = [];

/**
 * `hashContent` of bytes, computed once for the same large content seen again in a run: a regeneration reads the
 * current data/tools.json (GitHub: 6 MB) for the change report, then again to plan the write, and the new one's
 * hash is recorded twice. Equal bytes compare far faster than they hash.
 */
export function hashBytesOnce(bytes: Buffer): string {
  if (bytes.length < 1 << 20) return hashContent(bytes);
  const known = recent.find((entry) => entry.bytes === bytes || entry.bytes.equals(bytes));
  if (known) return known.hash;
  const hash = hashContent(bytes);
  recent.unshift({ bytes, hash });
  recent.length = Math.min(recent.length, 2);
  return hash;
}
