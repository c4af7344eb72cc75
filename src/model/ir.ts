/**
 * The version-neutral, MCP-shaped intermediate representation that sits
 * between reading a spec and emitting a project. OpenAPI 2.0/3.0/3.1 and
 * JSON Schema inputs all become an `ApiModel`; every later stage reads only this.
 */
import type {
  ApiData,
  ParameterBinding,
  ToolData,
  ToolGuidance,
} from "../../templates/server/src/runtime/shared/tool-data.js";

export type {
  ApiData,
  BodyBinding,
  ClientCredentialsFlow,
  JsonSchema,
  OperationBinding,
  ParameterBinding,
  SecuritySchemeData,
  ToolAnnotations,
  ToolData,
  ToolGuidance,
  ToolLink,
  IdentifierProducer,
  ProducerCall,
  PaginationData,
  SchemaHints,
} from "../../templates/server/src/runtime/shared/tool-data.js";

export type InputKind = "openapi" | "jsonschema";

export interface Diagnostic {
  /** JSON pointer into the source document, e.g. `#/paths/~1pets/get`. */
  pointer: string;
  severity: "error" | "warning";
  /** What is wrong. */
  message: string;
  /** How to fix it. */
  fix?: string;
}

/** An OpenAPI Link object found on one of the operation's success responses. */
export interface OpenApiLink {
  name: string;
  operationId?: string;
  operationRef?: string;
  parameters: Record<string, unknown>;
  description?: string;
  pointer: string;
}

/**
 * A tool before guidance: `ToolData` without `guidance` (the guidance stage adds it), with `tags`
 * always present and the two facts the guidance stage reads and `emit` drops.
 */
export interface ToolModel extends Omit<ToolData, "guidance" | "tags"> {
  tags: string[];
  /** Links declared on the success responses (resolved to tools by the guidance stage). */
  openapiLinks: OpenApiLink[];
  /** Names of the success response's declared headers, lower-cased. */
  responseHeaders: string[];
}

export interface ApiModel {
  kind: InputKind;
  api: ApiData;
  tools: ToolModel[];
  diagnostics: Diagnostic[];
  /** Declared parameters that are credentials: not tool arguments, their value comes from `scheme`'s env var. */
  credentialParameters?: CredentialParameterNote[];
}

export interface CredentialParameterNote {
  in: ParameterBinding["in"];
  name: string;
  scheme: string;
}

/** A tool with its generation-time guidance attached: what `emit` writes to data/tools.json. */
export interface GuidedTool extends ToolModel {
  guidance: ToolGuidance;
}

export interface GuidedApiModel extends Omit<ApiModel, "tools"> {
  tools: GuidedTool[];
}
