/**
 * API-level facts of an OpenAPI document: security requirements and schemes (with their env vars), the logo, the base URL.
 */
import { pointerOf } from "../diagnostics.js";
import { isObject, type SpecObject } from "../normalise/index.js";
import type { ApiData, Diagnostic, SecuritySchemeData } from "./ir.js";
import { clientCredentialsFlow } from "./credentials.js";
import { envName } from "./names.js";

export function readSecurity(security: unknown): string[][] {
  if (!Array.isArray(security)) return [];
  return security.filter(isObject).map((requirement) => Object.keys(requirement));
}

/** `info.x-logo` (the ReDoc extension) as the MCP server icon; only https and data: URIs, which clients can load safely. */
export function readLogo(logo: unknown): Pick<ApiData, "icons"> {
  const src = isObject(logo) && typeof logo.url === "string" ? logo.url.trim() : "";
  return /^(https:\/\/|data:image\/)/i.test(src) ? { icons: [{ src }] } : {};
}

export function readSecuritySchemes(
  document: SpecObject,
  envPrefix: string,
  diagnostics: Diagnostic[],
): SecuritySchemeData[] {
  const components = isObject(document.components) ? document.components : {};
  const schemes = isObject(components.securitySchemes) ? components.securitySchemes : {};
  const result: SecuritySchemeData[] = [];
  for (const [name, scheme] of Object.entries(schemes)) {
    const pointer = pointerOf("components", "securitySchemes", name);
    if (!isObject(scheme)) continue;
    const type = String(scheme.type ?? "").toLowerCase();
    if (
      type === "apikey" &&
      typeof scheme.name === "string" &&
      ["header", "query", "cookie"].includes(String(scheme.in))
    ) {
      result.push({
        name,
        kind: "apiKey",
        in: scheme.in as "header" | "query" | "cookie",
        parameterName: scheme.name,
        env: envName(envPrefix, name),
      });
    } else if (type === "http" && String(scheme.scheme).toLowerCase() === "basic") {
      result.push({
        name,
        kind: "basic",
        usernameEnv: envName(envPrefix, name, "username"),
        passwordEnv: envName(envPrefix, name, "password"),
      });
    } else if (
      (type === "http" && String(scheme.scheme).toLowerCase() === "bearer") ||
      type === "oauth2" ||
      type === "openidconnect"
    ) {
      const flow = type === "oauth2" ? clientCredentialsFlow(scheme.flows, envPrefix, name) : undefined;
      result.push({
        name,
        kind: "bearer",
        env: envName(envPrefix, name, "token"),
        ...(flow && { clientCredentials: flow }),
      });
    } else {
      diagnostics.push({
        pointer,
        severity: "warning",
        message: `security scheme type "${String(scheme.type)}${scheme.scheme ? " " + String(scheme.scheme) : ""}" is not supported, so calls needing it are sent without it`,
        fix: "use apiKey, http basic/bearer, oauth2 or openIdConnect, or add the credential in src/hooks.ts",
      });
    }
  }
  return result;
}

export function readBaseUrl(
  document: SpecObject,
  location: string,
  envPrefix: string,
  diagnostics: Diagnostic[],
): string {
  const servers = Array.isArray(document.servers) ? document.servers : [];
  const server = servers[0];
  const env = `${envPrefix}_BASE_URL`;
  if (!isObject(server) || typeof server.url !== "string") {
    diagnostics.push({
      pointer: "#/servers",
      severity: "warning",
      message: "no server URL is declared",
      fix: `set ${env} when running the server, or add servers[0].url`,
    });
    return "";
  }
  let url = server.url;
  const variables = isObject(server.variables) ? server.variables : {};
  url = url.replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const variable = variables[name];
    return isObject(variable) && variable.default !== undefined ? String(variable.default) : whole;
  });
  if (/\{[^}]+\}/.test(url)) {
    diagnostics.push({
      pointer: "#/servers/0/url",
      severity: "warning",
      message: `server URL ${url} has variables without defaults`,
      fix: `set ${env} to the concrete URL`,
    });
  }
  if (!/^https?:\/\//i.test(url)) {
    if (/^https?:/i.test(location)) return new URL(url, location).href.replace(/\/$/, "");
    diagnostics.push({
      pointer: "#/servers/0/url",
      severity: "warning",
      message: `server URL "${url}" is relative`,
      fix: `set ${env} to the API's absolute base URL when running the server`,
    });
  }
  return url.replace(/\/$/, "");
}
