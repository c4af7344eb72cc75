/**
 * Stage 4 — model (JSON Schema input): each schema under `$defs`/`definitions`
 * (or one titled top-level schema) describes the input of one tool whose
 * handler the user writes in `src/handlers/<tool>.ts`.
 */
import type { DereferencedSpec } from "../dereference/index.js";
import { pointerOf } from "../diagnostics.js";
import { isObject, type SpecObject } from "../normalise/index.js";
import type { ApiModel, Diagnostic, JsonSchema, ToolModel } from "./ir.js";
import { assignUniqueNames, fitLength, snakeCase } from "./names.js";
import { apiIdentity, unreservedName, type ModelOptions } from "./openapi.js";
import { toJsonSchema } from "./schema.js";

export function buildJsonSchemaModel(spec: DereferencedSpec, options: ModelOptions = {}): ApiModel {
  const document = spec.document;
  const diagnostics: Diagnostic[] = [];
  const title = typeof document.title === "string" && document.title.trim() ? document.title.trim() : "tools";
  const identity = apiIdentity(title, options.name);
  const candidates = toolSchemas(document);
  if (candidates.length === 0) {
    diagnostics.push({
      pointer: "#/$defs",
      severity: "warning",
      message: "no object schemas describe tool inputs",
      fix: "add object schemas under `$defs`, or give the top-level object schema a `title`",
    });
  }
  const drafts = candidates.flatMap(({ key, schema, pointer }) => {
    const inputSchema = toJsonSchema(schema, pointer, {
      direction: "input",
      maxDepth: options.inputDepth ?? 10,
      diagnostics,
    });
    if (inputSchema.type !== "object" && !isObject(inputSchema.properties)) {
      diagnostics.push({
        pointer,
        severity: "warning",
        message: "schema is not an object, so it cannot be a tool's input and is skipped",
        fix: 'give it `type: "object"` with properties',
      });
      return [];
    }
    inputSchema.type = "object";
    const baseName = unreservedName(fitLength(snakeCase(key) || "tool"));
    const description = [schema.title, schema.description]
      .filter((part): part is string => typeof part === "string" && part.trim() !== "")
      .join("\n\n");
    return [
      {
        key,
        baseName,
        inputSchema,
        pointer,
        title: typeof schema.title === "string" ? schema.title : undefined,
        description: description || `Run ${key}.`,
      },
    ];
  });
  const names = assignUniqueNames(
    drafts.map((draft) => ({ base: draft.baseName, identity: draft.pointer, explicit: true })),
  );
  const tools: ToolModel[] = drafts.map((draft, index) => {
    const name = names[index]!;
    return {
      name,
      ...(draft.title ? { title: draft.title } : {}),
      description: draft.description,
      category: "default",
      tags: [],
      pointer: draft.pointer,
      annotations: {
        ...(draft.title ? { title: draft.title } : {}),
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
      inputSchema: draft.inputSchema as JsonSchema,
      handler: { module: name },
      openapiLinks: [],
      responseHeaders: [],
    };
  });
  return {
    kind: "jsonschema",
    api: {
      name: identity.name,
      title,
      version: typeof document.version === "string" ? document.version : "0.1.0",
      ...(typeof document.description === "string" ? { description: document.description } : {}),
      instructions: "",
      baseUrl: "",
      baseUrlEnv: `${identity.envPrefix}_BASE_URL`,
      securitySchemes: [],
      timeoutMs: 30_000,
      envPrefix: identity.envPrefix,
    },
    tools,
    diagnostics,
  };
}

function toolSchemas(document: SpecObject): Array<{ key: string; schema: SpecObject; pointer: string }> {
  for (const keyword of ["$defs", "definitions"] as const) {
    const defs = document[keyword];
    if (isObject(defs) && Object.keys(defs).length > 0) {
      return Object.entries(defs)
        .filter((entry): entry is [string, SpecObject] => isObject(entry[1]))
        .map(([key, schema]) => ({ key, schema, pointer: pointerOf(keyword, key) }));
    }
  }
  if (typeof document.title === "string") return [{ key: document.title, schema: document, pointer: "#" }];
  return [];
}
