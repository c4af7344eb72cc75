/**
 * The environment variables behind each security scheme, listed in ONE place
 * for everything that names them: the runtime's guided errors, the secret
 * scrubbing of results and the audit trail, and the generator's README,
 * `.env.example`, MCPB manifest and registry entry. Imports only types.
 */
import type { SecuritySchemeData } from "./tool-data.js";

export interface CredentialEnvVar {
  env: string;
  /** What the value is, for README tables and install-time prompts. */
  description: string;
}

/** Every env var a scheme reads, in the order a user would set them. */
export function schemeCredentialEnv(scheme: SecuritySchemeData): CredentialEnvVar[] {
  switch (scheme.kind) {
    case "apiKey":
      return [{ env: scheme.env, description: `Credential for security scheme ${scheme.name} (apiKey)` }];
    case "basic":
      return [
        { env: scheme.usernameEnv, description: `User name for security scheme ${scheme.name} (HTTP Basic)` },
        { env: scheme.passwordEnv, description: `Password for security scheme ${scheme.name} (HTTP Basic)` },
      ];
    case "bearer": {
      const token = { env: scheme.env, description: `Credential for security scheme ${scheme.name} (bearer)` };
      const flow = scheme.clientCredentials;
      if (!flow) return [token];
      return [
        token,
        {
          env: flow.clientIdEnv,
          description: `OAuth2 client id for security scheme ${scheme.name} (client credentials; instead of ${scheme.env})`,
        },
        {
          env: flow.clientSecretEnv,
          description: `OAuth2 client secret for security scheme ${scheme.name} (client credentials)`,
        },
      ];
    }
  }
}

/** The names alone. */
export function schemeEnvNames(scheme: SecuritySchemeData): string[] {
  return schemeCredentialEnv(scheme).map((entry) => entry.env);
}

/** Every credential env var of the API, each once. */
export function credentialEnvNames(schemes: readonly SecuritySchemeData[]): string[] {
  return [...new Set(schemes.flatMap(schemeEnvNames))];
}

/** How to configure a scheme, for error messages: `X_TOKEN (bearer token "oauth"), or X_CLIENT_ID and X_CLIENT_SECRET (...)`. */
export function describeSchemeCredentials(scheme: SecuritySchemeData): string {
  switch (scheme.kind) {
    case "apiKey":
      return `${scheme.env} (API key "${scheme.name}", sent in ${scheme.in} "${scheme.parameterName}")`;
    case "basic":
      return `${scheme.usernameEnv} and ${scheme.passwordEnv} (HTTP basic "${scheme.name}")`;
    case "bearer": {
      const token = `${scheme.env} (bearer token "${scheme.name}")`;
      const flow = scheme.clientCredentials;
      return flow
        ? `${token}, or ${flow.clientIdEnv} and ${flow.clientSecretEnv} (OAuth2 client credentials for "${scheme.name}")`
        : token;
    }
  }
}
