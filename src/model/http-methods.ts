/**
 * The operations of an OpenAPI path item, in the order the model walks them. A module of its own so that code
 * keying a document (src/cache/refs.ts, also run on the example worker: src/cache/cold-keys.ts) does not load
 * the model's code.
 */
export const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];
