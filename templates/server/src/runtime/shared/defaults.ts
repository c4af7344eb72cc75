/**
 * Defaults a generated server starts with, each spelled once; the generator
 * uses the same ones (the auto threshold it records in data/tools.json).
 */

/** `--tools auto`: one tool per operation up to this many operations, discovery above. */
export const DEFAULT_AUTO_THRESHOLD = 40;
/** Upstream bodies larger than this are refused. */
export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;
/** Progressive disclosure: larger `data` is summarised and paged with `read_response`. */
export const DEFAULT_RESPONSE_BUDGET_CHARS = 20_000;
