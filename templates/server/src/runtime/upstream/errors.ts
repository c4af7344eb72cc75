/**
 * Errors raised while turning tool arguments into an HTTP request. They are
 * the caller's (or the deployment's) fault, never the upstream's, so they are
 * kept apart from transport failures and carry a machine-readable `code`
 * the guidance layer can explain.
 */
export type RequestBuildErrorCode =
  /** A header or cookie value would smuggle CR/LF (header injection). */
  | "header_injection"
  /** A path parameter value is missing, null, or would produce a `.`/`..` segment. */
  | "invalid_path_parameter"
  /** Neither the base URL env var nor the spec provides a usable absolute URL. */
  | "missing_base_url"
  | "invalid_base_url"
  /** The built URL would leave the configured origin or base path. */
  | "origin_mismatch"
  /** The OAuth2 token endpoint refused the client credentials or answered without a token (upstream/oauth.ts). */
  | "token_request";

export class RequestBuildError extends Error {
  override readonly name = "RequestBuildError";

  constructor(
    readonly code: RequestBuildErrorCode,
    message: string,
    /** The argument, header or env var the problem is about, when there is one. Never a secret value. */
    readonly subject?: string,
  ) {
    super(message);
  }
}
