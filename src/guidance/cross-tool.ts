/**
 * What one tool's guidance reads of the other tools, through the link and producer indexes (./links.ts,
 * ./producers.ts, ./producer-sources.ts, ./list-tool.ts, ./answer-fields.ts). A guidance cache key holds every
 * tool's model without its texts for this (src/cache/guidance-keys.ts), except the input schema, which is large and
 * whose descriptions are often edited: of another tool's input schema, guidance reads only
 *   - its top-level property names, in order (a link's target argument, a producer's carried arguments), and each
 *     one's declared types (whether the caller's value fits the producer's argument);
 *   - its required names, in order (which of a producer's arguments need a first call);
 *   - which arguments are identifiers (./identifiers.ts: path parameters, and names or descriptions that say "ID").
 * So editing a parameter's description elsewhere changes no other tool's guidance, unless it makes that argument an
 * identifier or no longer one. Completed producer calls read other tools' examples too, but completion runs on every
 * run after the cache (./producer-calls.ts). Whoever makes guidance read more of another tool's input schema must
 * add it here: test/unit/model-cache.test.ts compares regenerations after such edits with cold generations.
 */
import type { ToolModel } from "../model/ir.js";
import { identifierArgs } from "./identifiers.js";
import { declaredTypes, schemaProperties, schemaRequired } from "./schema-util.js";

/** The part of `tool`'s input schema other tools' guidance reads (see the module comment), as JSON. */
export function crossToolInputJson(tool: ToolModel): string {
  const properties = schemaProperties(tool.inputSchema);
  return JSON.stringify([
    Object.keys(properties).map((name) => [name, declaredTypes(properties[name])]),
    schemaRequired(tool.inputSchema),
    [...identifierArgs(tool)],
  ]);
}
