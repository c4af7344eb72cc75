/**
 * Stage 4 — model (OpenAPI), the API-level part: identity, servers, security
 * schemes, default security and the root `x-mcp`, read once per document.
 * Every operation's tool is built against it (see openapi.ts).
 */
import { isObject, type SpecObject } from "../normalise/index.js";
import type { ApiData, Diagnostic } from "./ir.js";
import { envName, packageSlug } from "./names.js";
import { readBaseUrl, readLogo, readSecurity, readSecuritySchemes } from "./api-info.js";
import { readMcpExtension, type McpOverride } from "./overrides.js";
import { sharedObjectsOf } from "../dereference/shared.js";

export interface ModelOptions {
  /** Overrides the server name derived from `info.title`. */
  name?: string;
  inputDepth?: number;
  outputDepth?: number;
  /** Size budget of one response schema in tools/list (characters of JSON). */
  outputSchemaChars?: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;

export function apiIdentity(title: string, override?: string): { slug: string; name: string; envPrefix: string } {
  const slug = packageSlug(override ?? title).replace(/-mcp$/, "");
  return { slug, name: `${slug}-mcp`, envPrefix: envName(slug) };
}

/**
 * What every operation's tool depends on besides the operation itself: the
 * API's identity, servers and security, the document-level diagnostics, the
 * root `x-mcp`. Plain data, so the incremental cache (src/cache) can keep it.
 */
export interface OpenApiPrelude {
  api: ApiData;
  diagnostics: Diagnostic[];
  defaultSecurity: string[][];
  /** Names of the declared security schemes (before an operation adds a Google-style key scheme). */
  knownSchemes: string[];
  rootOverride: McpOverride;
  inputDepth: number;
  outputDepth: number;
  outputSchemaChars: number;
}

export function openApiPrelude(document: SpecObject, location: string, options: ModelOptions = {}): OpenApiPrelude {
  const diagnostics: Diagnostic[] = [];
  const info = isObject(document.info) ? document.info : {};
  const title = typeof info.title === "string" && info.title.trim() ? info.title.trim() : "API";
  const identity = apiIdentity(title, options.name);
  const securitySchemes = readSecuritySchemes(document, identity.envPrefix, diagnostics);
  const api: ApiData = {
    name: identity.name,
    title,
    version: typeof info.version === "string" ? info.version : String(info.version ?? "0.0.0"),
    ...(typeof info.description === "string" ? { description: info.description } : {}),
    instructions: "",
    baseUrl: readBaseUrl(document, location, identity.envPrefix, diagnostics),
    baseUrlEnv: `${identity.envPrefix}_BASE_URL`,
    securitySchemes,
    timeoutMs: DEFAULT_TIMEOUT_MS,
    envPrefix: identity.envPrefix,
    ...readLogo(info["x-logo"]),
  };
  const rootOverride = readMcpExtension(document["x-mcp"], "#/x-mcp", diagnostics);
  const paths = isObject(document.paths) ? document.paths : {};
  if (Object.keys(paths).length === 0) {
    diagnostics.push({
      pointer: "#/paths",
      severity: "warning",
      message: "the document has no paths, so the server has no tools",
      fix: "add operations under `paths`",
    });
  }
  const prelude: OpenApiPrelude = {
    api,
    diagnostics,
    defaultSecurity: readSecurity(document.security),
    knownSchemes: securitySchemes.map((scheme) => scheme.name),
    rootOverride,
    inputDepth: options.inputDepth ?? 10,
    outputDepth: options.outputDepth ?? 5,
    outputSchemaChars: options.outputSchemaChars ?? 4000,
  };
  const shared = sharedObjectsOf(document);
  if (shared) sharedOfPrelude.set(prelude, shared);
  return prelude;
}

/** The shared objects (src/dereference/shared.ts) of the document a prelude was read from; not part of its data. */
const sharedOfPrelude = new WeakMap<OpenApiPrelude, ReadonlySet<object>>();

/** Which objects of the prelude's document are shared; undefined when not known (a prelude from the cache, say). */
export function preludeSharedObjects(prelude: OpenApiPrelude): ReadonlySet<object> | undefined {
  return sharedOfPrelude.get(prelude);
}
