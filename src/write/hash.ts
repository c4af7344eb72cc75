/** The hash recorded for generated files and the spec in the manifest (its own module: load uses it too). */
import { createHash } from "node:crypto";

export function hashContent(content: string | Buffer): string {
  return createHash("sha256").update(content).digest("hex");
}
