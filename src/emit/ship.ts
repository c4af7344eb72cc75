/**
 * Ship it: the files that take a generated server to its users — an MCPB
 * bundle manifest (Claude Desktop and other MCPB hosts), an MCP Registry
 * `server.json`, and a Docker image for the HTTP transport. They are
 * generator-owned (regeneration keeps them current with the spec's
 * credentials and base URL) and each can be left out with `--ship`.
 *
 * manifest.json and server.json are spec-derived data, so they are built here
 * as JSON; the Dockerfile and ignore files are templates.
 */
import type { ApiModel } from "../model/ir.js";
import { schemeCredentialEnv, type CredentialEnvVar } from "../../templates/server/src/runtime/shared/credentials.js";
import type { SecuritySchemeData } from "../../templates/server/src/runtime/shared/tool-data.js";

export const SHIP_TARGETS = ["mcpb", "registry", "docker"] as const;
export type ShipTarget = (typeof SHIP_TARGETS)[number];

/** Template outputs that belong to one ship target (absent when it is switched off). */
export const SHIP_TEMPLATE_OUTPUTS: Record<string, ShipTarget> = {
  Dockerfile: "docker",
  ".dockerignore": "docker",
  ".mcpbignore": "mcpb",
  "src/runtime/ship/bundle.ts": "mcpb",
};

export const MCPB_MANIFEST_PATH = "manifest.json";
export const REGISTRY_SERVER_PATH = "server.json";
/**
 * The generated package.json starts at this version. On regeneration the project's own package.json
 * version is used (after `npm version`), so manifest.json and server.json follow it.
 */
export const INITIAL_VERSION = "0.1.0";
/** The MCP Registry's server.json schema this file is written against. */
export const REGISTRY_SCHEMA = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";
const REGISTRY_DESCRIPTION_MAX = 100;

/** What the MCP Registry accepts as a server name: a reverse-DNS namespace, one slash, the server's name. */
export const REGISTRY_NAME_PATTERN = /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/;

/** The registry name, also `mcpName` in package.json: `--mcp-name`, else a placeholder namespace the owner replaces. */
export function registryName(model: Pick<ApiModel, "api">, mcpName?: string): string {
  return mcpName ?? `io.github.your-github-user/${model.api.name}`;
}

export interface ShipContext {
  mcpb: boolean;
  registry: boolean;
  docker: boolean;
  mcpName: string;
  /** The package's version: package.json's, which manifest.json and server.json repeat. */
  version: string;
}

export function shipContext(
  model: Pick<ApiModel, "api">,
  targets: readonly ShipTarget[],
  mcpName?: string,
  version = INITIAL_VERSION,
): ShipContext {
  return {
    mcpb: targets.includes("mcpb"),
    registry: targets.includes("registry"),
    docker: targets.includes("docker"),
    mcpName: registryName(model, mcpName),
    version,
  };
}

function credentials(schemes: SecuritySchemeData[]): CredentialEnvVar[] {
  return schemes.flatMap(schemeCredentialEnv);
}

/** MCPB manifest: the server runs from the bundle; each credential and the base URL are asked of the user at install time. */
export function mcpbManifest(model: Pick<ApiModel, "api">, version = INITIAL_VERSION): Record<string, unknown> {
  const { api } = model;
  const userConfig: Record<string, Record<string, unknown>> = {};
  const env: Record<string, string> = {};
  for (const credential of credentials(api.securitySchemes)) {
    const key = credential.env.toLowerCase();
    userConfig[key] = {
      type: "string",
      title: credential.env,
      description: credential.description,
      sensitive: true,
      required: false,
    };
    env[credential.env] = `\${user_config.${key}}`;
  }
  userConfig.base_url = {
    type: "string",
    title: "Base URL",
    description: `Where the ${api.title} API is served (${api.baseUrlEnv})`,
    required: !api.baseUrl,
    ...(api.baseUrl ? { default: api.baseUrl } : {}),
  };
  env[api.baseUrlEnv] = "${user_config.base_url}";
  return {
    manifest_version: "0.3",
    name: api.name,
    display_name: api.title,
    version,
    description: `MCP server for ${api.title}`,
    author: { name: `${api.title} MCP maintainers` },
    server: {
      type: "node",
      entry_point: "dist/index.js",
      mcp_config: { command: "node", args: ["${__dirname}/dist/index.js"], env },
    },
    tools_generated: true,
    compatibility: { runtimes: { node: ">=20" } },
    user_config: userConfig,
  };
}

/** MCP Registry entry: the npm package (stdio, run with npx) and the HTTP remote (the Docker image behind a URL you choose). */
export function registryServer(
  model: Pick<ApiModel, "api">,
  mcpName?: string,
  version = INITIAL_VERSION,
): Record<string, unknown> {
  const { api } = model;
  const description = `MCP server for ${api.title}`;
  const environmentVariables = [
    ...credentials(api.securitySchemes).map((credential) => ({
      name: credential.env,
      description: credential.description,
      isRequired: false,
      isSecret: true,
      format: "string",
    })),
    {
      name: api.baseUrlEnv,
      description: `Base URL of the ${api.title} API`,
      isRequired: !api.baseUrl,
      isSecret: false,
      format: "string",
      ...(api.baseUrl ? { default: api.baseUrl } : {}),
    },
  ];
  return {
    $schema: REGISTRY_SCHEMA,
    name: registryName(model, mcpName),
    title: api.title.slice(0, 100),
    description:
      description.length > REGISTRY_DESCRIPTION_MAX
        ? `${description.slice(0, REGISTRY_DESCRIPTION_MAX - 1)}…`
        : description,
    version,
    packages: [
      {
        registryType: "npm",
        registryBaseUrl: "https://registry.npmjs.org",
        identifier: api.name,
        version,
        transport: { type: "stdio" },
        environmentVariables,
      },
    ],
    remotes: [
      {
        type: "streamable-http",
        url: `https://${api.name}.example.com/mcp`,
        headers: [
          {
            name: "Authorization",
            description: `Bearer token: the server's ${api.envPrefix}_MCP_TOKEN`,
            isRequired: true,
            isSecret: true,
          },
        ],
      },
    ],
  };
}

export function parseShipList(value: string | undefined): ShipTarget[] | undefined {
  if (value === undefined) return undefined;
  const parts = value
    .split(",")
    .map((part) => part.trim().toLowerCase())
    .filter(Boolean);
  if (parts.length === 1 && parts[0] === "none") return [];
  if (parts.length === 1 && parts[0] === "all") return [...SHIP_TARGETS];
  const unknown = parts.filter((part) => !(SHIP_TARGETS as readonly string[]).includes(part));
  if (unknown.length > 0)
    throw new Error(
      `unknown --ship target ${unknown.join(", ")}: use a comma-separated list of ${SHIP_TARGETS.join(", ")}, or all, or none`,
    );
  return parts as ShipTarget[];
}
