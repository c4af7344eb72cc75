/**
 * Tool arguments -> HTTP request, following OpenAPI 3 parameter serialisation.
 *
 * Pure: no I/O, no clock, so every encoding rule is unit-testable.
 *
 * Conventions where OpenAPI leaves room (documented because upstreams differ):
 * - Only arguments the caller actually passed are sent; schema defaults are
 *   never injected (the upstream applies its own defaults).
 * - `null` omits an optional query/header/cookie parameter. A *required* (hence
 *   nullable) one given `null` is sent with an empty value (`keep=`, an empty
 *   header, `name=` cookie; `null` for JSON content), the form style's reading of
 *   an undefined value that must still be present. A `null` path parameter is an error.
 * - Query strings use RFC 3986 percent-encoding (space -> `%20`), not `+`.
 * - `allowReserved` leaves `:/?@!$'()*,;=[]` readable but still encodes `&`, `#`
 *   and `+`, which would otherwise split the query, cut the URL, or read as a space.
 * - deepObject nests with brackets (`filter[a][b]=1`) and indexes arrays
 *   (`filter[ids][0]=7`), the same rule as form bodies below.
 * - `application/x-www-form-urlencoded` bodies use Stripe's convention:
 *   `metadata[key]=v`, arrays indexed (`items[0][price]=x`, `expand[0]=a`);
 *   `null` and empty objects/arrays send `key=` (Stripe's "unset").
 * - Cookie parameter values are percent-encoded (form style) so `;` cannot
 *   start another cookie.
 */
import { applyCredentials, readEnv, type CallCredentials, type Env } from "./auth.js";
import { RequestBuildError } from "./errors.js";
import { isPlainObject } from "../shared/json.js";
import type { ApiData, OperationBinding, ParameterBinding } from "../shared/tool-data.js";
import { buildBody } from "./body.js";
import {
  definedEntries,
  formatBracketPath,
  flattenNested,
  joinStructured,
  scalarText,
  type Encoder,
} from "./encoding.js";

export type { Env } from "./auth.js";

export interface BuiltRequest {
  url: URL;
  /** Upper-case HTTP method. */
  method: string;
  /** Lower-cased header name -> value. */
  headers: Record<string, string>;
  /** FormData for multipart bodies: fetch then writes the boundary into Content-Type itself. */
  body?: string | URLSearchParams | FormData;
}

type Args = Record<string, unknown>;
type PlainObject = Record<string, unknown>;

/** `call`: OAuth2 tokens the server fetched for this call and a forwarded caller token (upstream/auth.ts). */
export function buildRequest(
  api: ApiData,
  binding: OperationBinding,
  args: Args,
  env: Env,
  call: CallCredentials = {},
): BuiltRequest {
  const base = resolveBaseUrl(api, env);
  const headers: Record<string, string> = {};
  const queryPairs: string[] = [];
  const cookiePairs: string[] = [];

  // What the spec's path key fragment names (S3's `?uploadId`, AWS's `X-Amz-Target`), computed by the generator.
  for (const fixed of binding.fixed ?? []) {
    if (fixed.in === "header") headers[fixed.name.toLowerCase()] = fixed.value ?? "";
    else
      queryPairs.push(
        fixed.value === undefined
          ? encodeURIComponent(fixed.name)
          : `${encodeURIComponent(fixed.name)}=${encodeURIComponent(fixed.value)}`,
      );
  }

  for (const parameter of binding.parameters) {
    if (parameter.in === "path") continue; // expanded into the template below
    const value = args[parameter.arg];
    if (value === undefined || (value === null && !parameter.required)) continue;
    if (parameter.in === "query") queryPairs.push(...serializeQueryParameter(parameter, value));
    else if (parameter.in === "header")
      headers[parameter.name.toLowerCase()] = serializeHeaderParameter(parameter, value);
    else cookiePairs.push(...serializeCookieParameter(parameter, value));
  }

  headers["accept"] ??= binding.responseMediaType
    ? `${binding.responseMediaType}, */*;q=0.1`
    : "application/json, */*;q=0.1";
  headers["user-agent"] ??= `${api.name} (create-guided-mcp)`;

  const body = binding.body ? buildBody(binding.body, args) : undefined;
  if (body?.contentType) headers["content-type"] = body.contentType;

  if (cookiePairs.length > 0) headers["cookie"] = cookiePairs.join("; ");

  const url = assembleUrl(base, expandPath(binding, args), queryPairs);
  const request: BuiltRequest = { url, method: binding.method.toUpperCase(), headers };
  if (body) request.body = body.payload;
  // Credentials go last so a caller-supplied parameter can never replace them.
  applyCredentials(request, api, binding, env, call);
  return request;
}

// ---------------------------------------------------------------------------
// Base URL and origin pinning

export function resolveBaseUrl(api: ApiData, env: Env): URL {
  const fromEnv = readEnv(env, api.baseUrlEnv);
  const raw = fromEnv ?? api.baseUrl;
  const source =
    fromEnv !== undefined ? `The ${api.baseUrlEnv} environment variable` : "The API description's server URL";
  if (!raw) {
    throw new RequestBuildError(
      "missing_base_url",
      `No upstream base URL is configured: set ${api.baseUrlEnv} to the API's absolute URL, e.g. https://api.example.com/v1.`,
      api.baseUrlEnv,
    );
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new RequestBuildError(
      "invalid_base_url",
      `${source} is not an absolute URL; set ${api.baseUrlEnv}.`,
      api.baseUrlEnv,
    );
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new RequestBuildError(
      "invalid_base_url",
      `${source} must use http or https; set ${api.baseUrlEnv}.`,
      api.baseUrlEnv,
    );
  }
  if (url.username || url.password) {
    // fetch refuses such URLs, and the value would end up in logs: credentials belong in their own env vars.
    throw new RequestBuildError(
      "invalid_base_url",
      `${source} contains user:password credentials; set ${api.baseUrlEnv} to a URL without them ` +
        `and configure credentials through the security scheme env vars.`,
      api.baseUrlEnv,
    );
  }
  return url;
}

function assembleUrl(base: URL, expandedPath: string, queryPairs: string[]): URL {
  const basePath = base.pathname.replace(/\/+$/, "");
  const path = expandedPath.startsWith("/") ? expandedPath : `/${expandedPath}`;
  // A base URL may carry fixed query parameters (e.g. `?api-version=2024-01-01`); keep them first.
  const query = [base.search.replace(/^\?/, ""), ...queryPairs].filter((part) => part !== "").join("&");
  const url = new URL(`${base.origin}${basePath}${path}${query ? `?${query}` : ""}`);

  const staysUnderBasePath = url.pathname === basePath || url.pathname.startsWith(`${basePath}/`);
  if (url.origin !== base.origin || !staysUnderBasePath) {
    throw new RequestBuildError(
      "origin_mismatch",
      `Refusing to send a request outside ${base.origin}${basePath}/ (built ${url.origin}${url.pathname}).`,
    );
  }
  return url;
}

// ---------------------------------------------------------------------------
// Path parameters (simple / label / matrix)

function expandPath(binding: OperationBinding, args: Args): string {
  const expanded = binding.path.replace(/\{([^{}]+)\}/g, (_placeholder, name: string) => {
    const parameter = binding.parameters.find((candidate) => candidate.in === "path" && candidate.name === name);
    if (!parameter) {
      throw new RequestBuildError("invalid_path_parameter", `The path template has no binding for {${name}}.`, name);
    }
    return serializePathParameter(parameter, args[parameter.arg]);
  });
  // WHATWG URL parsing collapses `.`/`..` segments (also written `%2e`), which would move the request to another resource.
  if (expanded.split("/").some((segment) => /^(?:\.|%2e){1,2}$/i.test(segment))) {
    throw new RequestBuildError(
      "invalid_path_parameter",
      `A path parameter value of "." or ".." is not allowed in ${binding.path}.`,
    );
  }
  return expanded;
}

function serializePathParameter(parameter: ParameterBinding, value: unknown): string {
  if (value === undefined || value === null) {
    throw new RequestBuildError(
      "invalid_path_parameter",
      `The path parameter "${parameter.arg}" needs a value.`,
      parameter.arg,
    );
  }
  const normalised = parameter.json ? JSON.stringify(value) : value;
  // encodeURIComponent always: a value can never contribute `/`, `?`, `#` or a raw `%` to the path;
  // only a greedy parameter (`{Key+}`) keeps its `/` as segment separators (the `..` check below still applies).
  const encode: Encoder = parameter.greedy
    ? (text) => text.split("/").map(encodeURIComponent).join("/")
    : encodeURIComponent;
  let serialised: string;
  switch (parameter.style) {
    case "label":
      serialised =
        "." + joinStructured(normalised, encode, parameter.explode ? "." : ",", parameter.explode ? "=" : ",");
      break;
    case "matrix":
      serialised = serializeMatrix(parameter, normalised, encode);
      break;
    default:
      serialised = joinStructured(normalised, encode, ",", parameter.explode ? "=" : ",");
  }
  if (serialised === "") {
    throw new RequestBuildError(
      "invalid_path_parameter",
      `The path parameter "${parameter.arg}" must not be empty: it would address a different resource.`,
      parameter.arg,
    );
  }
  return serialised;
}

function serializeMatrix(parameter: ParameterBinding, value: unknown, encode: Encoder): string {
  const name = encodeURIComponent(parameter.name);
  if (Array.isArray(value)) {
    if (parameter.explode) return value.map((item) => `;${name}=${encode(scalarText(item))}`).join("");
    return `;${name}=${value.map((item) => encode(scalarText(item))).join(",")}`;
  }
  if (isPlainObject(value)) {
    const entries = definedEntries(value);
    if (parameter.explode) return entries.map(([key, item]) => `;${encode(key)}=${encode(scalarText(item))}`).join("");
    return `;${name}=${entries.map(([key, item]) => `${encode(key)},${encode(scalarText(item))}`).join(",")}`;
  }
  const text = scalarText(value);
  return text === "" ? `;${name}` : `;${name}=${encode(text)}`;
}

// ---------------------------------------------------------------------------
// Query parameters (form / spaceDelimited / pipeDelimited / deepObject)

/** RFC 3986 reserved characters that stay readable with `allowReserved`, minus the ones that would change the URL's structure. */
const RESERVED_KEPT = /%(3A|2F|3F|40|21|24|27|28|29|2A|2C|3B|3D|5B|5D)/gi;

function encodeAllowingReserved(text: string): string {
  return encodeURIComponent(text).replace(RESERVED_KEPT, (escape) => decodeURIComponent(escape));
}

/** Returns encoded `name=value` pairs. */
function serializeQueryParameter(parameter: ParameterBinding, value: unknown): string[] {
  const encodeValue: Encoder = parameter.allowReserved ? encodeAllowingReserved : encodeURIComponent;
  const name = encodeURIComponent(parameter.name);
  if (parameter.json) return [`${name}=${encodeValue(JSON.stringify(value))}`];

  if (parameter.style === "deepObject") {
    if (!isPlainObject(value) && !Array.isArray(value)) return [`${name}=${encodeValue(scalarText(value))}`];
    return flattenNested(value, [parameter.name], "omit").map(
      ([path, text]) => `${formatBracketPath(path, encodeURIComponent)}=${encodeValue(text)}`,
    );
  }

  const delimiter = parameter.style === "spaceDelimited" ? "%20" : parameter.style === "pipeDelimited" ? "|" : ",";
  if (Array.isArray(value)) {
    if (parameter.explode) return value.map((item) => `${name}=${encodeValue(scalarText(item))}`);
    return [`${name}=${value.map((item) => encodeValue(scalarText(item))).join(delimiter)}`];
  }
  if (isPlainObject(value)) {
    const entries = definedEntries(value);
    if (parameter.explode)
      return entries.map(([key, item]) => `${encodeURIComponent(key)}=${encodeValue(scalarText(item))}`);
    return [
      `${name}=${entries.map(([key, item]) => `${encodeValue(key)}${delimiter}${encodeValue(scalarText(item))}`).join(delimiter)}`,
    ];
  }
  return [`${name}=${encodeValue(scalarText(value))}`];
}

// ---------------------------------------------------------------------------
// Header and cookie parameters

function serializeHeaderParameter(parameter: ParameterBinding, value: unknown): string {
  const text = parameter.json
    ? JSON.stringify(value)
    : joinStructured(value, (part) => part, ",", parameter.explode ? "=" : ",");
  if (/[\r\n\0]/.test(text)) {
    throw new RequestBuildError(
      "header_injection",
      `The header parameter "${parameter.arg}" contains a line break or NUL character, which HTTP headers cannot carry.`,
      parameter.arg,
    );
  }
  return text;
}

/** Returns `name=value` cookie pairs, values percent-encoded. */
function serializeCookieParameter(parameter: ParameterBinding, value: unknown): string[] {
  const name = encodeURIComponent(parameter.name);
  const encode = encodeURIComponent;
  if (parameter.json) return [`${name}=${encode(JSON.stringify(value))}`];
  if (Array.isArray(value) && parameter.explode) return value.map((item) => `${name}=${encode(scalarText(item))}`);
  if (isPlainObject(value) && parameter.explode) {
    return definedEntries(value).map(([key, item]) => `${encode(key)}=${encode(scalarText(item))}`);
  }
  return [`${name}=${joinStructured(value, encode, ",", ",")}`];
}
