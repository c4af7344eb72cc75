/**
 * Your hooks. This file is yours to edit: put customisations here rather
 * than in generated files. create-guided-mcp writes it once and never
 * overwrites it when you regenerate.
 *
 * Examples:
 *
 *   export const hooks = defineHooks({
 *     // Add a header to every upstream request.
 *     beforeRequest(request) {
 *       return { ...request, headers: { ...request.headers, "x-request-source": "mcp" } };
 *     },
 *     tools: {
 *       // Hide a noisy field from one tool's results.
 *       list_pets: { transformResult(result) { return result; } },
 *     },
 *     // Replace an operation with your own implementation.
 *     handlers: {
 *       get_pet: async (args, { signal }) => ({ id: args["petId"], name: "stub" }),
 *     },
 *   });
 */
import { defineHooks } from "./runtime/hook-types.js";

export const hooks = defineHooks({});
