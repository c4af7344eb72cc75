/**
 * Stage 4 — model (OpenAPI): one tool per operation of a dereferenced
 * OpenAPI 3.1 document. Each spec object gets one small transform.
 */
import type { DereferencedSpec } from "../dereference/index.js";
import { childPointer, pointerOf } from "../diagnostics.js";
import { isObject, type SpecObject } from "../normalise/index.js";
import type {
  ApiData,
  ApiModel,
  BodyBinding,
  CredentialParameterNote,
  Diagnostic,
  JsonSchema,
  OpenApiLink,
  OperationBinding,
  ParameterBinding,
  SecuritySchemeData,
  ToolAnnotations,
  ToolModel,
} from "./ir.js";
import { ARG_NAME_PATTERN, argName, assignUniqueNames, baseToolName, envName, isPrototypeMember, packageSlug } from "./names.js";
import { RESERVED_TOOL_NAMES } from "../../templates/server/src/runtime/call/types.js";
import { mergeAllOfObjects, toBoundedJsonSchema, toJsonSchema, type SchemaContext } from "./schema.js";
import { adoptExample, spreadBodyExample } from "./spec-examples.js";
import { htmlToMarkdown, isEmptyBody } from "./spec-cleanup.js";
import { parameterKey, parsePathKey, planDiscriminators, type PathKey } from "./fragments.js";
import { clientCredentialsFlow, planCredentials } from "./credentials.js";

/** `info` and `read_response` are the generated server's own tools: an API tool with such a base name gets `_op`. */
export function unreservedName(base: string): string {
  return RESERVED_TOOL_NAMES.includes(base) ? `${base}_op` : base;
}

export interface ModelOptions {
  /** Overrides the server name derived from `info.title`. */
  name?: string;
  inputDepth?: number;
  outputDepth?: number;
  /** Size budget of one response schema in tools/list (characters of JSON). */
  outputSchemaChars?: number;
}

export const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;
type HttpMethod = (typeof HTTP_METHODS)[number];
type ParameterLocation = ParameterBinding["in"];

const DEFAULT_TIMEOUT_MS = 30_000;
/**
 * Some APIs inline whole entity graphs into request bodies (Microsoft Graph:
 * 1.2 MB per tool). Past this size an agent cannot use the schema anyway.
 */
const MAX_BODY_SCHEMA_CHARS = 24_000;
const MAX_DESCRIPTION = 4000;
/** Headers OpenAPI says are controlled by the transport and must be ignored as parameters. */
const IGNORED_HEADERS = new Set(["accept", "content-type", "authorization"]);
const BODY_MEDIA_PREFERENCE = [/^application\/json\b/i, /\+json\b/i, /^application\/x-www-form-urlencoded\b/i, /^multipart\/form-data\b/i, /^text\/plain\b/i];

export function apiIdentity(title: string, override?: string): { slug: string; name: string; envPrefix: string } {
  const slug = packageSlug(override ?? title).replace(/-mcp$/, "");
  return { slug, name: `${slug}-mcp`, envPrefix: envName(slug) };
}

export function buildOpenApiModel(spec: DereferencedSpec, options: ModelOptions = {}): ApiModel {
  const document = spec.document;
  const diagnostics: Diagnostic[] = [];
  const info = isObject(document.info) ? document.info : {};
  const title = typeof info.title === "string" && info.title.trim() ? info.title.trim() : "API";
  const identity = apiIdentity(title, options.name);
  const securitySchemes = readSecuritySchemes(document, identity.envPrefix, diagnostics);
  const api: ApiData = {
    name: identity.name,
    title,
    version: typeof info.version === "string" ? info.version : String(info.version ?? "0.0.0"),
    ...(typeof info.description === "string" ? { description: info.description } : {}),
    instructions: "",
    baseUrl: readBaseUrl(document, spec.location, identity.envPrefix, diagnostics),
    baseUrlEnv: `${identity.envPrefix}_BASE_URL`,
    securitySchemes,
    timeoutMs: DEFAULT_TIMEOUT_MS,
    envPrefix: identity.envPrefix,
    ...readLogo(info["x-logo"]),
  };
  const context = {
    diagnostics,
    inputDepth: options.inputDepth ?? 10,
    outputDepth: options.outputDepth ?? 5,
    outputSchemaChars: options.outputSchemaChars ?? 4000,
    defaultSecurity: readSecurity(document.security),
    knownSchemes: new Set(securitySchemes.map((scheme) => scheme.name)),
    schemes: securitySchemes,
    envPrefix: identity.envPrefix,
    credentialParameters: new Map<string, CredentialParameterNote>(),
  };

  const drafts: ToolDraft[] = [];
  const paths = isObject(document.paths) ? document.paths : {};
  const rootOverride = readMcpExtension(document["x-mcp"], "#/x-mcp", diagnostics);
  if (Object.keys(paths).length === 0) {
    diagnostics.push({ pointer: "#/paths", severity: "warning", message: "the document has no paths, so the server has no tools", fix: "add operations under `paths`" });
  }
  for (const [path, pathItem] of Object.entries(paths)) {
    if (!isObject(pathItem)) continue;
    const pathOverride = readMcpExtension(pathItem["x-mcp"], childPointer(pointerOf("paths", path), "x-mcp"), diagnostics);
    for (const method of HTTP_METHODS) {
      const operation = pathItem[method];
      if (!isObject(operation)) continue;
      const pointer = pointerOf("paths", path, method);
      const override = mergeOverrides(rootOverride, pathOverride, readMcpExtension(operation["x-mcp"], childPointer(pointer, "x-mcp"), diagnostics));
      if (override.hidden) continue;
      try {
        drafts.push(applyOverride(buildOperationTool(path, method, pathItem, operation, pointer, context), override));
      } catch (error) {
        diagnostics.push({ pointer, severity: "error", message: `operation skipped: ${(error as Error).message}`, fix: "fix the operation's definition" });
      }
    }
  }
  const names = assignUniqueNames(
    drafts.map((draft) => ({ base: draft.baseName, identity: draft.identity, explicit: draft.explicitName === true || draft.operationId !== undefined })),
  );
  const tools = drafts.map(({ baseName: _baseName, identity: _identity, explicitName: _explicit, ...draft }, index) => ({ ...draft, name: names[index]! }));
  const credentialParameters = [...context.credentialParameters.values()];
  return { kind: "openapi", api, tools, diagnostics, ...(credentialParameters.length > 0 ? { credentialParameters } : {}) };
}

/** A tool before names are made unique across the API. */
type ToolDraft = Omit<ToolModel, "name"> & { baseName: string; identity: string; explicitName?: boolean };

interface OperationContext {
  diagnostics: Diagnostic[];
  inputDepth: number;
  outputDepth: number;
  outputSchemaChars: number;
  defaultSecurity: string[][];
  knownSchemes: Set<string>;
  /** The API's schemes; a Google-style `key` parameter adds one (see credentials.ts). */
  schemes: SecuritySchemeData[];
  envPrefix: string;
  /** Declared parameters that are credentials, by `in:name:scheme`, for the README. */
  credentialParameters: Map<string, CredentialParameterNote>;
}

function buildOperationTool(
  path: string,
  method: HttpMethod,
  pathItem: SpecObject,
  operation: SpecObject,
  pointer: string,
  context: OperationContext,
): ToolDraft {
  const operationId = typeof operation.operationId === "string" && operation.operationId.trim() ? operation.operationId.trim() : undefined;
  const inputContext: SchemaContext = { direction: "input", maxDepth: context.inputDepth, diagnostics: context.diagnostics };
  const pathKey = parsePathKey(path);
  const allParameters = collectParameters(pathItem, operation, pointer, context.diagnostics);
  const plan = planParameters(pathKey, allParameters, context);
  const parameters = allParameters.filter(({ parameter }) => !plan.excluded.has(parameterKey(parameter)));
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const parameterBindings: ParameterBinding[] = [];

  const locationsByName = new Map<string, Set<ParameterLocation>>();
  for (const { parameter } of parameters) {
    const set = locationsByName.get(parameter.name) ?? new Set();
    set.add(parameter.in);
    locationsByName.set(parameter.name, set);
  }
  for (const { parameter, pointer: parameterPointer } of parameters) {
    const shared = (locationsByName.get(parameter.name)?.size ?? 0) > 1;
    const arg = uniqueKey(argName(shared && parameter.in !== "path" ? `${parameter.in}_${parameter.name}` : parameter.name), properties);
    const { schema, json } = parameterSchema(parameter, parameterPointer, inputContext);
    if (!json) warnIfUnserialisable(parameter, schema, parameterPointer, context.diagnostics);
    properties[arg] = schema;
    const isRequired = parameter.in === "path" || parameter.required === true || plan.required.has(parameterKey(parameter));
    if (isRequired) required.push(arg);
    const binding = bindingFor(parameter, arg, isRequired, json);
    if (parameter.in === "path" && pathKey.greedy.includes(parameter.name)) binding.greedy = true;
    parameterBindings.push(binding);
  }

  const body = bodyAllowed(method, operation, pointer, context.diagnostics) ? buildBody(operation, pointer, properties, required, inputContext) : undefined;
  const inputSchema: JsonSchema = { type: "object", properties, additionalProperties: false };
  if (required.length > 0) inputSchema.required = required;

  const success = successResponse(operation, pointer);
  const responseSchema = success?.schema
    ? toBoundedJsonSchema(success.schema, success.schemaPointer!, { direction: "output", maxDepth: context.outputDepth, diagnostics: context.diagnostics }, context.outputSchemaChars)
    : undefined;

  const security = operation.security !== undefined ? readSecurity(operation.security) : context.defaultSecurity;
  if (security.length === 0) warnIfAuthorizationUncovered(pathItem, operation, pointer, context.diagnostics);
  for (const alternative of security) {
    for (const scheme of alternative) {
      if (!context.knownSchemes.has(scheme)) {
        context.diagnostics.push({ pointer: childPointer(pointer, "security"), severity: "warning", message: `security scheme "${scheme}" is not declared in components.securitySchemes`, fix: "declare it, or remove it from the requirement" });
      }
    }
  }

  const binding: OperationBinding = {
    method,
    path: pathKey.template,
    parameters: parameterBindings,
    ...(body ? { body } : {}),
    security,
    ...(plan.fixed.length > 0 || declaredAccept(pathItem, operation) ? { fixed: [...plan.fixed, ...declaredAccept(pathItem, operation)] } : {}),
    ...(plan.credentialParameters.length > 0 ? { credentialParameters: plan.credentialParameters } : {}),
    ...(success?.mediaType ? { responseMediaType: success.mediaType } : {}),
  };
  const tags = Array.isArray(operation.tags) ? operation.tags.filter((tag): tag is string => typeof tag === "string") : [];
  const summary = typeof operation.summary === "string" ? htmlToMarkdown(operation.summary.trim()) : "";
  return {
    baseName: unreservedName(baseToolName(operationId, method, path)),
    identity: `${method} ${path}`,
    ...(operationId ? { operationId } : {}),
    ...(summary ? { title: summary.slice(0, 200) } : {}),
    description: describeOperation(method, path, summary, operation),
    category: tags[0] ?? "default",
    tags,
    pointer,
    annotations: annotationsFor(method, summary),
    inputSchema,
    ...(responseSchema ? { responseSchema } : {}),
    operation: binding,
    openapiLinks: success?.links ?? [],
    responseHeaders: success?.headers ?? [],
  };
}

interface ParameterPlan {
  /** `in:name` keys of declared parameters that are not tool arguments: pinned by the path key fragment, or credentials. */
  excluded: Set<string>;
  required: Set<string>;
  fixed: NonNullable<OperationBinding["fixed"]>;
  credentialParameters: NonNullable<OperationBinding["credentialParameters"]>;
}

/** What the path key fragment and the security schemes take out of the agent's hands (see fragments.ts, credentials.ts). */
function planParameters(pathKey: PathKey, parameters: Array<{ parameter: RawParameter }>, context: OperationContext): ParameterPlan {
  const declared = parameters.map(({ parameter }) => parameter);
  const discriminators = planDiscriminators(pathKey.tokens, declared);
  const credentials = planCredentials(declared, context.schemes, context.envPrefix);
  for (const note of credentials.covered) context.credentialParameters.set(`${note.in}:${note.name}:${note.scheme}`, note);
  return {
    excluded: new Set([...discriminators.pinned, ...credentials.hidden]),
    required: discriminators.required,
    fixed: discriminators.fixed,
    credentialParameters: credentials.credentialParameters,
  };
}

/**
 * `x-mcp` on the root, a path item or an operation: `false` hides it; an
 * object overrides `name`, `title`, `description` and `hidden`. Names and
 * descriptions apply only at the operation level; `hidden` inherits downwards.
 */
export interface McpOverride {
  hidden?: boolean;
  name?: string;
  title?: string;
  description?: string;
}

export function readMcpExtension(value: unknown, pointer: string, diagnostics: Diagnostic[]): McpOverride {
  if (value === undefined) return {};
  if (value === false) return { hidden: true };
  if (value === true) return { hidden: false };
  if (!isObject(value)) {
    diagnostics.push({ pointer, severity: "warning", message: "x-mcp must be false or an object", fix: "use `x-mcp: false` to hide, or an object with name/title/description/hidden" });
    return {};
  }
  const override: McpOverride = {};
  if (typeof value.hidden === "boolean") override.hidden = value.hidden;
  for (const key of ["name", "title", "description"] as const) {
    if (value[key] === undefined) continue;
    if (typeof value[key] === "string" && (value[key] as string).trim()) override[key] = (value[key] as string).trim();
    else diagnostics.push({ pointer: childPointer(pointer, key), severity: "warning", message: `x-mcp.${key} must be a non-empty string`, fix: "fix or remove it" });
  }
  if (override.name !== undefined && !/^[a-zA-Z0-9_-]{1,64}$/.test(override.name)) {
    diagnostics.push({ pointer: childPointer(pointer, "name"), severity: "warning", message: `x-mcp.name "${override.name}" is not a valid tool name, so it is normalised`, fix: "use 1-64 characters from [a-zA-Z0-9_-]" });
  }
  return override;
}

function mergeOverrides(root: McpOverride, path: McpOverride, operation: McpOverride): McpOverride {
  const hidden = operation.hidden ?? path.hidden ?? root.hidden ?? false;
  return { ...operation, hidden };
}

function applyOverride(draft: ToolDraft, override: McpOverride): ToolDraft {
  if (override.name) {
    draft.baseName = unreservedName(/^[a-zA-Z0-9_-]{1,64}$/.test(override.name) ? override.name : baseToolName(override.name, "", ""));
    draft.explicitName = true;
  }
  if (override.title) {
    draft.title = override.title;
    draft.annotations = { ...draft.annotations, title: override.title };
  }
  if (override.description) draft.description = override.description;
  return draft;
}

function uniqueKey(base: string, taken: Record<string, unknown>): string {
  let key = base;
  for (let counter = 2; Object.hasOwn(taken, key); counter++) key = `${base}_${counter}`;
  return key;
}

interface RawParameter {
  name: string;
  in: ParameterLocation;
  required?: boolean;
  description?: string;
  deprecated?: boolean;
  style?: string;
  explode?: boolean;
  allowReserved?: boolean;
  schema?: unknown;
  content?: unknown;
  example?: unknown;
  examples?: unknown;
}

/** Path-level parameters, overridden by operation-level ones with the same name and location. */
function collectParameters(pathItem: SpecObject, operation: SpecObject, pointer: string, diagnostics: Diagnostic[]): Array<{ parameter: RawParameter; pointer: string }> {
  const merged = new Map<string, { parameter: RawParameter; pointer: string }>();
  const pathPointer = pointer.slice(0, pointer.lastIndexOf("/"));
  const add = (list: unknown, base: string) => {
    if (!Array.isArray(list)) return;
    list.forEach((parameter, index) => {
      const where = childPointer(base, "parameters", index);
      if (!isObject(parameter) || typeof parameter.name !== "string" || typeof parameter.in !== "string") {
        diagnostics.push({ pointer: where, severity: "warning", message: "parameter without a name or location is ignored", fix: "give it `name` and `in`" });
        return;
      }
      if (!["path", "query", "header", "cookie"].includes(parameter.in)) {
        diagnostics.push({ pointer: childPointer(where, "in"), severity: "warning", message: `parameter location "${parameter.in}" is not supported and is ignored`, fix: "use path, query, header or cookie" });
        return;
      }
      if (parameter.in === "header" && IGNORED_HEADERS.has(parameter.name.toLowerCase())) return;
      merged.set(`${parameter.in}:${parameter.name}`, { parameter: parameter as unknown as RawParameter, pointer: where });
    });
  };
  add(pathItem.parameters, pathPointer);
  add(operation.parameters, pointer);
  return [...merged.values()];
}

function parameterSchema(parameter: RawParameter, pointer: string, context: SchemaContext): { schema: JsonSchema; json: boolean } {
  let source: unknown = parameter.schema;
  let json = false;
  if (source === undefined && isObject(parameter.content)) {
    const [mediaType, media] = Object.entries(parameter.content)[0] ?? [];
    if (isObject(media)) source = media.schema;
    json = typeof mediaType === "string" && /json/i.test(mediaType);
  }
  const schema = toJsonSchema(source ?? { type: "string" }, childPointer(pointer, "schema"), context);
  if (parameter.description && typeof parameter.description === "string") schema.description = htmlToMarkdown(parameter.description);
  if (parameter.deprecated === true) schema.deprecated = true;
  adoptExample(schema, parameter);
  return { schema, json };
}

function bindingFor(parameter: RawParameter, arg: string, required: boolean, json: boolean): ParameterBinding {
  const defaultStyle = parameter.in === "query" || parameter.in === "cookie" ? "form" : "simple";
  const style = (typeof parameter.style === "string" ? parameter.style : defaultStyle) as ParameterBinding["style"];
  const explode = typeof parameter.explode === "boolean" ? parameter.explode : style === "form";
  return {
    arg,
    name: parameter.name,
    in: parameter.in,
    required,
    style,
    explode,
    ...(parameter.allowReserved === true ? { allowReserved: true } : {}),
    ...(json ? { json: true } : {}),
  };
}

/**
 * `Accept` is the transport's header, not an argument; but a required one the
 * spec pins to a single value (MediaLive's thumbnail: `image/jpeg`) is sent as is.
 */
function declaredAccept(pathItem: SpecObject, operation: SpecObject): NonNullable<OperationBinding["fixed"]> {
  const parameters = [...(Array.isArray(pathItem.parameters) ? pathItem.parameters : []), ...(Array.isArray(operation.parameters) ? operation.parameters : [])];
  const accept = parameters.find((parameter) => isObject(parameter) && parameter.in === "header" && String(parameter.name).toLowerCase() === "accept" && parameter.required === true);
  const values = isObject(accept) && isObject(accept.schema) && Array.isArray(accept.schema.enum) ? accept.schema.enum : [];
  return values.length === 1 && typeof values[0] === "string" ? [{ in: "header", name: "Accept", value: values[0] }] : [];
}

/**
 * The `Authorization` header is the security scheme's, never an argument; a
 * spec that requires it as a parameter but declares no security for the
 * operation leaves nothing to fill it from (GoToTraining).
 */
function warnIfAuthorizationUncovered(pathItem: SpecObject, operation: SpecObject, pointer: string, diagnostics: Diagnostic[]): void {
  const parameters = [...(Array.isArray(pathItem.parameters) ? pathItem.parameters : []), ...(Array.isArray(operation.parameters) ? operation.parameters : [])];
  const required = parameters.some((parameter) => isObject(parameter) && parameter.in === "header" && String(parameter.name).toLowerCase() === "authorization" && parameter.required === true);
  if (!required) return;
  diagnostics.push({
    pointer,
    severity: "warning",
    message: "the Authorization header is required but no security scheme covers this operation, so this operation cannot be called faithfully: the header is never sent",
    fix: "declare the security scheme (components.securitySchemes and `security`), or set the header in src/hooks.ts",
  });
}

/**
 * HTTP clients (fetch among them) refuse a body on GET and HEAD, so such a
 * body is not offered to the agent: a call would otherwise fail every time.
 * Stripe declares an optional form body on each GET, repeating the query.
 */
function bodyAllowed(method: HttpMethod, operation: SpecObject, pointer: string, diagnostics: Diagnostic[]): boolean {
  if (method !== "get" && method !== "head") return true;
  if (!isObject(operation.requestBody)) return true;
  const required = operation.requestBody.required === true;
  diagnostics.push({
    pointer: childPointer(pointer, "requestBody"),
    severity: "warning",
    message: required
      ? `a ${method.toUpperCase()} request cannot carry a body, so this operation cannot be called faithfully: its required body is left out`
      : `a ${method.toUpperCase()} request cannot carry a body, so the optional body's fields are not offered`,
    fix: "move those fields to query parameters, or use POST for an operation that needs a body",
  });
  return false;
}

/**
 * OpenAPI defines `form`, `simple`, `label`, `matrix` and the delimited styles
 * only for scalars, flat arrays and flat objects; an array of objects or an
 * object with nested values (AWS EC2's `TagSpecification`, `Filter`) has no
 * defined wire form. Such values are sent as JSON text, which the API may not read.
 */
function warnIfUnserialisable(parameter: RawParameter, schema: JsonSchema, pointer: string, diagnostics: Diagnostic[]): void {
  if (parameter.style === "deepObject") return;
  const items = isObject(schema.items) ? (schema.items as JsonSchema) : undefined;
  const values = isObject(schema.properties) ? Object.values(schema.properties as Record<string, JsonSchema>) : [];
  const nested = (items !== undefined && isContainer(items)) || values.some(isContainer);
  if (!nested) return;
  diagnostics.push({
    pointer: childPointer(pointer, "schema"),
    severity: "warning",
    message: `${parameter.in} parameter "${parameter.name}" holds nested values, which its style "${parameter.style ?? "default"}" cannot serialise, so this operation cannot be called faithfully: nested values are sent as JSON text`,
    fix: "use `style: deepObject` (query), `content: application/json`, or flatten the parameter",
  });
}

function isContainer(schema: unknown): boolean {
  if (!isObject(schema)) return false;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes("object") || types.includes("array") || isObject(schema.properties) || schema.items !== undefined) return true;
  return ["allOf", "anyOf", "oneOf"].some((keyword) => Array.isArray(schema[keyword]) && (schema[keyword] as unknown[]).some(isContainer));
}

/**
 * The body's properties become top-level arguments when the body is a plain
 * object whose property names are valid argument names and do not clash with
 * parameters; anything else (arrays, oneOf, maps, clashes) is one `body` argument.
 */
function buildBody(operation: SpecObject, pointer: string, properties: Record<string, JsonSchema>, required: string[], context: SchemaContext): BodyBinding | undefined {
  const requestBody = operation.requestBody;
  if (!isObject(requestBody) || !isObject(requestBody.content)) return undefined;
  const mediaType = pickMediaType(Object.keys(requestBody.content));
  if (!mediaType) return undefined;
  const media = requestBody.content[mediaType];
  const bodyPointer = childPointer(pointer, "requestBody", "content", mediaType, "schema");
  const isRequired = requestBody.required === true;
  const rawSchema = isObject(media) && media.schema !== undefined ? media.schema : isTextual(mediaType) ? { type: "string" } : { type: "string", format: "binary" };
  const converted = toBoundedJsonSchema(rawSchema, bodyPointer, context, MAX_BODY_SCHEMA_CHARS, (depth) =>
    context.diagnostics.push({
      pointer: bodyPointer,
      severity: "warning",
      message: `request body schema is larger than ${MAX_BODY_SCHEMA_CHARS / 1000} KB inlined, so it is constrained only to depth ${depth} (deeper values are accepted as given)`,
      fix: "split the body schema, or accept that the upstream validates the deeper levels",
    }),
  );
  if (isEmptyBody(converted)) return undefined;
  const flat = flattenable(converted, properties);
  if (flat) {
    const mapping: Record<string, string> = {};
    const bodyRequired = new Set((flat.required as string[] | undefined) ?? []);
    for (const [name, schema] of Object.entries(flat.properties as Record<string, JsonSchema>)) {
      properties[name] = schema;
      mapping[name] = name;
      // Many specs leave requestBody.required out even when the body is needed; only an explicit `false` makes its fields optional.
      if (requestBody.required !== false && bodyRequired.has(name)) required.push(name);
    }
    spreadBodyExample(properties, Object.keys(mapping), media);
    return { mode: "flattened", properties: mapping, mediaType, required: isRequired };
  }
  const arg = uniqueKey("body", properties);
  adoptExample(converted, media);
  if (typeof requestBody.description === "string" && converted.description === undefined) converted.description = requestBody.description;
  properties[arg] = converted;
  if (isRequired) required.push(arg);
  return { mode: "property", arg, mediaType, required: isRequired };
}

function flattenable(schema: JsonSchema, taken: Record<string, unknown>): JsonSchema | undefined {
  const merged = schema.allOf ? mergeAllOfObjects(schema) : schema;
  if (!merged || merged.oneOf || merged.anyOf || merged.not || merged.if) return undefined;
  if (merged.type !== "object" && !(merged.type === undefined && isObject(merged.properties))) return undefined;
  if (!isObject(merged.properties) || Object.keys(merged.properties).length === 0) return undefined;
  if (isObject(merged.additionalProperties) || merged.patternProperties) return undefined;
  for (const name of Object.keys(merged.properties)) {
    if (!ARG_NAME_PATTERN.test(name) || Object.hasOwn(taken, name) || isPrototypeMember(name)) return undefined;
  }
  return merged;
}

function pickMediaType(mediaTypes: string[]): string | undefined {
  for (const preference of BODY_MEDIA_PREFERENCE) {
    const match = mediaTypes.find((type) => preference.test(type));
    if (match) return match;
  }
  return mediaTypes[0];
}

function isTextual(mediaType: string): boolean {
  return /^text\/|json|xml|x-www-form-urlencoded/i.test(mediaType);
}

interface SuccessResponse {
  mediaType?: string;
  schema?: unknown;
  schemaPointer?: string;
  links: OpenApiLink[];
  headers: string[];
}

function successResponse(operation: SpecObject, pointer: string): SuccessResponse | undefined {
  const responses = isObject(operation.responses) ? operation.responses : {};
  const codes = Object.keys(responses)
    .filter((code) => /^2(\d\d|XX)$/i.test(code))
    .sort();
  const code = codes[0];
  if (!code) return undefined;
  const response = responses[code];
  if (!isObject(response)) return undefined;
  const responsePointer = childPointer(pointer, "responses", code);
  const result: SuccessResponse = {
    links: readLinks(response.links, childPointer(responsePointer, "links")),
    headers: isObject(response.headers) ? Object.keys(response.headers).map((name) => name.toLowerCase()) : [],
  };
  if (isObject(response.content)) {
    const mediaType = Object.keys(response.content).find((type) => /json/i.test(type)) ?? Object.keys(response.content)[0];
    const media = mediaType ? response.content[mediaType] : undefined;
    if (mediaType) result.mediaType = mediaType;
    if (mediaType && /json/i.test(mediaType) && isObject(media) && media.schema !== undefined) {
      result.schema = media.schema;
      result.schemaPointer = childPointer(responsePointer, "content", mediaType, "schema");
    }
  }
  return result;
}

function readLinks(links: unknown, pointer: string): OpenApiLink[] {
  if (!isObject(links)) return [];
  const result: OpenApiLink[] = [];
  for (const [name, link] of Object.entries(links)) {
    if (!isObject(link)) continue;
    result.push({
      name,
      ...(typeof link.operationId === "string" ? { operationId: link.operationId } : {}),
      ...(typeof link.operationRef === "string" ? { operationRef: link.operationRef } : {}),
      parameters: isObject(link.parameters) ? { ...link.parameters } : {},
      ...(typeof link.description === "string" ? { description: link.description } : {}),
      pointer: childPointer(pointer, name),
    });
  }
  return result;
}

function describeOperation(method: string, path: string, summary: string, operation: SpecObject): string {
  const description = typeof operation.description === "string" ? htmlToMarkdown(operation.description.trim()) : "";
  const parts = [summary, description && description !== summary ? description : ""].filter(Boolean);
  if (operation.deprecated === true) parts.unshift("Deprecated.");
  let text = parts.join("\n\n") || `${method.toUpperCase()} ${path}`;
  if (text.length > MAX_DESCRIPTION) text = text.slice(0, MAX_DESCRIPTION - 1) + "…";
  return text;
}

export function annotationsFor(method: string, title?: string): ToolAnnotations {
  const readOnly = method === "get" || method === "head" || method === "options";
  return {
    ...(title ? { title: title.slice(0, 200) } : {}),
    readOnlyHint: readOnly,
    destructiveHint: method === "delete",
    idempotentHint: readOnly || method === "put" || method === "delete",
    openWorldHint: true,
  };
}

function readSecurity(security: unknown): string[][] {
  if (!Array.isArray(security)) return [];
  return security.filter(isObject).map((requirement) => Object.keys(requirement));
}

/** `info.x-logo` (the ReDoc extension) as the MCP server icon; only https and data: URIs, which clients can load safely. */
function readLogo(logo: unknown): Pick<ApiData, "icons"> {
  const src = isObject(logo) && typeof logo.url === "string" ? logo.url.trim() : "";
  return /^(https:\/\/|data:image\/)/i.test(src) ? { icons: [{ src }] } : {};
}

function readSecuritySchemes(document: SpecObject, envPrefix: string, diagnostics: Diagnostic[]): SecuritySchemeData[] {
  const components = isObject(document.components) ? document.components : {};
  const schemes = isObject(components.securitySchemes) ? components.securitySchemes : {};
  const result: SecuritySchemeData[] = [];
  for (const [name, scheme] of Object.entries(schemes)) {
    const pointer = pointerOf("components", "securitySchemes", name);
    if (!isObject(scheme)) continue;
    const type = String(scheme.type ?? "").toLowerCase();
    if (type === "apikey" && typeof scheme.name === "string" && ["header", "query", "cookie"].includes(String(scheme.in))) {
      result.push({ name, kind: "apiKey", in: scheme.in as "header" | "query" | "cookie", parameterName: scheme.name, env: envName(envPrefix, name) });
    } else if (type === "http" && String(scheme.scheme).toLowerCase() === "basic") {
      result.push({ name, kind: "basic", usernameEnv: envName(envPrefix, name, "username"), passwordEnv: envName(envPrefix, name, "password") });
    } else if ((type === "http" && String(scheme.scheme).toLowerCase() === "bearer") || type === "oauth2" || type === "openidconnect") {
      const flow = type === "oauth2" ? clientCredentialsFlow(scheme.flows, envPrefix, name) : undefined;
      result.push({ name, kind: "bearer", env: envName(envPrefix, name, "token"), ...(flow && { clientCredentials: flow }) });
    } else {
      diagnostics.push({ pointer, severity: "warning", message: `security scheme type "${String(scheme.type)}${scheme.scheme ? " " + String(scheme.scheme) : ""}" is not supported, so calls needing it are sent without it`, fix: "use apiKey, http basic/bearer, oauth2 or openIdConnect, or add the credential in src/hooks.ts" });
    }
  }
  return result;
}

function readBaseUrl(document: SpecObject, location: string, envPrefix: string, diagnostics: Diagnostic[]): string {
  const servers = Array.isArray(document.servers) ? document.servers : [];
  const server = servers[0];
  const env = `${envPrefix}_BASE_URL`;
  if (!isObject(server) || typeof server.url !== "string") {
    diagnostics.push({ pointer: "#/servers", severity: "warning", message: "no server URL is declared", fix: `set ${env} when running the server, or add servers[0].url` });
    return "";
  }
  let url = server.url;
  const variables = isObject(server.variables) ? server.variables : {};
  url = url.replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const variable = variables[name];
    return isObject(variable) && variable.default !== undefined ? String(variable.default) : whole;
  });
  if (/\{[^}]+\}/.test(url)) {
    diagnostics.push({ pointer: "#/servers/0/url", severity: "warning", message: `server URL ${url} has variables without defaults`, fix: `set ${env} to the concrete URL` });
  }
  if (!/^https?:\/\//i.test(url)) {
    if (/^https?:/i.test(location)) return new URL(url, location).href.replace(/\/$/, "");
    diagnostics.push({ pointer: "#/servers/0/url", severity: "warning", message: `server URL "${url}" is relative`, fix: `set ${env} to the API's absolute base URL when running the server` });
  }
  return url.replace(/\/$/, "");
}
