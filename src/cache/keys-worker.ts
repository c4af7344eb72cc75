/**
 * Worker-thread entry: the model cache's keys of a large spec on a cold run
 * (see `startColdKeys` in ./cold-keys.ts). It reads the spec file again,
 * checks that its bytes are the ones the main thread parsed, parses them the
 * same way, and answers once with the keys (or with nothing, when the
 * document cannot be keyed or anything differs).
 */
import { readFileSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import { hashContent } from "../write/hash.js";
import { documentKeys } from "./refs.js";
import type { ColdKeys, ColdKeysRequest } from "./cold-keys.js";

function coldKeys({ path, textHash, salt }: ColdKeysRequest): ColdKeys | undefined {
  const bytes = readFileSync(path);
  if (hashContent(bytes) !== textHash) return undefined;
  // As src/load/index.ts parses JSON text (the only kind sent here).
  const document = JSON.parse(
    bytes
      .toString("utf8")
      .replace(/^\uFEFF/, "")
      .trimStart(),
  ) as Record<string, unknown>;
  const keys = documentKeys(document, salt, { checkAll: false });
  return (
    keys && {
      prelude: keys.prelude,
      operations: keys.operations.map(({ path, method, key }) => ({ path, method, key })),
    }
  );
}

let answer: ColdKeys | undefined;
try {
  answer = coldKeys(workerData as ColdKeysRequest);
} catch {
  answer = undefined;
}
parentPort?.postMessage(answer ?? null);
