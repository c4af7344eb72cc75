/**
 * The wire contract: what a generated server sends upstream is what the
 * ORIGINAL spec's operation defines. For one spec: build the tools data the
 * generator writes (data/tools.json) for a sample of up to 20 operations, serve
 * it with the runtime's own MCP server factory, call each tool through a real
 * MCP client (in-memory transport) with arguments we generate ourselves, capture
 * the request at a loopback upstream, and let an OpenAPI request validator we
 * did not write (openapi-backend) judge it against the original operation.
 *
 * The runtime is transpiled once per test process and reused for every spec:
 * it is the same code in every generated project, only the data file differs.
 */
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { generateSync } from "json-schema-faker";
import OpenAPIBackend from "openapi-backend";
import { parse as parseQuery } from "qs";
import { toToolData } from "../../src/emit/index.js";
import { addGuidance } from "../../src/guidance/index.js";
import type { ApiModel, Diagnostic, ToolData } from "../../src/model/ir.js";
import { compileInputValidators } from "../../src/model/validators.js";
import { createAjv } from "../../templates/server/src/runtime/shared/ajv.js";
import { createServer } from "../../templates/server/src/runtime/mcp/server.js";
import type { SecuritySchemeData, ToolsFile } from "../../templates/server/src/runtime/shared/tool-data.js";
import { modelFrom } from "../helpers/pipeline.js";
import { createServer as createHttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { RecordedRequest } from "../helpers/upstream.js";

export const TOOLS_PER_SPEC = 20;
/** Not the server's example seed (1): the arguments are ours, not the server's own examples. */
const ARGUMENT_SEED = 7331;
const ajv = createAjv();

type Args = Record<string, unknown>;
type SpecDocument = { paths?: Record<string, Record<string, unknown>>; servers?: Array<{ url?: string }> } & Record<
  string,
  unknown
>;

export interface CallReport {
  tool: string;
  operation: string;
  /** Why the call is not judged: no valid arguments could be built, or the server refused before sending. */
  skipped?: string;
  /** Problems found on the wire; empty when the request is exactly right. */
  problems: string[];
  /** Argument values (leaves) the caller gave that are nowhere in the request. */
  missing: string[];
  /** A located generation warning explaining why this operation cannot be called faithfully, if any. */
  excusedBy?: string;
}

export interface SpecReport {
  spec: string;
  tools: number;
  calls: CallReport[];
  corrections: { sent: number; missing: number };
}

/** Deterministic sample: evenly spaced over the spec's operations, plus any tool named in `always`. */
export function sampleTools<T extends { name: string }>(
  tools: T[],
  limit = TOOLS_PER_SPEC,
  always: string[] = [],
): T[] {
  const chosen = new Set(tools.filter((tool) => always.includes(tool.name)));
  const stride = Math.max(1, tools.length / limit);
  for (let index = 0; chosen.size < Math.min(limit, tools.length) && index < tools.length; index += stride)
    chosen.add(tools[Math.floor(index)]!);
  return [...chosen];
}

/** The tools data the generator would write for this sample of the model's tools. */
export function toolsFileFor(
  model: ApiModel,
  sample: ApiModel["tools"],
): { file: ToolsFile; diagnostics: Diagnostic[] } {
  const subset: ApiModel = { ...model, tools: sample };
  const guided = addGuidance(subset, { seed: 1, validators: compileInputValidators(subset) });
  return {
    file: { api: { ...guided.api, toolMode: "per-operation" }, tools: guided.tools.map(toToolData) },
    diagnostics: guided.diagnostics,
  };
}

/** A valid argument object from our own generator (json-schema-faker, another seed), checked by Ajv before use. */
export function synthesiseArguments(tool: ToolData): Args | undefined {
  const validate = ajv.compile(tool.inputSchema);
  const shaped = shape(structuredClone(tool.inputSchema), 0);
  // A path segment cannot be empty: the server refuses "" there, as it should.
  for (const parameter of tool.operation?.parameters ?? []) {
    const property = (shaped.properties as Record<string, JsonObject> | undefined)?.[parameter.arg];
    if (parameter.in === "path" && property && property.minLength === undefined) property.minLength = 1;
  }
  for (const [offset, optionals] of [
    [0, true],
    [1, true],
    [2, false],
    [3, false],
  ] as const) {
    try {
      const value = generateSync(
        structuredClone(shaped) as never,
        {
          seed: ARGUMENT_SEED + offset,
          alwaysFakeOptionals: optionals,
          optionalsProbability: optionals ? 1 : 0,
          fixedProbabilities: true,
          useExamplesValue: false,
          useDefaultValue: false,
          maxDepth: 6,
          maxDefaultItems: 2,
          failOnInvalidTypes: false,
          defaultInvalidTypeProduct: null,
        } as never,
      );
      if (value && typeof value === "object" && !Array.isArray(value) && validate(value)) return value as Args;
    } catch {
      // try the next seed
    }
  }
  return undefined;
}

type JsonObject = Record<string, unknown>;

/**
 * Small, non-empty values where the schema allows them: short strings and
 * arrays keep requests readable (and under qs's 20-item array limit in the
 * judge), and an empty object or array has no wire form in a query or form body.
 */
function isStub(schema: JsonObject): boolean {
  return (
    typeof schema.description === "string" &&
    /contents not constrained here/.test(schema.description) &&
    Object.keys(schema).every((key) => key === "description" || key === "type")
  );
}

function shape(schema: JsonObject, depth: number): JsonObject {
  if (depth > 40) return schema;
  if (typeof schema.maxItems !== "number" || schema.maxItems > 3)
    if (((schema.minItems as number | undefined) ?? 0) <= 3 && (schema.type === "array" || schema.items))
      schema.maxItems = 3;
  if ((schema.type === "array" || schema.items) && schema.minItems === undefined && (schema.maxItems as number) >= 1)
    schema.minItems = 1;
  if (
    (typeof schema.maxLength !== "number" || schema.maxLength > 24) &&
    ((schema.minLength as number | undefined) ?? 0) <= 24 &&
    schema.pattern === undefined &&
    schema.format === undefined &&
    schema.enum === undefined &&
    schema.type === "string"
  )
    schema.maxLength = 24;
  // json-schema-faker draws from its own default range when a number has only one bound (collegefootballdata's
  // `year` ≥ 1936 came out as 1025); the other bound keeps its draw inside the schema.
  if (schema.type === "integer" || schema.type === "number") {
    const hasMax = schema.maximum !== undefined || schema.exclusiveMaximum !== undefined;
    const hasMin = schema.minimum !== undefined || schema.exclusiveMinimum !== undefined;
    if (typeof schema.minimum === "number" && !hasMax) schema.maximum = schema.minimum + 1000;
    if (typeof schema.maximum === "number" && !hasMin) schema.minimum = schema.maximum - 1000;
  }
  // Past the tool schema's depth limit (or in a recursion) a node is unconstrained; an optional one is left out,
  // as any value there would be a guess the spec may not allow.
  if (schema.properties && typeof schema.properties === "object") {
    const required = new Set((schema.required as string[] | undefined) ?? []);
    for (const [name, property] of Object.entries(schema.properties as Record<string, JsonObject>)) {
      if (!required.has(name) && isStub(property)) delete (schema.properties as JsonObject)[name];
    }
  }
  const isMap =
    (schema.type === "object" || schema.additionalProperties !== undefined) &&
    (schema.properties === undefined || Object.keys(schema.properties as object).length === 0);
  if (isMap && schema.additionalProperties !== false && schema.minProperties === undefined) schema.minProperties = 1;
  const sub = (value: unknown) => {
    if (value && typeof value === "object" && !Array.isArray(value)) shape(value as JsonObject, depth + 1);
  };
  for (const keyword of ["properties", "patternProperties", "$defs", "definitions"])
    Object.values((schema[keyword] as JsonObject | undefined) ?? {}).forEach(sub);
  for (const keyword of ["items", "additionalProperties", "not", "if", "then", "else", "contains"])
    sub(schema[keyword]);
  for (const keyword of ["allOf", "anyOf", "oneOf", "prefixItems"])
    if (Array.isArray(schema[keyword])) (schema[keyword] as unknown[]).forEach(sub);
  return schema;
}

/** Credential values we configure: recognisable, so the judge can count them on the wire. */
export function credentialEnv(schemes: SecuritySchemeData[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const scheme of schemes) {
    if (scheme.kind === "basic") {
      env[scheme.usernameEnv] = `cfg-${scheme.usernameEnv}-end`;
      env[scheme.passwordEnv] = `cfg-${scheme.passwordEnv}-end`;
    } else env[scheme.env] = `cfg-${scheme.env}-end`; // `-end`: no value is a prefix of another (`X_KEY` vs `X_KEY_HEADER`)
  }
  return env;
}

export async function connect(file: ToolsFile, env: Record<string, string>): Promise<Client> {
  const server = createServer(file, { env, confirmDestructive: false, toolMode: "per-operation", log: () => {} });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: "wire-contract", version: "1.0.0" });
  await client.connect(clientTransport);
  await client.listTools();
  return client;
}

export interface CaptureUpstream {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/**
 * Records every request and answers `200 {}`. Keep-alive outlives the pause
 * while the next spec is generated, so fetch never reuses a socket the server
 * is just closing (ECONNRESET).
 */
export async function startCaptureUpstream(): Promise<CaptureUpstream> {
  const requests: RecordedRequest[] = [];
  const server = createHttpServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? "/", "http://upstream");
    requests.push({
      method: req.method ?? "GET",
      path: url.pathname,
      query: url.searchParams,
      rawUrl: req.url ?? "/",
      headers: req.headers,
      body: Buffer.concat(chunks).toString("utf8"),
    });
    res.writeHead(200, { "content-type": "application/json" });
    res.end("{}");
  });
  server.keepAliveTimeout = 10 * 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Calls one tool and returns what reached the upstream (the client's own output checks do not matter here). */
export async function callAndCapture(
  client: Client,
  upstream: CaptureUpstream,
  name: string,
  args: Args,
): Promise<{ requests: RecordedRequest[]; result?: CallToolResult }> {
  upstream.requests.length = 0;
  let result: CallToolResult | undefined;
  try {
    result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  } catch {
    // Client.callTool checks structuredContent against the outputSchema; our canned `{}` reply may not match.
  }
  return { requests: [...upstream.requests], ...(result ? { result } : {}) };
}

// ---------------------------------------------------------------------------
// The judge

interface OriginalOperation {
  method: string;
  /** The spec's path key, fragment included. */
  key: string;
  operation: Record<string, unknown>;
}

export class Judge {
  private readonly backends = new Map<"strict" | "coercing", OpenAPIBackend>();
  private readonly ids = new Map<string, string>();
  private readonly document: SpecDocument;
  private readonly validatorDocument: SpecDocument;
  /** Patterns no JavaScript regex engine can run (AWS's Java `\p{Print}`): left out of judging, and counted. */
  readonly uncompilablePatterns: number;

  constructor(original: SpecDocument) {
    // Our own copy: unique operationIds so openapi-backend can key its validators.
    this.document = structuredClone(original);
    this.uncompilablePatterns = dropUncompilablePatterns(this.document);
    hoistEscapedRefs(this.document);
    for (const item of Object.values(this.document.paths ?? {})) inheritPathParameters(item, this.document);
    let counter = 0;
    for (const [key, item] of Object.entries(this.document.paths ?? {})) {
      for (const method of ["get", "put", "post", "delete", "options", "head", "patch", "trace"]) {
        const operation = item?.[method] as Record<string, unknown> | undefined;
        if (!operation || typeof operation !== "object") continue;
        const id = `wire_${counter++}`;
        operation.operationId = id;
        this.ids.set(`${method} ${key}`, id);
      }
    }
    // The harness's own checks (fragments naming `Accept`) still see the transport headers; the validator does not.
    this.validatorDocument = structuredClone(this.document);
    for (const item of Object.values(this.validatorDocument.paths ?? {}))
      dropTransportHeaders(item, this.validatorDocument);
  }

  /** Form and multipart bodies carry text: their values are coerced to the schema's types, as a server framework would. */
  private async backend(kind: "strict" | "coercing"): Promise<OpenAPIBackend> {
    let backend = this.backends.get(kind);
    if (!backend) {
      backend = new OpenAPIBackend({
        definition: structuredClone(this.validatorDocument) as never,
        quick: true,
        // The spec's trailing slash is part of its template; openapi-backend would strip it from the request only.
        ignoreTrailingSlashes: false,
        validate: true,
        ajvOpts: { strict: false, logger: false, ...(kind === "coercing" ? { coerceTypes: true } : {}) } as never,
      });
      await backend.init();
      // OpenAPI: a readOnly property listed in `required` is required in responses only; openapi-backend ignores that.
      dropReadOnlyRequired(backend.definition);
      toDraft7Keywords(backend.definition);
      this.backends.set(kind, backend);
    }
    return backend;
  }

  operationFor(tool: ToolData): OriginalOperation {
    const [, path, method] = /^#\/paths\/(.+)\/([a-z]+)$/.exec(tool.pointer) ?? [];
    const key = decodeURIComponent(path ?? "")
      .replace(/~1/g, "/")
      .replace(/~0/g, "~");
    const operation = (this.document.paths?.[key]?.[method ?? ""] ?? {}) as Record<string, unknown>;
    return { method: method ?? "", key, operation };
  }

  /** Everything wrong with `request` as a call of `original`. */
  async judge(
    original: OriginalOperation,
    request: RecordedRequest,
    basePath: string,
    tool?: ToolData,
  ): Promise<string[]> {
    const problems: string[] = [];
    const [beforeFragment = "/", afterFragment = ""] = original.key.split("#");
    // A literal query in the path key names fixed parameters just as a fragment does.
    const [template = "/", literalQuery = ""] = beforeFragment.split("?");
    const fragment = [literalQuery, afterFragment].filter(Boolean).join("&");
    if (request.method.toLowerCase() !== original.method)
      problems.push(`method ${request.method}, spec says ${original.method.toUpperCase()}`);
    const path = request.path.startsWith(basePath) ? request.path.slice(basePath.length) || "/" : request.path;
    if (!new RegExp(pathPattern(template)).test(path))
      problems.push(`path ${path} does not match the template ${template}`);
    if (request.rawUrl.includes("#")) problems.push("the request line carries a fragment");

    // The fragment's discriminators: checked here, then taken out of what the validator sees.
    const query = new URLSearchParams(request.query);
    for (const token of fragment
      .split("&")
      .filter((part) => part && !part.endsWith("!") && part !== "disambiguation_dummy")) {
      const [name = "", value] = token.split("=");
      const declared = declaredParameter(parametersOf(original, this.document), name);
      if (declared?.in === "header") {
        const sent = request.headers[name.toLowerCase()];
        if (sent === undefined || (value !== undefined && sent !== value))
          problems.push(
            `fragment #${token}: header ${name} is ${sent === undefined ? "missing" : `"${String(sent)}"`}`,
          );
        continue;
      }
      if (!query.has(name)) problems.push(`fragment #${token}: query ${name} is missing`);
      else if (value !== undefined && query.get(name) !== value)
        problems.push(`fragment #${token}: query ${name} is "${query.get(name)}"`);
      if (!declared) query.delete(name);
    }

    // Credentials are the security schemes' business, which openapi-backend's request validation does not model.
    for (const scheme of Object.values(
      ((this.document.components as { securitySchemes?: object } | undefined)?.securitySchemes ?? {}) as Record<
        string,
        { type?: string; in?: string; name?: string }
      >,
    )) {
      if (
        scheme.type === "apiKey" &&
        scheme.in === "query" &&
        scheme.name &&
        !declaredParameter(parametersOf(original, this.document), scheme.name)
      )
        query.delete(scheme.name);
    }
    const contentType = String(request.headers["content-type"] ?? "")
      .split(";")[0]!
      .trim()
      .toLowerCase();
    const body = await parseBody(request, contentType);
    const declaredTypes = Object.keys(
      ((original.operation.requestBody as { content?: object } | undefined)?.content ?? {}) as object,
    );
    if (
      request.body !== "" &&
      declaredTypes.length > 0 &&
      !declaredTypes.some((type) => mediaMatches(type, contentType))
    ) {
      problems.push(`body sent as ${contentType || "no content type"}, spec declares ${declaredTypes.join(", ")}`);
    }
    const form = /x-www-form-urlencoded|multipart/.test(contentType);
    const backend = await this.backend(form ? "coercing" : "strict");
    const routed = backend.router.getOperation(this.ids.get(`${original.method} ${original.key}`) ?? "");
    if (!routed) return [...problems, `openapi-backend has no operation for ${original.method} ${original.key}`];
    // openapi-backend does not split `simple`-style header arrays (`a,b`); the style says they are comma-separated.
    const headers = { ...(request.headers as Record<string, string>) };
    for (const parameter of parametersOf(original, this.document) as Array<{
      in?: string;
      name?: string;
      schema?: { type?: string };
    }>) {
      const name = parameter.name?.toLowerCase() ?? "";
      if (parameter.in === "header" && parameter.schema?.type === "array" && typeof headers[name] === "string")
        headers[name] = headers[name]!.split(",") as never;
    }
    const result = backend.validateRequest(
      {
        method: request.method,
        path,
        query: queryObject(query, original, this.document),
        headers,
        // openapi-backend JSON-parses a string body itself: a JSON scalar (`"text"`) goes in as the text on the wire.
        ...(body !== undefined ? { body: isJson(contentType) && typeof body !== "object" ? request.body : body } : {}),
      } as never,
      { ...routed, path: template } as never,
    );
    const shared = sharedSegments(template);
    if (shared) problems.push(...checkSharedSegments(template, path, parametersOf(original, this.document)));
    for (const error of result.errors ?? [])
      if (shared && error.instancePath.startsWith("/path/")) continue;
      else if (!tool || !outsideServedSchema(tool, error.instancePath, error.keyword))
        problems.push(
          `openapi-backend: ${error.instancePath || "/"} ${error.message ?? error.keyword}${error.params && "additionalProperty" in error.params ? ` (${String(error.params.additionalProperty)})` : ""}`,
        );
    return problems;
  }
}

/** Whether a path segment holds two parameters (`{sha}.{diffType}`, `{pageName}{mediaTypeExtension}`). */
function sharedSegments(template: string): boolean {
  return template.split("/").some((segment) => (segment.match(/\{[^}]+\}/g) ?? []).length > 1);
}

/**
 * openapi-backend splits a path segment at its first parameter's greedy match, so
 * `{pageName}{mediaTypeExtension}` never finds `.json`; for such templates the
 * harness splits the path itself (a parameter with an enum matches only its
 * values, others as little as possible) and validates each value against its
 * schema, numbers and booleans read from their text as a server would.
 */
function checkSharedSegments(template: string, path: string, parameters: unknown[]): string[] {
  const declared = parameters as Array<{ in?: string; name?: string; schema?: Record<string, unknown> }>;
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const names: string[] = [];
  const pattern = template.split(/(\{[^}]+\})/).map((part) => {
    const name = /^\{([^}]+)\}$/.exec(part)?.[1];
    if (name === undefined) return escape(part);
    names.push(name);
    const values = declared.find((parameter) => parameter.in === "path" && parameter.name === name)?.schema?.enum;
    return Array.isArray(values)
      ? `(${values.map((value) => escape(encodeURIComponent(String(value)))).join("|")})`
      : "([^/]+?)";
  });
  const match = new RegExp(`^${pattern.join("")}/?$`).exec(path);
  if (!match) return [`path ${path} does not split into the parameters of ${template}`];
  const problems: string[] = [];
  names.forEach((name, index) => {
    const schema = declared.find((parameter) => parameter.in === "path" && parameter.name === name)?.schema ?? {};
    const text = decodeURIComponent(match[index + 1]!);
    const value =
      schema.type === "integer" || schema.type === "number"
        ? Number(text)
        : schema.type === "boolean"
          ? text === "true"
            ? true
            : text === "false"
              ? false
              : text
          : text;
    const validate = ajv.compile(schema);
    if (!validate(value)) problems.push(`path ${name} "${text}": ${ajv.errorsText(validate.errors)}`);
  });
  return problems;
}

/**
 * The query as openapi-backend expects it: bracketed keys nested as qs does
 * (deepObject, `expand[0]`), except keys that are a declared parameter's whole
 * name (Amadeus's `page[limit]`), which stay flat; repeated keys become arrays.
 */
function queryObject(
  query: URLSearchParams,
  original: OriginalOperation,
  document: SpecDocument,
): Record<string, unknown> {
  const declared = new Set(
    (parametersOf(original, document) as Array<{ in?: string; name?: string }>)
      .filter((parameter) => parameter.in === "query" && parameter.name)
      .map((parameter) => parameter.name!),
  );
  const flat: Record<string, unknown> = {};
  const nested = new URLSearchParams();
  for (const [key, value] of query) {
    if (declared.has(key)) flat[key] = key in flat ? [flat[key], value].flat() : value;
    else nested.append(key, value);
  }
  return { ...(parseQuery(nested.toString(), { depth: 20, arrayLimit: 100 }) as Record<string, unknown>), ...flat };
}

/**
 * OpenAPI 3.0 writes `exclusiveMaximum: true` beside `maximum`; openapi-backend's
 * Ajv reads draft-07, where it is a number. `nullable` without `type` means nothing
 * in 3.0 either, and Ajv refuses it. Same meaning, in the validator's dialect.
 */
function toDraft7Keywords(node: unknown, seen = new Set<unknown>()): void {
  if (!node || typeof node !== "object" || seen.has(node)) return;
  seen.add(node);
  const object = node as Record<string, unknown>;
  for (const [flag, bound] of [
    ["exclusiveMaximum", "maximum"],
    ["exclusiveMinimum", "minimum"],
  ] as const) {
    if (typeof object[flag] !== "boolean") continue;
    if (object[flag] === true && typeof object[bound] === "number") {
      object[flag] = object[bound];
      delete object[bound];
    } else delete object[flag];
  }
  if (object.nullable !== undefined && object.type === undefined) delete object.nullable;
  for (const value of Object.values(object)) toDraft7Keywords(value, seen);
}

function dropReadOnlyRequired(node: unknown, seen = new Set<unknown>()): void {
  if (!node || typeof node !== "object" || seen.has(node)) return;
  seen.add(node);
  const object = node as Record<string, unknown>;
  if (Array.isArray(object.required) && object.properties && typeof object.properties === "object") {
    const properties = object.properties as Record<string, { readOnly?: boolean } | undefined>;
    object.required = (object.required as string[]).filter((name) => properties[name]?.readOnly !== true);
  }
  for (const value of Object.values(object)) dropReadOnlyRequired(value, seen);
}

function dropUncompilablePatterns(node: unknown, seen = new Set<unknown>()): number {
  if (!node || typeof node !== "object" || seen.has(node)) return 0;
  seen.add(node);
  let dropped = 0;
  const object = node as Record<string, unknown>;
  if (typeof object.pattern === "string") {
    try {
      new RegExp(object.pattern, "u");
    } catch {
      delete object.pattern;
      dropped++;
    }
  }
  for (const value of Object.values(object)) dropped += dropUncompilablePatterns(value, seen);
  return dropped;
}

function pathPattern(template: string): string {
  const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return `^${template
    .split(/\{[^}]+\}/)
    .map(literal)
    .join("[^/]+")}/?$`;
}

/** A local `$ref` followed to its target (JSON pointer escapes and percent-encoding undone), or the node itself. */
function resolveRef(node: unknown, document: SpecDocument): unknown {
  let current = node as { $ref?: string } | undefined;
  for (
    let hops = 0;
    current && typeof current.$ref === "string" && current.$ref.startsWith("#/") && hops < 20;
    hops++
  ) {
    current = current.$ref
      .slice(2)
      .split("/")
      .reduce<unknown>(
        (at, segment) => (resolveRef(at, document) as Record<string, unknown> | undefined)?.[unescapeSegment(segment)],
        document,
      ) as { $ref?: string } | undefined;
  }
  return current;
}

function unescapeSegment(segment: string): string {
  let text = segment;
  try {
    text = decodeURIComponent(segment);
  } catch {
    // not percent-encoded
  }
  return text.replace(/~1/g, "/").replace(/~0/g, "~");
}

/**
 * openapi-backend's dereferencer (dereference-json-schema) reads a `$ref` as
 * plain `/`-separated keys: it does not undo `~1` or `%7B`, so a `$ref` into
 * `#/paths/~1register/...` (spacetraders, Ex Libris, Nexmo) breaks its set-up
 * and no operation is found. Such targets are given a plain address instead.
 */
function hoistEscapedRefs(document: SpecDocument): void {
  const hoisted: Record<string, unknown> = {};
  const addresses = new Map<string, string>();
  const visit = (node: unknown, seen: Set<unknown>): void => {
    if (!node || typeof node !== "object" || seen.has(node)) return;
    seen.add(node);
    const object = node as Record<string, unknown>;
    if (typeof object.$ref === "string" && object.$ref.startsWith("#/") && /[~%]/.test(object.$ref)) {
      let address = addresses.get(object.$ref);
      if (!address) {
        const target = resolveRef({ $ref: object.$ref }, document);
        if (target === undefined) return;
        address = `#/x-wire-refs/r${addresses.size}`;
        addresses.set(object.$ref, address);
        hoisted[`r${addresses.size - 1}`] = target;
      }
      object.$ref = address;
      return;
    }
    for (const value of Object.values(object)) visit(value, seen);
  };
  visit(document, new Set());
  if (addresses.size > 0) document["x-wire-refs"] = hoisted;
}

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

function parameterKeyOf(parameter: unknown, document: SpecDocument): string {
  const resolved = resolveRef(parameter, document) as { in?: string; name?: string } | undefined;
  return `${resolved?.in}:${resolved?.in === "header" ? resolved?.name?.toLowerCase() : resolved?.name}`;
}

/**
 * OpenAPI: an operation's parameter overrides the path item's one of the same
 * name and location (rawg.io: path-level `id` integer, operation-level `id`
 * string); openapi-backend validates both. The path item's parameters move down
 * into each operation that does not override them.
 */
function inheritPathParameters(item: Record<string, unknown> | undefined, document: SpecDocument): void {
  if (!item || typeof item !== "object") return;
  const shared = Array.isArray(item.parameters) ? (item.parameters as unknown[]) : [];
  for (const method of METHODS) {
    const operation = item[method] as { parameters?: unknown } | undefined;
    if (!operation || typeof operation !== "object") continue;
    const own = Array.isArray(operation.parameters) ? (operation.parameters as unknown[]) : [];
    const overridden = new Set(own.map((parameter) => parameterKeyOf(parameter, document)));
    // Copies: openapi-backend's dereferencer skips an object it has already met elsewhere, leaving a bare `$ref`.
    const inherited = shared
      .filter((parameter) => !overridden.has(parameterKeyOf(parameter, document)))
      .map((parameter) => structuredClone(parameter));
    operation.parameters = [...inherited, ...own];
  }
  delete item.parameters;
}

/** OpenAPI: header parameters named `Accept`, `Content-Type` or `Authorization` are ignored (climate.com requires a `Content-Type`). */
function dropTransportHeaders(item: Record<string, unknown> | undefined, document: SpecDocument): void {
  if (!item || typeof item !== "object") return;
  const ignored = new Set(["header:accept", "header:content-type", "header:authorization"]);
  for (const method of METHODS) {
    const operation = item[method] as { parameters?: unknown } | undefined;
    if (operation && typeof operation === "object" && Array.isArray(operation.parameters))
      operation.parameters = operation.parameters.filter(
        (parameter) => !ignored.has(parameterKeyOf(parameter, document)),
      );
  }
}

/** The operation's parameters and its path item's, local `$ref`s resolved (the judge's copy is not dereferenced). */
function parametersOf(original: OriginalOperation, document: SpecDocument): unknown[] {
  const resolve = (node: unknown) => resolveRef(node, document);
  const listed = [
    ...((document.paths?.[original.key]?.parameters as unknown[]) ?? []),
    ...((original.operation.parameters as unknown[]) ?? []),
  ];
  return listed.map(resolve).map((parameter) => {
    const schema = resolve((parameter as { schema?: unknown } | undefined)?.schema);
    return parameter && typeof parameter === "object" ? { ...parameter, ...(schema ? { schema } : {}) } : parameter;
  });
}

function declaredParameter(parameters: unknown[], name: string): { in: string } | undefined {
  const all = parameters as Array<{ name?: string; in?: string }>;
  return (all.find((parameter) => parameter.in === "query" && parameter.name === name) ??
    all.find((parameter) => parameter.in === "header" && parameter.name?.toLowerCase() === name.toLowerCase())) as
    { in: string } | undefined;
}

function mediaMatches(declared: string, sent: string): boolean {
  const [type = "", subtype = ""] = declared.split(";")[0]!.trim().toLowerCase().split("/");
  const [sentType = "", sentSubtype = ""] = sent.split("/");
  if (type === "*" || (type === sentType && (subtype === "*" || subtype === sentSubtype))) return true;
  // We say what we send when the spec only gives a wildcard.
  return false;
}

function isJson(contentType: string): boolean {
  return contentType === "application/json" || contentType.endsWith("+json");
}

async function parseBody(request: RecordedRequest, contentType: string): Promise<unknown> {
  if (request.body === "") return undefined;
  if (isJson(contentType)) {
    try {
      return JSON.parse(request.body);
    } catch {
      return request.body;
    }
  }
  if (contentType === "application/x-www-form-urlencoded")
    return parseQuery(request.body, { depth: 20, arrayLimit: 100 });
  if (contentType === "multipart/form-data") {
    const form = await new Response(request.body, {
      headers: { "content-type": String(request.headers["content-type"]) },
    }).formData();
    const value: Record<string, unknown> = {};
    for (const [key, item] of form) {
      const text = typeof item === "string" ? item : await item.text();
      let parsed: unknown = text;
      if (/^[[{]/.test(text)) {
        try {
          parsed = JSON.parse(text);
        } catch {
          // plain text
        }
      }
      value[key] = key in value ? [value[key], parsed].flat() : parsed;
    }
    return value;
  }
  return request.body;
}

// ---------------------------------------------------------------------------
// "No value the caller gave is missing"

/** Every scalar the caller passed, as text. */
export function leaves(value: unknown): string[] {
  if (value === null || value === undefined) return [];
  if (Array.isArray(value)) return value.flatMap(leaves);
  if (typeof value === "object") return Object.values(value as object).flatMap(leaves);
  const text = String(value);
  return text === "" ? [] : [text];
}

/** Decoded texts of everything on the wire: path, query, headers, body (and the body's own leaves when it parses). */
export async function wireTexts(request: RecordedRequest): Promise<string[]> {
  const decode = (text: string) => {
    try {
      return decodeURIComponent(text);
    } catch {
      return text;
    }
  };
  const texts = [
    decode(request.path),
    ...request.rawUrl.split(/[?&]/).map(decode),
    ...Object.values(request.headers).flat().map(String),
  ];
  if (request.body) {
    texts.push(request.body);
    const contentType = String(request.headers["content-type"] ?? "")
      .split(";")[0]!
      .trim()
      .toLowerCase();
    const parsed = await parseBody(request, contentType);
    texts.push(...leaves(parsed));
    if (contentType === "application/x-www-form-urlencoded")
      texts.push(...[...new URLSearchParams(request.body).values()]);
  }
  return texts;
}

export async function missingValues(args: Args, request: RecordedRequest): Promise<string[]> {
  const texts = await wireTexts(request);
  return leaves(args).filter((leaf) => !texts.some((text) => text.includes(leaf)));
}

/** How often each configured credential value appears on the wire (URL and headers). */
export function credentialCounts(request: RecordedRequest, env: Record<string, string>): Record<string, number> {
  const wire = [request.rawUrl, ...Object.values(request.headers).flat().map(String)].join("\n");
  const counts: Record<string, number> = {};
  for (const [name, value] of Object.entries(env)) counts[name] = wire.split(value).length - 1;
  return counts;
}

/**
 * Whether the validator's complaint at `instancePath` (`/requestBody/a/0/b`)
 * is about a value where the served input schema is deliberately unconstrained
 * (past the depth limit, or in a recursion): there our arguments are guesses,
 * and the server says so in a located warning, so it is no wire defect.
 */
export function outsideServedSchema(tool: ToolData, instancePath: string, keyword: string): boolean {
  const [root, ...rest] = instancePath.split("/").filter(Boolean);
  if (root !== "requestBody" || !tool.operation?.body) return false;
  const body = tool.operation.body;
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, JsonObject>;
  let segments = rest;
  let schema: JsonObject | undefined;
  if (body.mode === "property") schema = properties[body.arg];
  else {
    const arg = Object.entries(body.properties).find(([, property]) => property === rest[0])?.[0];
    schema = arg ? properties[arg] : undefined;
    segments = rest.slice(1);
  }
  return schema !== undefined && looserThanSpec(schema, segments, keyword);
}

function stubOrComposedOfStubs(schema: JsonObject): boolean {
  return (
    isStub(schema) ||
    ["allOf", "anyOf", "oneOf"].some(
      (name) => Array.isArray(schema[name]) && (schema[name] as JsonObject[]).some(stubOrComposedOfStubs),
    )
  );
}

/**
 * The served schema at this instance path is a stub, or (for `format` and
 * `enum` complaints) does not carry that keyword: the tool accepted a value
 * the spec narrows further, so the complaint is about our arguments, not the wire.
 */
function looserThanSpec(schema: JsonObject, segments: string[], keyword: string): boolean {
  if (isStub(schema)) return true;
  const branches = ["allOf", "anyOf", "oneOf"].flatMap((name) =>
    Array.isArray(schema[name]) ? (schema[name] as JsonObject[]) : [],
  );
  const [head, ...tail] = segments;
  // A stub inside this node's allOf/anyOf/oneOf (AWS: `allOf: [stub, {description}]`; Nexmo Messages: a body whose
  // oneOf branches are stubs past the size-bounded depth) leaves the node itself unconstrained as served.
  if (head === undefined && branches.some(stubOrComposedOfStubs)) return true;
  if (head === undefined) {
    if (keyword !== "format" && keyword !== "enum") return false;
    const has = (node: JsonObject): boolean =>
      node[keyword] !== undefined ||
      ["allOf", "anyOf", "oneOf"].some((name) => Array.isArray(node[name]) && (node[name] as JsonObject[]).some(has));
    return !has(schema);
  }
  if (branches.some((branch) => looserThanSpec(branch, segments, keyword))) return true;
  const property = (schema.properties as Record<string, JsonObject> | undefined)?.[head];
  if (property) return looserThanSpec(property, tail, keyword);
  if (/^\d+$/.test(head) && schema.items && typeof schema.items === "object")
    return looserThanSpec(schema.items as JsonObject, tail, keyword);
  return (
    typeof schema.additionalProperties === "object" &&
    looserThanSpec(schema.additionalProperties as JsonObject, tail, keyword)
  );
}

export function loadOriginal(path: string): SpecDocument {
  return JSON.parse(readFileSync(path, "utf8")) as SpecDocument;
}

export function basePathOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).pathname.replace(/\/+$/, "");
  } catch {
    return "";
  }
}

export { modelFrom };
