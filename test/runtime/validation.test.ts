import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { ListToolsResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import type { ToolData, ToolsFile } from "../../templates/server/src/runtime/shared/tool-data.js";
import { compileValidators } from "../../templates/server/src/runtime/call/validation.js";
import { createServer } from "../../templates/server/src/runtime/mcp/server.js";

const fixture = JSON.parse(
  readFileSync(new URL("../fixtures/runtime-tools.json", import.meta.url), "utf8"),
) as ToolsFile;

/** A realistic operation schema: formats, enums, patterns, nested objects. */
function syntheticTool(index: number): ToolData {
  const template = fixture.tools[0]!;
  return {
    ...template,
    name: `op_${index}`,
    inputSchema: {
      type: "object",
      properties: {
        id: { type: "string", format: "uuid" },
        since: { type: "string", format: "date-time" },
        limit: { type: "integer", minimum: 1, maximum: 100 },
        state: { type: "string", enum: ["open", "closed", "all"] },
        body: {
          type: "object",
          properties: {
            name: { type: "string", pattern: "^[a-z][a-z0-9-]*$", maxLength: 64 },
            labels: {
              type: "array",
              items: {
                type: "object",
                properties: { key: { type: "string" }, value: { type: ["string", "null"] } },
                required: ["key"],
              },
            },
            settings: { type: "object", additionalProperties: { type: "boolean" } },
          },
          required: ["name"],
        },
      },
      required: ["id"],
      additionalProperties: false,
    },
  };
}

describe("compileValidators", () => {
  it("validates with all errors and caches per tool", () => {
    const tool = syntheticTool(0);
    const validators = compileValidators([tool]);
    expect(validators.validateArguments(tool, { id: "6f1c1a8e-7c55-4f0e-9d1e-3f7f6f7b8a9c" })).toEqual({ valid: true });
    const invalid = validators.validateArguments(tool, { id: "nope", limit: 0, extra: true });
    expect(invalid.valid).toBe(false);
    expect(!invalid.valid && invalid.errors.map((error) => error.keyword).sort()).toEqual([
      "additionalProperties",
      "format",
      "minimum",
    ]);
  });

  it("reports a schema that does not compile instead of throwing", () => {
    const tool = {
      ...syntheticTool(1),
      inputSchema: { type: "object", properties: { a: { $ref: "#/$defs/missing" } } },
    };
    const result = compileValidators([tool]).validateArguments(tool, {});
    expect(result).toMatchObject({ valid: false, errors: [] });
    expect(!result.valid && result.schemaError).toMatch(/missing/);
  });

  it("answers tools/list for 1000 tools in under 500 ms because compilation is lazy", async () => {
    const toolsFile: ToolsFile = { api: fixture.api, tools: Array.from({ length: 1000 }, (_, i) => syntheticTool(i)) };
    const startedAt = performance.now();
    // auto mode would switch 1000 tools to discovery; this measures the per-operation listing.
    const server = createServer(toolsFile, { log: () => {}, toolMode: "per-operation" });
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await server.connect(serverTransport);
    const client = new Client({ name: "perf", version: "1.0.0" });
    await client.connect(clientTransport);
    // A raw request: Client.listTools() would also compile every outputSchema on the CLIENT side.
    const { tools } = await client.request({ method: "tools/list", params: {} }, ListToolsResultSchema);
    const elapsed = performance.now() - startedAt;
    expect(tools).toHaveLength(1003); // + info, read_response, operation_status
    expect(elapsed).toBeLessThan(500);
  });
});
