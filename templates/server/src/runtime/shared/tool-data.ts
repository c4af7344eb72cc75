/**
 * The shape of the data files the generator writes into `data/`.
 *
 * Everything derived from the API description (schemas, descriptions, hints,
 * examples, links) lives in these JSON files rather than in code, so no
 * string from a spec can ever become executable TypeScript, and `tsc` stays
 * fast however many operations the API has.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export type JsonSchema = { [keyword: string]: unknown };
export type ParameterLocation = "path" | "query" | "header" | "cookie";

export interface ApiData {
  /** Package-safe name of the generated server, e.g. `petstore-mcp`. */
  name: string;
  title: string;
  version: string;
  description?: string;
  /** Server `instructions`: the workflow an agent should follow. */
  instructions: string;
  /** Upstream base URL from `servers[0]` (or Swagger host/basePath/schemes); may be "". */
  baseUrl: string;
  /** Environment variable that overrides `baseUrl`, e.g. `PETSTORE_BASE_URL`. */
  baseUrlEnv: string;
  /** Every security scheme the API declares, with the env var(s) holding its credential. */
  securitySchemes: SecuritySchemeData[];
  /** Default upstream timeout; the `<PREFIX>_TIMEOUT_MS` env var overrides it. */
  timeoutMs: number;
  /** Prefix of every environment variable this server reads, e.g. `PETSTORE`. */
  envPrefix: string;
  /** How tools are exposed, chosen at generation time; `--tools`/`<PREFIX>_TOOLS` override it at start. */
  toolMode?: ToolMode;
  /** With `auto`: per-operation up to this many tools, discovery above. */
  autoThreshold?: number;
  /**
   * HTTP transport only (`--forward-authorization` at generation): every MCP request must carry
   * `Authorization: Bearer <token>`, and that token is what the upstream receives, so each user acts as themselves.
   */
  forwardAuthorization?: boolean;
  /** The API's logo (OpenAPI `info.x-logo`), shown by MCP clients next to the server. */
  icons?: IconData[];
}

/** An MCP `Icon`: an https or data: URI. */
export interface IconData {
  src: string;
  mimeType?: string;
  sizes?: string[];
}

/**
 * - `per-operation`: one MCP tool per API operation.
 * - `dispatch`: one tool per category (or one for the API) with an `action` enum and `params`.
 * - `discovery`: meta-tools to search, describe and invoke operations.
 * - `auto`: per-operation up to `autoThreshold` tools, discovery above.
 */
export type ToolMode = "per-operation" | "dispatch" | "discovery" | "auto";

export type SecuritySchemeData =
  | { name: string; kind: "apiKey"; in: "header" | "query" | "cookie"; parameterName: string; env: string }
  | {
      name: string;
      kind: "bearer"; // http bearer, oauth2 and openIdConnect access tokens
      env: string;
      /** OAuth2 `clientCredentials` flow: without a token in `env`, the server fetches one with the client's id and secret. */
      clientCredentials?: ClientCredentialsFlow;
    }
  | { name: string; kind: "basic"; usernameEnv: string; passwordEnv: string };

export interface ClientCredentialsFlow {
  /** Absolute, or relative to the API's base URL. */
  tokenUrl: string;
  scopes: string[];
  clientIdEnv: string;
  clientSecretEnv: string;
}

export interface ToolAnnotations {
  title?: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface ToolData {
  /** Unique, matches ^[a-zA-Z0-9_-]{1,64}$. */
  name: string;
  title?: string;
  description: string;
  /** First tag of the operation, or "default". */
  category: string;
  /** All tags of the operation (filtering by tag). */
  tags?: string[];
  /** The spec's operationId, when it has one (filtering by operationId glob). */
  operationId?: string;
  /** JSON pointer of the source object in the spec, e.g. `#/paths/~1pets/get`. */
  pointer: string;
  annotations: ToolAnnotations;
  /** Always `type: "object"`; JSON Schema 2020-12; compiled by Ajv at generation time already. */
  inputSchema: JsonSchema;
  /** Schema of the successful response body (the `data` of the envelope), when it is JSON. */
  responseSchema?: JsonSchema;
  /** Present for OpenAPI operations: how arguments map onto an HTTP request. */
  operation?: OperationBinding;
  /** Present for JSON Schema input: the tool runs a user-owned handler in `src/handlers/`. */
  handler?: { module: string };
  /** Precomputed at generation time; never re-derived per call. */
  guidance: ToolGuidance;
}

/** Guidance computed at generation time for one tool. */
export interface ToolGuidance {
  hints: SchemaHints;
  /**
   * Both examples pass this tool's own input validator (checked at generation
   * time). Absent only when no valid example could be built (e.g. an
   * unsatisfiable schema); the generator then reports a warning instead of
   * ever emitting an invalid example.
   */
  examples?: { minimal: Record<string, unknown>; full: Record<string, unknown> };
  links: ToolLink[];
  pagination?: PaginationData;
  /** The list/search tool for the resource this tool acts on (404 guidance, next steps). */
  listTool?: string;
  /** The tool to fall back to when this one fails upstream, if any. */
  fallbackTool?: string;
  /**
   * Required identifier argument → the calls that yield a real value for it,
   * best first (safe GETs first, then the most direct). Absent when none is known.
   */
  producers?: Record<string, IdentifierProducer[]>;
}

/** One call whose answer holds an identifier another tool needs. */
export interface ProducerCall {
  tool: string;
  /**
   * Arguments for the call. `"$caller.<arg>"` stands for the argument of that
   * name the caller already sent (fill it in; leave it out if the caller did not
   * send it); `"$via"` for the value taken from the `via` call's answer; any
   * other value is a literal.
   */
  params: Record<string, unknown>;
  /** JSON pointer into the call's answer (the response data) where the value is, e.g. `/items/0/author_id`. */
  take: string;
  note: string;
}

export interface IdentifierProducer extends ProducerCall {
  /** Two-hop chain: make this call first; the value at its `take` is this call's `"$via"` argument. */
  via?: ProducerCall;
}

export interface SchemaHints {
  minimal: { required: string[]; optional: string[] };
  typed: Record<string, TypedParameterHint>;
  full: { description?: string; required: string[]; properties: Record<string, JsonSchema> };
}

export interface TypedParameterHint {
  /** A JSON Schema type, a `|`-joined union (`string|null`), or `any`. */
  type: string;
  required: boolean;
  default?: unknown;
  enum?: unknown[];
  /** Set on identifiers: their example value is a placeholder, never a real id; says where real ones come from. */
  placeholder?: string;
}

/**
 * A follow-up call offered after a successful response. Parameter values are
 * OpenAPI runtime expressions resolved against the actual request/response:
 * `$response.body#/id`, `$response.header.Location`, `$request.path.petId`,
 * `$request.query.limit`, `$request.header.X`, `$request.body#/name`; any other
 * value is a literal.
 */
export interface ToolLink {
  /** Short label, e.g. "Get this pet". */
  name: string;
  tool: string;
  /** Target tool argument name -> runtime expression or literal. */
  params: Record<string, unknown>;
  source: "openapi" | "inferred";
  description?: string;
}

export interface PaginationData {
  kind: "offset" | "page" | "cursor" | "link-header";
  limitArg?: string;
  offsetArg?: string;
  pageArg?: string;
  perPageArg?: string;
  cursorArg?: string;
  /** JSON pointer into the response body holding the next cursor, e.g. `/next_cursor`. */
  nextCursorPointer?: string;
  /** JSON pointer into the response body holding the item array; "" when the body is the array. */
  itemsPointer?: string;
  /**
   * Cursor taken from the last item rather than a response field (Stripe's
   * `starting_after`): pass `items[items.length - 1][lastItemCursorField]` as
   * `cursorArg` while the boolean at `hasMorePointer` is true.
   */
  hasMorePointer?: string;
  lastItemCursorField?: string;
}

export interface OperationBinding {
  method: "get" | "put" | "post" | "delete" | "options" | "head" | "patch" | "trace";
  /** Path template relative to the base URL, e.g. `/pets/{petId}`. */
  path: string;
  parameters: ParameterBinding[];
  body?: BodyBinding;
  /** Alternatives (OR) of scheme-name sets (AND); `[]` means no auth needed. */
  security: string[][];
  /** Media type of the success response, if declared. */
  responseMediaType?: string;
  /**
   * Sent on every call whatever the arguments: what the spec's path key
   * fragment names (`/{Bucket}#tagging` sends `?tagging`, `/#X-Amz-Target=S.Op`
   * the header `X-Amz-Target: S.Op`). Query entries precede the arguments'.
   */
  fixed?: FixedParameter[];
  /**
   * Security schemes whose credential the spec also declares as a parameter of
   * this operation (Trello's `key` and `token`, Google's `key`): never asked of
   * the agent, sent from the scheme's env var when set, and only once even when
   * the chosen security alternative carries it too. `required` ones count as
   * missing credentials when unset.
   */
  credentialParameters?: Array<{ scheme: string; required: boolean }>;
}

export interface FixedParameter {
  in: "query" | "header";
  name: string;
  /** Absent: a bare query key (`?uploads`). */
  value?: string;
}

export interface ParameterBinding {
  /** Property name in the tool's inputSchema. */
  arg: string;
  /** Name on the wire. */
  name: string;
  in: ParameterLocation;
  required: boolean;
  /** OpenAPI serialisation; defaults per location are already resolved by the generator. */
  style: "simple" | "label" | "matrix" | "form" | "spaceDelimited" | "pipeDelimited" | "deepObject";
  explode: boolean;
  allowReserved?: boolean;
  /** The parameter's content is JSON-encoded (OpenAPI `content: application/json`). */
  json?: boolean;
  /** A greedy path parameter (`{Key+}`): its `/` separate segments instead of being encoded. */
  greedy?: boolean;
}

export type BodyBinding =
  | {
      /** The whole body is the value of one argument. */
      mode: "property";
      arg: string;
      mediaType: string;
      required: boolean;
    }
  | {
      /** The body object's properties appear as top-level arguments. */
      mode: "flattened";
      /** Argument name -> body property name. */
      properties: Record<string, string>;
      mediaType: string;
      required: boolean;
    };

export interface ToolsFile {
  api: ApiData;
  tools: ToolData[];
}

export function loadToolsFile(url: URL): ToolsFile {
  return JSON.parse(readFileSync(url, "utf8")) as ToolsFile;
}

/**
 * The data file with `tools` parsed on first use. `api` (the data file's first key, as the generator writes it)
 * is parsed on its own, so a process that only answers `server/discover` — the throwaway probe a 2026-07-28
 * client starts on stdio — never parses the operations (≈ 100 ms of parse and garbage collection on GitHub).
 */
export function openToolsFile(url: URL): ToolsFile {
  const text = readFileSync(url, "utf8");
  let parsed: ToolsFile | undefined;
  const all = (): ToolsFile => (parsed ??= parseDataFile(url, text));
  const api = leadingApi(text) ?? all().api;
  return {
    api,
    get tools() {
      return all().tools;
    },
  };
}

function parseDataFile(url: URL, text: string): ToolsFile {
  try {
    return JSON.parse(text) as ToolsFile;
  } catch (error) {
    throw new Error(
      `${fileURLToPath(url)}: not valid JSON (${error instanceof Error ? error.message : String(error)}) — ` +
        "the data file is damaged: regenerate the project, or restore data/tools.json from version control.",
    );
  }
}

/** The value of a leading `"api"` key: braces matched outside strings, then parsed alone. Undefined when not first. */
function leadingApi(text: string): ApiData | undefined {
  const head = /^\s*\{\s*"api"\s*:\s*/.exec(text.slice(0, 64));
  if (!head || text[head[0].length] !== "{") return undefined;
  const from = head[0].length;
  let depth = 0;
  for (let i = from, inString = false; i < text.length; i++) {
    const code = text.charCodeAt(i);
    // Inside a string, a backslash escapes the next character and a quote ends it.
    if (inString) {
      if (code === 0x5c) i++;
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x7b || code === 0x5b) depth++;
    else if ((code === 0x7d || code === 0x5d) && --depth === 0) return JSON.parse(text.slice(from, i + 1)) as ApiData;
  }
  return undefined;
}
