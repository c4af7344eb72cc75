/** The runtime guidance layer: argument correction, guided errors, directive envelopes. */
export * from "./types.js";
export * from "./fuzzy.js";
export { analyzeErrors, mapAjvErrors, collapseErrors, closestEnumValue, type AnalyzedIssue } from "./issues.js";
export * from "./correct.js";
export * from "./errors.js";
export * from "./envelope.js";
export * from "./cache.js";
export * from "./links.js";
export * from "./describe.js";
export * from "./outcomes.js";
export * from "./reserved.js";
