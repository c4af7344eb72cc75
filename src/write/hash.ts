/** The hash recorded for generated files and the spec in the manifest (its own module: load uses it too). */
import { hash } from "node:crypto";

/** SHA-256 in hex. One-shot `crypto.hash` (no Hash object per call): the caches hash thousands of small texts per run. */
export function hashContent(content: string | Buffer): string {
  return hash("sha256", content, "hex");
}
