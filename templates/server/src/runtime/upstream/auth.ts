/**
 * Upstream authentication from environment variables.
 *
 * An operation's `security` is an OR of AND-sets of scheme names. We apply the
 * first alternative whose credentials are all present, so a deployment that
 * configures only one of several accepted schemes just works. Credentials are
 * only ever referred to by env var NAME in errors, never by value.
 */
import { RequestBuildError } from "./errors.js";
import type { ApiData, OperationBinding, SecuritySchemeData } from "../shared/tool-data.js";

export type Env = Readonly<Record<string, string | undefined>>;

/** Where the chosen credentials go on the request; merged in by `applyCredentials`. */
export interface CredentialPlacement {
  /** Lower-cased header name -> value. */
  headers: Record<string, string>;
  query: Array<[name: string, value: string]>;
  cookies: Array<[name: string, value: string]>;
}

/** An empty value counts as unset: `FOO_TOKEN=` in a .env file means "not configured". */
export function readEnv(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === "" ? undefined : value;
}

/**
 * The env vars still to set for a scheme to work; `[]` when it can. Basic auth
 * only requires the username: several APIs (Stripe among them) take the secret
 * key as the username with an empty password. A bearer scheme with an OAuth2
 * client-credentials flow works from its token, or from its client id and
 * secret (the server then fetches tokens itself, upstream/oauth.ts); with
 * neither, the id and secret are named, since they do not expire.
 */
function missingEnvVars(scheme: SecuritySchemeData, env: Env): string[] {
  const unset = (names: string[]) => names.filter((name) => readEnv(env, name) === undefined);
  switch (scheme.kind) {
    case "apiKey":
      return unset([scheme.env]);
    case "basic":
      return unset([scheme.usernameEnv]);
    case "bearer": {
      const flow = scheme.clientCredentials;
      if (!flow || readEnv(env, scheme.env) !== undefined) return unset([scheme.env]);
      return unset([flow.clientIdEnv, flow.clientSecretEnv]);
    }
  }
}

function schemesOf(api: ApiData, alternative: string[]): SecuritySchemeData[] | undefined {
  const schemes: SecuritySchemeData[] = [];
  for (const name of alternative) {
    const scheme = api.securitySchemes.find((candidate) => candidate.name === name);
    // A scheme the generator could not map to env vars (e.g. mutualTLS) can never be satisfied here.
    if (!scheme) return undefined;
    schemes.push(scheme);
  }
  return schemes;
}

function isSatisfied(schemes: SecuritySchemeData[], env: Env): boolean {
  return schemes.every((scheme) => missingEnvVars(scheme, env).length === 0);
}

/** The schemes of the first alternative whose env vars are all set; `[]` when none is needed or none is satisfied. */
export function selectSecurityAlternative(api: ApiData, binding: OperationBinding, env: Env): SecuritySchemeData[] {
  for (const alternative of binding.security) {
    const schemes = schemesOf(api, alternative);
    if (schemes && isSatisfied(schemes, env)) return schemes;
  }
  return [];
}

/**
 * The chosen alternative plus every configured scheme the spec also declares
 * as a parameter of the operation (Trello's `key` and `token`), each once.
 */
export function schemesToSend(api: ApiData, binding: OperationBinding, env: Env): SecuritySchemeData[] {
  const chosen = selectSecurityAlternative(api, binding, env);
  for (const { scheme: name } of binding.credentialParameters ?? []) {
    const scheme = api.securitySchemes.find((candidate) => candidate.name === name);
    if (scheme && !chosen.includes(scheme) && isSatisfied([scheme], env)) chosen.push(scheme);
  }
  return chosen;
}

/** Env vars of required credential parameters that are not set. */
function missingCredentialParameters(api: ApiData, binding: OperationBinding, env: Env): string[] {
  return (binding.credentialParameters ?? [])
    .filter((entry) => entry.required)
    .flatMap(({ scheme: name }) => {
      const scheme = api.securitySchemes.find((candidate) => candidate.name === name);
      return scheme ? missingEnvVars(scheme, env) : [];
    });
}

/**
 * The env vars to set so that this operation can authenticate, or `[]` when
 * it already can (or needs no auth). When several alternatives are possible,
 * names the one that is closest to complete, preferring earlier ones.
 */
export function missingCredentials(api: ApiData, binding: OperationBinding, env: Env): string[] {
  const parameters = missingCredentialParameters(api, binding, env);
  const schemes = missingSchemeCredentials(api, binding, env);
  return [...new Set([...schemes, ...parameters])];
}

function missingSchemeCredentials(api: ApiData, binding: OperationBinding, env: Env): string[] {
  if (binding.security.length === 0) return [];
  let closest: string[] | undefined;
  for (const alternative of binding.security) {
    const schemes = schemesOf(api, alternative);
    if (!schemes) continue;
    const missing = schemes.flatMap((scheme) => missingEnvVars(scheme, env));
    if (missing.length === 0) return [];
    if (!closest || missing.length < closest.length) closest = [...new Set(missing)];
  }
  // No alternative is expressible through env vars at all: there is nothing useful to name.
  return closest ?? [];
}

function assertHeaderSafe(value: string, envVar: string, forbidden = /[\r\n\0]/): void {
  if (forbidden.test(value)) {
    throw new RequestBuildError(
      "header_injection",
      `The credential in ${envVar} contains a character that cannot be sent in this header (line break, NUL, or ';' in a cookie).`,
      envVar,
    );
  }
}

/**
 * The env as a call with a forwarded bearer token sees it (`api.forwardAuthorization`): every bearer scheme's
 * token is the caller's, so it satisfies those schemes and is what they send, whatever the server holds.
 */
export function withForwardedToken(api: ApiData, env: Env, token: string | undefined): Env {
  if (token === undefined) return env;
  const overlay: Record<string, string | undefined> = { ...env };
  for (const scheme of api.securitySchemes) if (scheme.kind === "bearer") overlay[scheme.env] = token;
  return overlay;
}

/**
 * Credentials of the first satisfied alternative, ready to merge into a request.
 * `accessTokens`: OAuth2 tokens the server fetched itself, by scheme name (upstream/oauth.ts).
 */
export function resolveCredentials(
  api: ApiData,
  binding: OperationBinding,
  env: Env,
  accessTokens?: ReadonlyMap<string, string>,
): CredentialPlacement {
  const placement: CredentialPlacement = { headers: {}, query: [], cookies: [] };
  const placed = new Set<string>();
  for (const scheme of schemesToSend(api, binding, env)) {
    // Two schemes naming the same parameter (fec.gov's query `api_key` twice) still send it once.
    const slot =
      scheme.kind === "apiKey"
        ? `${scheme.in}:${scheme.in === "header" ? scheme.parameterName.toLowerCase() : scheme.parameterName}`
        : "header:authorization";
    if (placed.has(slot)) continue;
    placed.add(slot);
    switch (scheme.kind) {
      case "apiKey": {
        const value = readEnv(env, scheme.env) ?? "";
        if (scheme.in === "header") {
          assertHeaderSafe(value, scheme.env);
          placement.headers[scheme.parameterName.toLowerCase()] = value;
        } else if (scheme.in === "query") {
          placement.query.push([scheme.parameterName, value]);
        } else {
          // Sent verbatim (keys are opaque tokens the server compares byte for byte), so `;` must not split it.
          assertHeaderSafe(value, scheme.env, /[\r\n\0;]/);
          placement.cookies.push([scheme.parameterName, value]);
        }
        break;
      }
      case "bearer": {
        const token = readEnv(env, scheme.env) ?? accessTokens?.get(scheme.name) ?? "";
        assertHeaderSafe(token, scheme.env);
        placement.headers["authorization"] = `Bearer ${token}`;
        break;
      }
      case "basic": {
        const username = readEnv(env, scheme.usernameEnv) ?? "";
        const password = readEnv(env, scheme.passwordEnv) ?? "";
        const encoded = Buffer.from(`${username}:${password}`, "utf8").toString("base64");
        placement.headers["authorization"] = `Basic ${encoded}`;
        break;
      }
    }
  }
  return placement;
}

/** What a call authenticates with besides the env: OAuth2 tokens the server fetched, the caller's forwarded token. */
export interface CallCredentials {
  /** OAuth2 access tokens the server fetched for this call, by scheme name (upstream/oauth.ts). */
  accessTokens?: ReadonlyMap<string, string>;
  /** The MCP request's bearer token (`api.forwardAuthorization`): the Authorization header, whatever the schemes. */
  forwardedToken?: string;
}

/**
 * The one place credentials go onto a request — an operation's call (`buildRequest`) and a long-running
 * operation's status poll alike. Applied last, so no argument can replace them; a query credential the URL
 * already carries is replaced, not repeated.
 */
export function applyCredentials(
  request: { url: URL; headers: Record<string, string> },
  api: ApiData,
  binding: OperationBinding | undefined,
  env: Env,
  call: CallCredentials = {},
): void {
  const { url, headers } = request;
  if (binding) {
    const placement = resolveCredentials(
      api,
      binding,
      withForwardedToken(api, env, call.forwardedToken),
      call.accessTokens,
    );
    Object.assign(headers, placement.headers);
    if (placement.query.length > 0) url.search = withQueryCredentials(url.search, placement.query);
    const cookies = placement.cookies.map(([name, value]) => `${name}=${value}`);
    if (cookies.length > 0) headers["cookie"] = [headers["cookie"], ...cookies].filter(Boolean).join("; ");
  }
  if (call.forwardedToken !== undefined) headers["authorization"] = `Bearer ${call.forwardedToken}`;
}

/** The query with the credentials appended, RFC 3986-encoded; pairs of the same names already there are dropped. */
function withQueryCredentials(search: string, credentials: Array<[name: string, value: string]>): string {
  const names = new Set(credentials.map(([name]) => name));
  const nameOf = (pair: string) => {
    const raw = pair.split("=", 1)[0] ?? "";
    try {
      return decodeURIComponent(raw.replace(/\+/g, " "));
    } catch {
      return raw;
    }
  };
  const kept = search
    .replace(/^\?/, "")
    .split("&")
    .filter((pair) => pair !== "" && !names.has(nameOf(pair)));
  const added = credentials.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
  return [...kept, ...added].join("&");
}
