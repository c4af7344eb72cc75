/**
 * OAuth2 client credentials (RFC 6749 §4.4): for a scheme whose spec declares
 * a `clientCredentials` flow, when its token env var is unset but the client
 * id and secret env vars are set, the server fetches its own access token.
 *
 * - One token per scheme, shared by every call; concurrent calls share one
 *   request in flight instead of each fetching.
 * - Kept until shortly before `expires_in` runs out (a minute, or a tenth of a
 *   short lifetime), then fetched again on the next call.
 * - `invalidate` drops a token the API answered 401 to, so the caller can
 *   fetch a fresh one and retry once (call/execute.ts).
 * - The client authenticates with HTTP Basic (the method every server must
 *   support); a server that refuses it (400/401 `invalid_client`) is asked
 *   again with the id and secret in the form body.
 * - Neither the secret nor a token ever appears in an error message; the
 *   token endpoint's own error text is reduced to its OAuth `error` code.
 */
import type { ApiData, ClientCredentialsFlow, OperationBinding, SecuritySchemeData } from "../shared/tool-data.js";
import { readEnv, schemesToSend, type Env } from "./auth.js";
import { RequestBuildError } from "./errors.js";
import { UpstreamError } from "./upstream.js";

export type ClientCredentialsScheme = Extract<SecuritySchemeData, { kind: "bearer" }> & {
  clientCredentials: ClientCredentialsFlow;
};

interface CachedToken {
  token: string;
  /** Epoch ms after which the token is not used again. */
  refreshAt: number;
}

/** Without `expires_in` a token is kept this long (a 401 still replaces it sooner). */
const DEFAULT_LIFETIME_MS = 3_600_000;
const MAX_EARLY_REFRESH_MS = 60_000;

export interface TokenSourceOptions {
  env: Env;
  /** Resolves a relative `tokenUrl` (against the API's base URL). */
  baseUrl: () => URL;
  timeoutMs: number;
  now?: () => number;
}

export class ClientCredentialsTokens {
  private readonly cached = new Map<string, CachedToken>();
  private readonly inFlight = new Map<string, Promise<string>>();
  private readonly now: () => number;

  constructor(private readonly options: TokenSourceOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Whether this scheme's token comes from here: a client-credentials flow, its id and secret set, no static token. */
  serves(scheme: SecuritySchemeData): scheme is ClientCredentialsScheme {
    const { env } = this.options;
    if (scheme.kind !== "bearer" || !scheme.clientCredentials || readEnv(env, scheme.env) !== undefined) return false;
    const flow = scheme.clientCredentials;
    return readEnv(env, flow.clientIdEnv) !== undefined && readEnv(env, flow.clientSecretEnv) !== undefined;
  }

  /** A valid access token: the cached one, the one being fetched, or a new one. */
  async token(scheme: ClientCredentialsScheme): Promise<string> {
    const cached = this.cached.get(scheme.name);
    if (cached && this.now() < cached.refreshAt) return cached.token;
    let pending = this.inFlight.get(scheme.name);
    if (!pending) {
      pending = this.fetchToken(scheme).finally(() => this.inFlight.delete(scheme.name));
      this.inFlight.set(scheme.name, pending);
    }
    return pending;
  }

  /**
   * Tokens for the schemes a call of `binding` sends that the server fetches itself, by scheme name. A token in
   * `refused` (the API answered 401 to it) is dropped first; concurrent calls refused the same token then share
   * one new fetch, or the token another call already got.
   */
  async forCall(
    api: ApiData,
    binding: OperationBinding,
    refused?: ReadonlyMap<string, string>,
  ): Promise<Map<string, string>> {
    const fetched = new Map<string, string>();
    for (const scheme of schemesToSend(api, binding, this.options.env)) {
      if (!this.serves(scheme)) continue;
      const stale = refused?.get(scheme.name);
      if (stale !== undefined) this.invalidate(scheme, stale);
      fetched.set(scheme.name, await this.token(scheme));
    }
    return fetched;
  }

  /** The API refused `token`: forget it (unless a newer one already replaced it). */
  invalidate(scheme: SecuritySchemeData, token: string): void {
    if (this.cached.get(scheme.name)?.token === token) this.cached.delete(scheme.name);
  }

  /** The tokens held now, so results and the audit trail can be scrubbed of them. */
  current(): Array<{ scheme: string; token: string }> {
    return [...this.cached].map(([scheme, entry]) => ({ scheme, token: entry.token }));
  }

  private async fetchToken(scheme: ClientCredentialsScheme): Promise<string> {
    const flow = scheme.clientCredentials;
    const url = this.tokenUrl(flow);
    const startedAt = this.now();
    let response = await this.post(url, flow, "basic");
    if (response.status === 400 || response.status === 401) {
      const error = oauthErrorCode(response.body);
      if (response.status === 401 || error === "invalid_client") response = await this.post(url, flow, "body");
    }
    if (response.status < 200 || response.status >= 300) throw tokenRefused(scheme, url, response);
    const grant = parseGrant(response.body);
    if (!grant) {
      throw new RequestBuildError(
        "token_request",
        `The OAuth2 token endpoint ${url.href} answered ${response.status} without an access_token; ` +
          `check that it is the token URL of ${scheme.name}.`,
        flow.clientIdEnv,
      );
    }
    const lifetime = grant.expiresInMs ?? DEFAULT_LIFETIME_MS;
    const early = Math.min(MAX_EARLY_REFRESH_MS, lifetime / 10);
    this.cached.set(scheme.name, { token: grant.token, refreshAt: startedAt + lifetime - early });
    return grant.token;
  }

  private tokenUrl(flow: ClientCredentialsFlow): URL {
    try {
      return new URL(flow.tokenUrl, this.options.baseUrl());
    } catch {
      throw new RequestBuildError(
        "token_request",
        `The OAuth2 token URL ${JSON.stringify(flow.tokenUrl)} is not a URL; fix tokenUrl in the spec and regenerate.`,
        flow.clientIdEnv,
      );
    }
  }

  private async post(
    url: URL,
    flow: ClientCredentialsFlow,
    auth: "basic" | "body",
  ): Promise<{ status: number; body: string }> {
    const { env, timeoutMs } = this.options;
    const id = readEnv(env, flow.clientIdEnv) ?? "";
    const secret = readEnv(env, flow.clientSecretEnv) ?? "";
    const form = new URLSearchParams({ grant_type: "client_credentials" });
    if (flow.scopes.length > 0) form.set("scope", flow.scopes.join(" "));
    const headers: Record<string, string> = {
      accept: "application/json",
      "content-type": "application/x-www-form-urlencoded",
    };
    if (auth === "basic") {
      // RFC 6749 §2.3.1: the id and secret are form-encoded before they are joined and base64-encoded.
      const pair = `${formEncode(id)}:${formEncode(secret)}`;
      headers["authorization"] = `Basic ${Buffer.from(pair, "utf8").toString("base64")}`;
    } else {
      form.set("client_id", id);
      form.set("client_secret", secret);
    }
    try {
      const response = await fetch(url, {
        method: "POST",
        headers,
        body: form,
        redirect: "error",
        signal: AbortSignal.timeout(timeoutMs),
      });
      return { status: response.status, body: await response.text() };
    } catch (error) {
      const reason = error instanceof Error && error.name === "TimeoutError" ? "timeout" : "network";
      const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : "";
      throw new UpstreamError(
        reason,
        `the OAuth2 token endpoint ${url.origin}${url.pathname} did not answer${reason === "timeout" ? ` within ${timeoutMs} ms` : cause}`,
        url.href,
        0,
      );
    }
  }
}

function formEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}

function parseGrant(body: string): { token: string; expiresInMs?: number } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof parsed !== "object" || parsed === null) return undefined;
  const { access_token: token, expires_in: expiresIn } = parsed as Record<string, unknown>;
  if (typeof token !== "string" || token === "" || /[\r\n\0]/.test(token)) return undefined;
  const seconds = typeof expiresIn === "string" ? Number(expiresIn) : expiresIn;
  return typeof seconds === "number" && Number.isFinite(seconds) && seconds > 0
    ? { token, expiresInMs: seconds * 1000 }
    : { token };
}

/** The OAuth `error` code of a token endpoint's error body (RFC 6749 §5.2), when it is a plain word. */
function oauthErrorCode(body: string): string | undefined {
  try {
    const error = (JSON.parse(body) as Record<string, unknown>)["error"];
    return typeof error === "string" && /^[\w.-]{1,64}$/.test(error) ? error : undefined;
  } catch {
    return undefined;
  }
}

function tokenRefused(scheme: ClientCredentialsScheme, url: URL, response: { status: number; body: string }): Error {
  const flow = scheme.clientCredentials;
  const code = oauthErrorCode(response.body);
  const rejected = response.status === 400 || response.status === 401;
  return new RequestBuildError(
    "token_request",
    `The OAuth2 token endpoint ${url.origin}${url.pathname} refused the client credentials ` +
      `(${response.status}${code ? ` ${code}` : ""}). ` +
      (rejected
        ? `Check ${flow.clientIdEnv} and ${flow.clientSecretEnv}` +
          `${flow.scopes.length ? ` and that the client may request the scopes ${flow.scopes.join(" ")}` : ""}, then restart the server.`
        : "Try again later; if it persists, check the token URL."),
    flow.clientIdEnv,
  );
}
