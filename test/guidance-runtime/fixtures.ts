import { createAjv } from "../../templates/server/src/runtime/shared/ajv.js";
import type {
  ApiData,
  JsonSchema,
  ToolData,
  ToolGuidance,
} from "../../templates/server/src/runtime/shared/tool-data.js";
import type { ValidateFunction } from "ajv";

const ajv = createAjv();
const compiled = new Map<ToolData, ValidateFunction>();
export function validatorFor(tool: ToolData): ValidateFunction {
  let v = compiled.get(tool);
  if (!v) {
    v = ajv.compile(tool.inputSchema);
    compiled.set(tool, v);
  }
  return v;
}

function hints(schema: JsonSchema, description?: string): ToolGuidance["hints"] {
  const props = (schema["properties"] ?? {}) as Record<string, JsonSchema>;
  const required = (schema["required"] ?? []) as string[];
  const typed: ToolGuidance["hints"]["typed"] = {};
  for (const [name, s] of Object.entries(props)) {
    typed[name] = { type: String(s["type"] ?? "any"), required: required.includes(name) };
    if (s["default"] !== undefined) typed[name]!.default = s["default"];
    if (Array.isArray(s["enum"])) typed[name]!.enum = s["enum"] as unknown[];
  }
  return {
    minimal: { required, optional: Object.keys(props).filter((k) => !required.includes(k)) },
    typed,
    full: { ...(description ? { description } : {}), required, properties: props },
  };
}

const annotations = (o: Partial<ToolData["annotations"]> = {}): ToolData["annotations"] => ({
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: true,
  ...o,
});

function tool(
  t: Omit<ToolData, "guidance" | "pointer" | "annotations"> & {
    annotations?: Partial<ToolData["annotations"]>;
    guidance: Omit<ToolGuidance, "hints">;
  },
): ToolData {
  return {
    ...t,
    pointer: "#/paths/x",
    annotations: annotations(t.annotations),
    guidance: { ...t.guidance, hints: hints(t.inputSchema, t.description) },
  };
}

export const findPets = tool({
  name: "find_pets",
  description: "Find pets by status. Returns a page of pets.",
  category: "pet",
  inputSchema: {
    type: "object",
    properties: {
      status: { type: "string", enum: ["available", "pending", "sold"], default: "available" },
      limit: { type: "integer", minimum: 1, maximum: 100, default: 20 },
      offset: { type: "integer", minimum: 0 },
      tags: { type: "array", items: { type: "string" }, maxItems: 5 },
      include_archived: { type: "boolean" },
    },
    required: ["status"],
    additionalProperties: false,
  },
  operation: {
    method: "get",
    path: "/pets",
    parameters: [
      { arg: "status", name: "status", in: "query", required: true, style: "form", explode: true },
      { arg: "limit", name: "limit", in: "query", required: false, style: "form", explode: true },
      { arg: "offset", name: "offset", in: "query", required: false, style: "form", explode: true },
      { arg: "tags", name: "tags", in: "query", required: false, style: "form", explode: true },
      { arg: "include_archived", name: "includeArchived", in: "query", required: false, style: "form", explode: true },
    ],
    security: [["api_key"]],
  },
  guidance: {
    examples: {
      minimal: { status: "available" },
      full: { status: "available", limit: 20, offset: 0, tags: ["dog"], include_archived: false },
    },
    links: [],
    pagination: { kind: "offset", limitArg: "limit", offsetArg: "offset", itemsPointer: "" },
    listTool: "find_pets",
  },
});

export const getPet = tool({
  name: "get_pet_by_id",
  description: "Get one pet.",
  category: "pet",
  inputSchema: { type: "object", properties: { petId: { type: "integer", minimum: 1 } }, required: ["petId"] },
  operation: {
    method: "get",
    path: "/pets/{petId}",
    parameters: [{ arg: "petId", name: "petId", in: "path", required: true, style: "simple", explode: false }],
    security: [["api_key"]],
  },
  guidance: {
    examples: { minimal: { petId: 1 }, full: { petId: 1 } },
    links: [
      { name: "Delete this pet", tool: "delete_pet", params: { petId: "$request.path.petId" }, source: "openapi" },
      {
        name: "Find pets with the same status",
        tool: "find_pets",
        params: { status: "$response.body#/status", limit: 5 },
        source: "inferred",
      },
      { name: "Get the owner", tool: "get_owner", params: { ownerId: "$response.body#/owner/id" }, source: "inferred" },
    ],
    listTool: "find_pets",
    fallbackTool: "find_pets",
  },
});

export const getOwner = tool({
  name: "get_owner",
  description: "Get an owner.",
  category: "owner",
  inputSchema: { type: "object", properties: { ownerId: { type: "string" } }, required: ["ownerId"] },
  operation: {
    method: "get",
    path: "/owners/{ownerId}",
    parameters: [{ arg: "ownerId", name: "ownerId", in: "path", required: true, style: "simple", explode: false }],
    security: [],
  },
  guidance: { examples: { minimal: { ownerId: "o1" }, full: { ownerId: "o1" } }, links: [] },
});

export const addPet = tool({
  name: "add_pet",
  description: "Add a pet to the store.",
  category: "pet",
  annotations: { readOnlyHint: false, idempotentHint: false },
  inputSchema: {
    type: "object",
    properties: {
      name: { type: "string", minLength: 2, maxLength: 20 },
      photoUrl: { type: "string", format: "uri" },
      birthDate: { type: "string", format: "date" },
      status: { type: "string", enum: ["available", "pending", "sold"] },
      tag: { type: "string", pattern: "^[a-z]+$" },
      weight: { type: "number", exclusiveMinimum: 0, maximum: 500 },
      nickname: { anyOf: [{ type: "string", maxLength: 5 }, { type: "null" }] },
      category: {
        type: "object",
        properties: { id: { type: "integer" }, name: { type: "string" } },
        required: ["name"],
        additionalProperties: false,
      },
    },
    required: ["name", "status"],
    additionalProperties: false,
  },
  operation: {
    method: "post",
    path: "/pets",
    parameters: [
      { arg: "X-Request-Id", name: "X-Request-Id", in: "header", required: false, style: "simple", explode: false },
    ],
    body: {
      mode: "flattened",
      properties: {
        name: "name",
        photoUrl: "photoUrls",
        birthDate: "birthDate",
        status: "status",
        tag: "tag",
        weight: "weight",
        nickname: "nickname",
        category: "category",
      },
      mediaType: "application/json",
      required: true,
    },
    security: [["api_key"]],
  },
  guidance: {
    examples: {
      minimal: { name: "doggie", status: "available" },
      full: {
        name: "doggie",
        photoUrl: "https://example.com/dog.png",
        birthDate: "2020-01-31",
        status: "available",
        tag: "dog",
        weight: 12.5,
        nickname: "dg",
        category: { id: 1, name: "Dogs" },
      },
    },
    links: [
      { name: "Get the new pet", tool: "get_pet_by_id", params: { petId: "$response.body#/id" }, source: "openapi" },
      { name: "Find similar", tool: "find_pets", params: { status: "$request.body#/status" }, source: "inferred" },
      {
        name: "Follow location",
        tool: "get_owner",
        params: { ownerId: "$response.header.X-Owner-Id" },
        source: "inferred",
      },
    ],
    listTool: "find_pets",
  },
});

export const deletePet = tool({
  name: "delete_pet",
  description: "Delete a pet.",
  category: "pet",
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  inputSchema: { type: "object", properties: { petId: { type: "integer", minimum: 1 } }, required: ["petId"] },
  operation: {
    method: "delete",
    path: "/pets/{petId}",
    parameters: [{ arg: "petId", name: "petId", in: "path", required: true, style: "simple", explode: false }],
    security: [["api_key"]],
  },
  guidance: { examples: { minimal: { petId: 1 }, full: { petId: 1 } }, links: [], listTool: "find_pets" },
});

export const listEvents = tool({
  name: "list_events",
  description: "List events.",
  category: "events",
  inputSchema: { type: "object", properties: { cursor: { type: "string" }, limit: { type: "integer", default: 10 } } },
  operation: {
    method: "get",
    path: "/events",
    parameters: [
      { arg: "cursor", name: "cursor", in: "query", required: false, style: "form", explode: true },
      { arg: "limit", name: "limit", in: "query", required: false, style: "form", explode: true },
    ],
    security: [],
  },
  guidance: {
    examples: { minimal: {}, full: { limit: 10 } },
    links: [],
    pagination: {
      kind: "cursor",
      cursorArg: "cursor",
      limitArg: "limit",
      nextCursorPointer: "/next_cursor",
      itemsPointer: "/events",
    },
  },
});

export const listCharges = tool({
  name: "list_charges",
  description: "List charges (Stripe style).",
  category: "billing",
  inputSchema: { type: "object", properties: { starting_after: { type: "string" }, limit: { type: "integer" } } },
  operation: {
    method: "get",
    path: "/charges",
    parameters: [
      { arg: "starting_after", name: "starting_after", in: "query", required: false, style: "form", explode: true },
      { arg: "limit", name: "limit", in: "query", required: false, style: "form", explode: true },
    ],
    security: [],
  },
  guidance: {
    examples: { minimal: {}, full: { limit: 3 } },
    links: [],
    pagination: {
      kind: "cursor",
      cursorArg: "starting_after",
      limitArg: "limit",
      itemsPointer: "/data",
      hasMorePointer: "/has_more",
      lastItemCursorField: "id",
    },
  },
});

export const listRepos = tool({
  name: "list_repos",
  description: "List repositories.",
  category: "repos",
  inputSchema: {
    type: "object",
    properties: { per_page: { type: "integer" }, page: { type: "integer" }, sort: { type: "string" } },
  },
  operation: {
    method: "get",
    path: "/repos",
    parameters: [
      { arg: "per_page", name: "per_page", in: "query", required: false, style: "form", explode: true },
      { arg: "page", name: "page", in: "query", required: false, style: "form", explode: true },
      { arg: "sort", name: "sort", in: "query", required: false, style: "form", explode: true },
    ],
    security: [],
  },
  guidance: {
    examples: { minimal: {}, full: { per_page: 30, page: 1 } },
    links: [],
    pagination: { kind: "link-header" },
  },
});

export const searchUsers = tool({
  name: "search_users",
  description: "Search users by name. Returns matches.",
  category: "users",
  inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
  guidance: { examples: { minimal: { q: "ann" }, full: { q: "ann" } }, links: [] },
  handler: { module: "search_users" },
});

export const allTools = [
  findPets,
  getPet,
  getOwner,
  addPet,
  deletePet,
  listEvents,
  listCharges,
  listRepos,
  searchUsers,
];
export const toolsByName = new Map(allTools.map((t) => [t.name, t]));

export const api: ApiData = {
  name: "petstore-mcp",
  title: "Petstore",
  version: "1.0.0",
  instructions: "",
  baseUrl: "https://petstore.example.com/v1",
  baseUrlEnv: "PETSTORE_BASE_URL",
  securitySchemes: [
    { name: "api_key", kind: "apiKey", in: "header", parameterName: "X-API-Key", env: "PETSTORE_API_KEY" },
    { name: "oauth", kind: "bearer", env: "PETSTORE_TOKEN" },
  ],
  timeoutMs: 30000,
  envPrefix: "PETSTORE",
};
