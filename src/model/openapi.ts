/**
 * Stage 4 — model (OpenAPI): one tool per operation of a dereferenced
 * OpenAPI 3.1 document. Each spec object gets one small transform.
 */
import { hasLazySchema } from "./lazy-schema.js";
import type { DereferencedSpec } from "../dereference/index.js";
import { childPointer, pointerOf } from "../diagnostics.js";
import { isObject, type SpecObject } from "../normalise/index.js";
import type {
  ApiModel,
  CredentialParameterNote,
  Diagnostic,
  JsonSchema,
  OperationBinding,
  ParameterBinding,
  SecuritySchemeData,
  ToolAnnotations,
  ToolModel,
} from "./ir.js";
import { argName, assignUniqueNames, baseToolName, uniqueKey } from "./names.js";
import { RESERVED_TOOL_NAMES } from "../../templates/server/src/runtime/call/types.js";
import { SchemaMemo, type SchemaContext } from "./schema.js";
import { withoutRepeats } from "./schema-repeats.js";
import { describeOperation, htmlToMarkdown } from "./spec-cleanup.js";
import { parameterKey, parsePathKey, planDiscriminators, type PathKey } from "./fragments.js";
import { planCredentials, warnAboutSigning } from "./credentials.js";
import {
  bindingFor,
  collectParameters,
  declaredAccept,
  parameterSchema,
  warnIfAuthorizationUncovered,
  warnIfUnserialisable,
  type RawParameter,
} from "./parameters.js";
import { bodyAllowed, buildBody } from "./request-body.js";
import { readSecurity } from "./api-info.js";
import { mergeOverrides, readMcpExtension, type McpOverride } from "./overrides.js";
import { openApiPrelude, preludeSharedObjects, type ModelOptions, type OpenApiPrelude } from "./prelude.js";

export { apiIdentity, openApiPrelude } from "./prelude.js";
export type { ModelOptions, OpenApiPrelude } from "./prelude.js";
import { responseSchemaOf, successResponse } from "./responses.js";
import { notifyDraft } from "./draft-listener.js";

/** `info` and `read_response` are the generated server's own tools: an API tool with such a base name gets `_op`. */
export function unreservedName(base: string): string {
  return RESERVED_TOOL_NAMES.includes(base) ? `${base}_op` : base;
}

export const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];
type ParameterLocation = ParameterBinding["in"];

export function buildOpenApiModel(spec: DereferencedSpec, options: ModelOptions = {}): ApiModel {
  const prelude = openApiPrelude(spec.document, spec.location, options);
  const paths = isObject(spec.document.paths) ? spec.document.paths : {};
  const steps = walkOperations(paths, (path, method, pathItem, operation, pathOverride) =>
    modelOperation(prelude, path, method, pathItem, operation, pathOverride),
  );
  return assembleOpenApiModel(prelude, steps);
}

/** One operation's contribution to the model; plain data (the incremental cache stores it). */
export interface OperationOutcome {
  /** Absent when `x-mcp` hides the operation or it was skipped (see `diagnostics`). */
  draft?: ToolDraft;
  diagnostics: Diagnostic[];
  /** Declared parameters found to be credentials, in the order found. */
  credentialNotes: CredentialParameterNote[];
  /** How many security schemes this operation added to the API's (a Google-style `key`, see credentials.ts). */
  addedSchemes: number;
  /** AWS signing headers this operation left out of its input, by the `Authorization` scheme they belong to. */
  signing?: Array<{ scheme: string; headers: string[] }>;
}

/** A step of the walk over `paths`: a path item's own `x-mcp` diagnostics, or one operation's outcome. */
export type ModelStep = { pathDiagnostics: Diagnostic[] } | { outcome: OperationOutcome };

/** Visits every operation in document order, reading each path item's `x-mcp` on the way. */
export function walkOperations(
  paths: SpecObject,
  visit: (
    path: string,
    method: HttpMethod,
    pathItem: SpecObject,
    operation: SpecObject,
    pathOverride: McpOverride,
  ) => OperationOutcome,
): ModelStep[] {
  const steps: ModelStep[] = [];
  for (const [path, pathItem] of Object.entries(paths)) {
    if (!isObject(pathItem)) continue;
    const pathDiagnostics: Diagnostic[] = [];
    const pathOverride = readMcpExtension(
      pathItem["x-mcp"],
      childPointer(pointerOf("paths", path), "x-mcp"),
      pathDiagnostics,
    );
    if (pathDiagnostics.length > 0) steps.push({ pathDiagnostics });
    for (const method of HTTP_METHODS) {
      const operation = pathItem[method];
      if (!isObject(operation)) continue;
      const outcome = visit(path, method, pathItem, operation, pathOverride);
      notifyDraft(outcome.draft);
      steps.push({ outcome });
    }
  }
  return steps;
}

export function modelOperation(
  prelude: OpenApiPrelude,
  path: string,
  method: HttpMethod,
  pathItem: SpecObject,
  operation: SpecObject,
  pathOverride: McpOverride,
): OperationOutcome {
  const schemes = prelude.api.securitySchemes;
  const schemesBefore = schemes.length;
  const context: OperationContext = {
    diagnostics: [],
    inputDepth: prelude.inputDepth,
    outputDepth: prelude.outputDepth,
    outputSchemaChars: prelude.outputSchemaChars,
    defaultSecurity: prelude.defaultSecurity,
    knownSchemes: new Set(prelude.knownSchemes),
    schemes,
    envPrefix: prelude.api.envPrefix,
    credentialParameters: new Map<string, CredentialParameterNote>(),
    signing: new Map<string, Set<string>>(),
    // One memo per model run: the prelude is made once per run, and the incremental path (src/cache) passes it too.
    schemaMemo: SchemaMemo.of(prelude, preludeSharedObjects(prelude)),
  };
  const outcome = (draft?: ToolDraft): OperationOutcome => {
    const result = (draft ? { draft } : {}) as OperationOutcome;
    result.diagnostics = context.diagnostics;
    result.credentialNotes = [...context.credentialParameters.values()];
    result.addedSchemes = schemes.length - schemesBefore;
    if (context.signing.size > 0)
      result.signing = [...context.signing].map(([scheme, headers]) => ({ scheme, headers: [...headers] }));
    return result;
  };
  const pointer = pointerOf("paths", path, method);
  const override = mergeOverrides(
    prelude.rootOverride,
    pathOverride,
    readMcpExtension(operation["x-mcp"], childPointer(pointer, "x-mcp"), context.diagnostics),
  );
  if (override.hidden) return outcome();
  try {
    return outcome(applyOverride(buildOperationTool(path, method, pathItem, operation, pointer, context), override));
  } catch (error) {
    context.diagnostics.push({
      pointer,
      severity: "error",
      message: `operation skipped: ${(error as Error).message}`,
      fix: "fix the operation's definition",
    });
    return outcome();
  }
}

/** The model from the prelude and the walk's steps: diagnostics in document order, tool names made unique. */
export function assembleOpenApiModel(prelude: OpenApiPrelude, steps: ModelStep[]): ApiModel {
  const diagnostics = [...prelude.diagnostics];
  const credentialParameters = new Map<string, CredentialParameterNote>();
  const signing = new Map<string, Set<string>>();
  const drafts: ToolDraft[] = [];
  for (const step of steps) {
    if ("pathDiagnostics" in step) {
      diagnostics.push(...step.pathDiagnostics);
      continue;
    }
    const { draft, diagnostics: found, credentialNotes } = step.outcome;
    diagnostics.push(...found);
    for (const note of credentialNotes) credentialParameters.set(`${note.in}:${note.name}:${note.scheme}`, note);
    for (const { scheme, headers } of step.outcome.signing ?? [])
      for (const header of headers) signing.set(scheme, (signing.get(scheme) ?? new Set<string>()).add(header));
    if (draft) drafts.push(draft);
  }
  const names = assignUniqueNames(
    drafts.map((draft) => ({
      base: draft.baseName,
      identity: draft.identity,
      explicit: draft.explicitName === true || draft.operationId !== undefined,
    })),
  );
  const tools = drafts.map((draft, index) => toolOf(draft, names[index]!));
  warnAboutSigning(signing, diagnostics);
  const notes = [...credentialParameters.values()];
  return {
    kind: "openapi",
    api: prelude.api,
    tools,
    diagnostics,
    ...(notes.length > 0 ? { credentialParameters: notes } : {}),
  };
}

/** The tool a draft makes under its unique name; a cached draft (read for this model alone) becomes it in place. */
function toolOf(draft: ToolDraft, name: string): ToolModel {
  if (hasLazySchema(draft)) {
    // Its schemas stay text (a spread would parse them); the others keep their order and `name` comes last, as in a copy.
    const tool = draft as Partial<ToolDraft>;
    delete tool.baseName;
    delete tool.identity;
    delete tool.explicitName;
    return Object.assign(tool, { name }) as ToolModel;
  }
  const { baseName: _baseName, identity: _identity, explicitName: _explicit, ...rest } = draft;
  return { ...rest, name };
}

/** A tool before names are made unique across the API. */
export type ToolDraft = Omit<ToolModel, "name"> & { baseName: string; identity: string; explicitName?: boolean };

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
  /** AWS signing headers left out of tool input, by the `Authorization` scheme they belong to. */
  signing: Map<string, Set<string>>;
  schemaMemo: SchemaMemo;
}

function buildOperationTool(
  path: string,
  method: HttpMethod,
  pathItem: SpecObject,
  operation: SpecObject,
  pointer: string,
  context: OperationContext,
): ToolDraft {
  const operationId =
    typeof operation.operationId === "string" && operation.operationId.trim()
      ? operation.operationId.trim()
      : undefined;
  const inputContext: SchemaContext = {
    direction: "input",
    maxDepth: context.inputDepth,
    diagnostics: context.diagnostics,
    memo: context.schemaMemo,
  };
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
  // Reached once (see `SchemaContext.once`): so are its own parameters, body and response, unless shared.
  const once = context.schemaMemo.unsharedHolders(pathItem, operation);
  for (const { parameter, pointer: parameterPointer, own } of parameters) {
    const shared = (locationsByName.get(parameter.name)?.size ?? 0) > 1;
    const arg = uniqueKey(
      argName(shared && parameter.in !== "path" ? `${parameter.in}_${parameter.name}` : parameter.name),
      properties,
    );
    const { schema, json } = parameterSchema(parameter, parameterPointer, inputContext, own && once);
    if (!json) warnIfUnserialisable(parameter, schema, parameterPointer, context.diagnostics);
    properties[arg] = schema;
    const isRequired =
      parameter.in === "path" || parameter.required === true || plan.required.has(parameterKey(parameter));
    if (isRequired) required.push(arg);
    const binding = bindingFor(parameter, arg, isRequired, json);
    if (parameter.in === "path" && pathKey.greedy.includes(parameter.name)) binding.greedy = true;
    parameterBindings.push(binding);
  }

  const body = bodyAllowed(method, operation, pointer, context.diagnostics)
    ? buildBody(operation, pointer, properties, required, inputContext, once)
    : undefined;
  const inputSchema = withoutRepeats({ type: "object", properties, additionalProperties: false });
  if (required.length > 0) inputSchema.required = required;

  const success = successResponse(operation, pointer);
  const outputLimits = { maxDepth: context.outputDepth, maxChars: context.outputSchemaChars, operationOnce: once };
  const responseSchema = success ? responseSchemaOf(success, inputContext, outputLimits) : undefined;

  const security = operation.security !== undefined ? readSecurity(operation.security) : context.defaultSecurity;
  if (security.length === 0) warnIfAuthorizationUncovered(pathItem, operation, pointer, context.diagnostics);
  for (const alternative of security) {
    for (const scheme of alternative) {
      if (!context.knownSchemes.has(scheme)) {
        context.diagnostics.push({
          pointer: childPointer(pointer, "security"),
          severity: "warning",
          message: `security scheme "${scheme}" is not declared in components.securitySchemes`,
          fix: "declare it, or remove it from the requirement",
        });
      }
    }
  }

  const fixed = [...plan.fixed, ...declaredAccept(pathItem, operation)];
  // Optional members assigned in place, in their order: a conditional spread per member cost a runtime call each.
  const binding = { method, path: pathKey.template, parameters: parameterBindings } as OperationBinding;
  if (body) binding.body = body;
  binding.security = security;
  if (fixed.length > 0) binding.fixed = fixed;
  if (plan.credentialParameters.length > 0) binding.credentialParameters = plan.credentialParameters;
  if (success?.mediaType) binding.responseMediaType = success.mediaType;
  const tags = Array.isArray(operation.tags)
    ? operation.tags.filter((tag): tag is string => typeof tag === "string")
    : [];
  const summary = typeof operation.summary === "string" ? htmlToMarkdown(operation.summary.trim()) : "";
  const draft = {
    baseName: unreservedName(baseToolName(operationId, method, path)),
    identity: `${method} ${path}`,
  } as ToolDraft;
  if (operationId) draft.operationId = operationId;
  if (summary) draft.title = summary.slice(0, 200);
  draft.description = describeOperation(method, path, summary, operation);
  draft.category = tags[0] ?? "default";
  draft.tags = tags;
  draft.pointer = pointer;
  draft.annotations = annotationsFor(method, summary);
  draft.inputSchema = inputSchema;
  if (responseSchema) draft.responseSchema = responseSchema;
  draft.operation = binding;
  draft.openapiLinks = success?.links ?? [];
  draft.responseHeaders = success?.headers ?? [];
  return draft;
}

interface ParameterPlan {
  /** `in:name` keys of declared parameters that are not tool arguments: pinned by the path key fragment, or credentials. */
  excluded: Set<string>;
  required: Set<string>;
  fixed: NonNullable<OperationBinding["fixed"]>;
  credentialParameters: NonNullable<OperationBinding["credentialParameters"]>;
}

/** What the path key fragment and the security schemes take out of the agent's hands (see fragments.ts, credentials.ts). */
function planParameters(
  pathKey: PathKey,
  parameters: Array<{ parameter: RawParameter }>,
  context: OperationContext,
): ParameterPlan {
  const declared = parameters.map(({ parameter }) => parameter);
  const discriminators = planDiscriminators(pathKey.tokens, declared);
  const credentials = planCredentials(declared, context.schemes, context.envPrefix);
  for (const note of credentials.covered)
    context.credentialParameters.set(`${note.in}:${note.name}:${note.scheme}`, note);
  if (credentials.signing) {
    const headers = context.signing.get(credentials.signing.scheme) ?? new Set<string>();
    for (const header of credentials.signing.headers) headers.add(header);
    context.signing.set(credentials.signing.scheme, headers);
  }
  return {
    excluded: new Set([...discriminators.pinned, ...credentials.hidden]),
    required: discriminators.required,
    fixed: discriminators.fixed,
    credentialParameters: credentials.credentialParameters,
  };
}

function applyOverride(draft: ToolDraft, override: McpOverride): ToolDraft {
  if (override.name) {
    draft.baseName = unreservedName(
      /^[a-zA-Z0-9_-]{1,64}$/.test(override.name) ? override.name : baseToolName(override.name, "", ""),
    );
    draft.explicitName = true;
  }
  if (override.title) {
    draft.title = override.title;
    draft.annotations = { ...draft.annotations, title: override.title };
  }
  if (override.description) draft.description = override.description;
  return draft;
}

export function annotationsFor(method: string, title?: string): ToolAnnotations {
  const readOnly = method === "get" || method === "head" || method === "options";
  const annotations = (title ? { title: title.slice(0, 200) } : {}) as ToolAnnotations;
  annotations.readOnlyHint = readOnly;
  annotations.destructiveHint = method === "delete";
  annotations.idempotentHint = readOnly || method === "put" || method === "delete";
  annotations.openWorldHint = true;
  return annotations;
}
