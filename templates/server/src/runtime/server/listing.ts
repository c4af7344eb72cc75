/**
 * tools/list: the mode's tools (per-operation: the API's operations with the
 * outcome layer's output schemas), then the reserved built-in tools. Built on
 * the first request and reused.
 */
import { createHash } from "node:crypto";
import type { Tool } from "@modelcontextprotocol/server";
import type { Outcomes } from "../call/outcomes.js";
import { CONFIRM_ARG, WAIT_ALIAS, WAIT_ARG } from "../call/types.js";
import { RESERVED_OUTPUT_SCHEMA } from "../guidance/reserved.js";
import type { ResolvedMode, Surface } from "../modes/types.js";
import type { ToolData } from "../shared/tool-data.js";

export interface ListingOptions {
  mode: ResolvedMode;
  tools: readonly ToolData[];
  reserved: ReadonlyMap<string, ToolData>;
  surface: Surface;
  outcomes: Pick<Outcomes, "outputSchema">;
  confirmDestructive: boolean;
}

export function createListTools(options: ListingOptions): () => Tool[] {
  const { mode, tools, reserved, surface, outcomes, confirmDestructive } = options;
  let listing: Tool[] | undefined;
  return () => {
    // Discovery's search index is built right after the first tools/list is answered, off its critical path.
    if (listing === undefined && mode === "discovery") setImmediate(() => surface.warmUp()).unref?.();
    return (listing ??= [
      ...(mode === "per-operation"
        ? tools.map((tool) => ({
            name: tool.name,
            ...(tool.title !== undefined && { title: tool.title }),
            description: tool.description,
            inputSchema: listedInputSchema(tool, confirmDestructive),
            outputSchema: withContentId(outcomes.outputSchema(tool)),
            annotations: tool.annotations,
          }))
        : surface.listed.map((tool) => ({
            ...tool,
            ...(tool.outputSchema && { outputSchema: withContentId(tool.outputSchema) }),
          }))),
      ...[...reserved.values()].map((tool) => ({
        name: tool.name,
        title: tool.title,
        description: tool.description,
        inputSchema: tool.inputSchema as Tool["inputSchema"],
        outputSchema: withContentId(RESERVED_OUTPUT_SCHEMA),
        annotations: tool.annotations,
      })),
    ]);
  };
}

/** Where a schema's own identifiers would resolve against the root `$id`: such schemas are listed as they are. */
const NESTED_IDENTIFIER = /"\$(id|anchor|dynamicAnchor)"\s*:/;

/**
 * The output schema with a `$id` derived from its content (a SHA-256 of its
 * JSON), so tools with identical schemas (GitHub: 1,226 tools, 432 distinct
 * output schemas) name the same schema. The SDK clients' validator providers
 * look a schema up by `$id` before compiling it (`ajv.getSchema($id) ??
 * ajv.compile(schema)`), so each distinct schema is compiled once: the v1
 * client compiles every output schema when it lists tools, and this roughly
 * halves that work on GitHub. Nothing about what validates changes. A schema
 * that already has `$id`, or identifiers inside it (which would resolve
 * against the new root), is left as it is.
 */
export function withContentId<S extends NonNullable<Tool["outputSchema"]>>(schema: S): S {
  if (schema["$id"] !== undefined) return schema;
  const json = JSON.stringify(schema);
  if (NESTED_IDENTIFIER.test(json)) return schema;
  const digest = createHash("sha256").update(json).digest("base64url").slice(0, 22);
  return { $id: `urn:guided-mcp:output:${digest}`, ...schema };
}

/**
 * The inputSchema as listed: the generated one, plus the reserved `_confirm`
 * flag on destructive tools so clients that check arguments against the
 * schema (or build forms from it) let it through. The data file, validation
 * and the upstream request never see `_confirm`.
 */
function listedInputSchema(tool: ToolData, confirmDestructive: boolean): Tool["inputSchema"] {
  const schema = tool.inputSchema as Tool["inputSchema"];
  const extra: Record<string, { type: "boolean"; description: string }> = {};
  if (confirmDestructive && tool.annotations.destructiveHint && schema.properties?.[CONFIRM_ARG] === undefined)
    extra[CONFIRM_ARG] = {
      type: "boolean",
      description: "Set to true to confirm this destructive call (ask the user first).",
    };
  // Operations that change something are the ones that answer 202 Accepted; `wait` (or `_wait`) waits for them.
  const method = tool.operation?.method;
  if (method !== undefined && !["get", "head", "options"].includes(method)) {
    const name =
      schema.properties?.[WAIT_ARG] === undefined
        ? WAIT_ARG
        : schema.properties?.[WAIT_ALIAS] === undefined
          ? WAIT_ALIAS
          : undefined;
    if (name)
      extra[name] = {
        type: "boolean",
        description:
          "If the API answers 202 Accepted, wait for the long-running operation to finish and return its result.",
      };
  }
  if (Object.keys(extra).length === 0) return schema;
  return { ...schema, properties: { ...schema.properties, ...extra } };
}
