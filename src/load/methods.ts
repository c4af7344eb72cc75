/**
 * The HTTP methods an OpenAPI path item holds operations under, in the order
 * the model walks them (src/model/openapi.ts `HTTP_METHODS`, which a test checks
 * equal). In a module of its own so that the cache-key thread
 * (src/cache/key-worker.ts) does not load the model to know them.
 */
export const OPERATION_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;

export type OperationMethod = (typeof OPERATION_METHODS)[number];
