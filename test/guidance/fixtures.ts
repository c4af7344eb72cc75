/** Builders for hand-made ToolModels used across the guidance tests. */
import type { ApiModel, JsonSchema, OpenApiLink, ParameterBinding, ToolModel } from "../../src/model/ir.js";

export interface ToolSpec {
  name: string;
  method?: "get" | "put" | "post" | "delete" | "patch";
  path?: string;
  operationId?: string;
  /** Query parameters (wire name → schema); path params are derived from the template. */
  query?: Record<string, JsonSchema>;
  /** Wire name → arg name overrides. */
  argNames?: Record<string, string>;
  body?: Record<string, JsonSchema>;
  required?: string[];
  responseSchema?: JsonSchema;
  responseHeaders?: string[];
  openapiLinks?: OpenApiLink[];
  inputSchema?: JsonSchema;
}

export function makeTool(spec: ToolSpec): ToolModel {
  const method = spec.method ?? "get";
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [...(spec.required ?? [])];
  const parameters: ParameterBinding[] = [];
  const argOf = (wire: string): string => spec.argNames?.[wire] ?? wire;
  for (const m of (spec.path ?? "").matchAll(/\{([^}]+)\}/g)) {
    const wire = m[1]!;
    properties[argOf(wire)] = { type: "string" };
    required.push(argOf(wire));
    parameters.push({ arg: argOf(wire), name: wire, in: "path", required: true, style: "simple", explode: false });
  }
  for (const [wire, schema] of Object.entries(spec.query ?? {})) {
    properties[argOf(wire)] = schema;
    parameters.push({ arg: argOf(wire), name: wire, in: "query", required: false, style: "form", explode: true });
  }
  for (const [prop, schema] of Object.entries(spec.body ?? {})) properties[prop] = schema;
  const inputSchema = spec.inputSchema ?? { type: "object", properties, required, additionalProperties: false };
  const tool: ToolModel = {
    name: spec.name,
    description: spec.name,
    category: "default",
    tags: [],
    pointer: spec.path
      ? `#/paths/${spec.path.replace(/~/g, "~0").replace(/\//g, "~1")}/${method}`
      : `#/$defs/${spec.name}`,
    annotations: {
      readOnlyHint: method === "get",
      destructiveHint: method === "delete",
      idempotentHint: method !== "post",
      openWorldHint: true,
    },
    inputSchema,
    openapiLinks: spec.openapiLinks ?? [],
    responseHeaders: spec.responseHeaders ?? [],
  };
  if (spec.operationId) tool.operationId = spec.operationId;
  if (spec.responseSchema) tool.responseSchema = spec.responseSchema;
  if (spec.path !== undefined) {
    tool.operation = {
      method,
      path: spec.path,
      parameters,
      security: [],
      ...(spec.body
        ? {
            body: {
              mode: "flattened" as const,
              properties: Object.fromEntries(Object.keys(spec.body).map((k) => [k, k])),
              mediaType: "application/json",
              required: true,
            },
          }
        : {}),
    };
  }
  return tool;
}

export function makeModel(tools: ToolModel[]): ApiModel {
  return {
    kind: "openapi",
    api: {
      name: "test-mcp",
      title: "Test",
      version: "1.0.0",
      instructions: "",
      baseUrl: "https://example.com",
      baseUrlEnv: "TEST_BASE_URL",
      securitySchemes: [],
      timeoutMs: 30000,
      envPrefix: "TEST",
    },
    tools,
    diagnostics: [],
  };
}

export const pet: JsonSchema = {
  type: "object",
  properties: { id: { type: "integer" }, name: { type: "string" }, owner_id: { type: "integer" } },
  required: ["id", "name"],
};

/** The petstore-ish API used by several tests. */
export function petstore(): ToolModel[] {
  return [
    makeTool({
      name: "list_pets",
      path: "/pets",
      operationId: "listPets",
      query: { limit: { type: "integer", maximum: 100 }, offset: { type: "integer" } },
      responseSchema: { type: "array", items: pet },
    }),
    makeTool({
      name: "create_pet",
      method: "post",
      path: "/pets",
      operationId: "createPet",
      body: { name: { type: "string" } },
      required: ["name"],
      responseSchema: pet,
    }),
    makeTool({ name: "get_pet", path: "/pets/{petId}", operationId: "getPet", responseSchema: pet }),
    makeTool({
      name: "update_pet",
      method: "patch",
      path: "/pets/{petId}",
      operationId: "updatePet",
      body: { name: { type: "string" } },
      responseSchema: pet,
    }),
    makeTool({ name: "delete_pet", method: "delete", path: "/pets/{petId}", operationId: "deletePet" }),
    makeTool({
      name: "list_pet_photos",
      path: "/pets/{petId}/photos",
      responseSchema: {
        type: "object",
        properties: {
          data: { type: "array", items: { type: "object", properties: { id: { type: "string" } } } },
          next_cursor: { type: "string" },
        },
      },
      query: { cursor: { type: "string" } },
    }),
    makeTool({
      name: "get_owner",
      path: "/owners/{ownerId}",
      responseSchema: { type: "object", properties: { id: { type: "integer" } } },
    }),
  ];
}
