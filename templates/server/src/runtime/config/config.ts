/**
 * Runtime configuration: command-line flags win over `<PREFIX>_*` environment
 * variables, which win over defaults baked into the data file.
 */
import { parseArgs } from "node:util";
import type { Env } from "../upstream/auth.js";
import { isEmptyFilter, parseList, type ToolFilter } from "../shared/filter.js";
import { readHardeningSettings } from "./hardening.js";
import { DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_RESPONSE_BUDGET_CHARS } from "../shared/defaults.js";
import { parseIntegerSetting, SettingError } from "../shared/parse.js";
import type { ApiData, ToolMode } from "../shared/tool-data.js";

export type Transport = "stdio" | "http";

export interface RuntimeConfig {
  transport: Transport;
  port: number;
  host: string;
  timeoutMs: number;
  maxResponseBytes: number;
  /** Progressive-disclosure budget: larger `data` is summarised and paged with `read_response`. */
  responseBudgetChars: number;
  /** Destructive tools need `"_confirm": true` (or an elicitation answer) before they run. */
  confirmDestructive: boolean;
  /** `--tools` / `<PREFIX>_TOOLS`; absent: the data file's `api.toolMode` (default `auto`). */
  toolMode?: ToolMode;
  /** Start-up filter (`--include-tags`... / `<PREFIX>_INCLUDE_TAGS`...); absent when nothing is filtered. */
  filter?: ToolFilter;
  /** How long `wait: true` waits for a long-running operation; default 60 000 ms. */
  waitTimeoutMs: number;
  /** `--mcp-token` / `<PREFIX>_MCP_TOKEN`: the HTTP endpoint then requires `Authorization: Bearer <token>`. */
  mcpToken?: string;
}

export const TOOL_MODES: readonly ToolMode[] = ["per-operation", "dispatch", "discovery", "auto"];
export const DEFAULT_WAIT_TIMEOUT_MS = 60_000;

export type ConfigResult = { kind: "config"; config: RuntimeConfig } | { kind: "help"; text: string };

/** Bad flags or env values; the entry prints `message` and exits with code 2 (usage error). */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

const DEFAULT_PORT = 3000;
// Loopback by default: an MCP server holding API credentials must not be reachable from the network by accident.
const DEFAULT_HOST = "127.0.0.1";

export function usage(api: Pick<ApiData, "name" | "envPrefix" | "baseUrlEnv">): string {
  const prefix = api.envPrefix;
  return [
    `Usage: ${api.name} [--transport stdio|http] [--port N] [--host ADDRESS] [--timeout-ms N] [--response-budget-chars N] [--no-confirm]`,
    "",
    "Options:",
    `  --transport  stdio (default) or http (Streamable HTTP on /mcp)   env ${prefix}_TRANSPORT`,
    `  --port       HTTP port, default ${DEFAULT_PORT}                          env ${prefix}_PORT`,
    `  --host       HTTP bind address, default ${DEFAULT_HOST}             env ${prefix}_HOST`,
    `  --timeout-ms upstream request timeout in milliseconds         env ${prefix}_TIMEOUT_MS`,
    `  --response-budget-chars N  larger results are summarised, the rest read with read_response;`,
    `               default ${DEFAULT_RESPONSE_BUDGET_CHARS}                                env ${prefix}_RESPONSE_BUDGET_CHARS`,
    `  --no-confirm run destructive tools without "_confirm": true     env ${prefix}_CONFIRM_DESTRUCTIVE=false`,
    `  --tools MODE per-operation | dispatch | discovery | auto (per-operation up to the`,
    `               threshold, discovery above)                        env ${prefix}_TOOLS`,
    `  --include-tags a,b / --exclude-tags a,b  keep / drop operations by tag      env ${prefix}_INCLUDE_TAGS / ${prefix}_EXCLUDE_TAGS`,
    `  --include-ops g1,g2 / --exclude-ops g1,g2  globs over tool names and operationIds  env ` +
      `${prefix}_INCLUDE_OPS / ${prefix}_EXCLUDE_OPS`,
    `  --methods get,post  keep these HTTP methods only                env ${prefix}_METHODS`,
    `  --read-only  keep only operations that change nothing          env ${prefix}_READ_ONLY=true`,
    `  --wait-timeout-ms N  how long "wait": true waits for a long-running (202) operation;`,
    `               default ${DEFAULT_WAIT_TIMEOUT_MS}                                env ${prefix}_WAIT_TIMEOUT_MS`,
    `  --mcp-token T  HTTP only: require "Authorization: Bearer T" on /mcp  env ${prefix}_MCP_TOKEN`,
    `  --help       show this message`,
    "",
    `Other environment: ${api.baseUrlEnv} overrides the upstream base URL; ${prefix}_MAX_RESPONSE_BYTES caps upstream bodies;`,
    `${prefix}_MAX_ARGUMENT_BYTES caps tool arguments (default 1048576); ${prefix}_RETRIES ` +
      `(default 2), ${prefix}_RETRY_MAX_DELAY_MS (5000),`,
    `${prefix}_CIRCUIT_THRESHOLD (5) and ${prefix}_CIRCUIT_COOLDOWN_MS (30000) tune retries and the circuit breaker;`,
    `${prefix}_AUDIT_LOG=/path/file.jsonl appends one JSON line per tool call.`,
  ].join("\n");
}

export function loadRuntimeConfig(
  argv: string[],
  env: Env,
  api: Pick<ApiData, "name" | "envPrefix" | "baseUrlEnv" | "timeoutMs">,
): ConfigResult {
  const values = parseFlags(argv, api);
  if (values.help) return { kind: "help", text: usage(api) };

  const prefix = api.envPrefix;
  type Setting = { value: string; source: string };
  const setting = (flag: keyof typeof values | undefined, envName: string): Setting | undefined => {
    const fromFlag = flag ? values[flag] : undefined;
    if (typeof fromFlag === "string") return { value: fromFlag, source: `--${flag}` };
    const fromEnv = env[envName];
    return fromEnv === undefined || fromEnv === "" ? undefined : { value: fromEnv, source: envName };
  };

  const transportSetting = setting("transport", `${prefix}_TRANSPORT`);
  const transport = transportSetting?.value ?? "stdio";
  if (transport !== "stdio" && transport !== "http") {
    throw new ConfigError(`${transportSetting?.source} must be "stdio" or "http", got ${JSON.stringify(transport)}.`);
  }

  const modeSetting = setting("tools", `${prefix}_TOOLS`);
  const toolMode = modeSetting?.value.trim().toLowerCase();
  if (toolMode !== undefined && !(TOOL_MODES as readonly string[]).includes(toolMode)) {
    throw new ConfigError(
      `${modeSetting?.source} must be one of ${TOOL_MODES.join(", ")}, got ${JSON.stringify(modeSetting?.value)}.`,
    );
  }
  const filter = readFilter(setting, values["read-only"] === true, prefix);

  try {
    readHardeningSettings(prefix, env); // read again by the runtime; a bad value is a usage error here
  } catch (error) {
    throw error instanceof SettingError ? new ConfigError(error.message) : error;
  }
  const mcpToken = setting("mcp-token", `${prefix}_MCP_TOKEN`)?.value;

  return {
    kind: "config",
    config: {
      ...(mcpToken !== undefined && { mcpToken }),
      ...(toolMode !== undefined && { toolMode: toolMode as ToolMode }),
      ...(!isEmptyFilter(filter) && { filter }),
      waitTimeoutMs: integerSetting(
        setting("wait-timeout-ms", `${prefix}_WAIT_TIMEOUT_MS`),
        DEFAULT_WAIT_TIMEOUT_MS,
        1,
        24 * 60 * 60 * 1000,
      ),
      transport,
      port: integerSetting(setting("port", `${prefix}_PORT`), DEFAULT_PORT, 0, 65535),
      host: setting("host", `${prefix}_HOST`)?.value ?? DEFAULT_HOST,
      timeoutMs: integerSetting(setting("timeout-ms", `${prefix}_TIMEOUT_MS`), api.timeoutMs, 1, 24 * 60 * 60 * 1000),
      maxResponseBytes: integerSetting(
        setting(undefined, `${prefix}_MAX_RESPONSE_BYTES`),
        DEFAULT_MAX_RESPONSE_BYTES,
        1,
        Number.MAX_SAFE_INTEGER,
      ),
      responseBudgetChars: integerSetting(
        setting("response-budget-chars", `${prefix}_RESPONSE_BUDGET_CHARS`),
        DEFAULT_RESPONSE_BUDGET_CHARS,
        500,
        Number.MAX_SAFE_INTEGER,
      ),
      confirmDestructive: values["no-confirm"]
        ? false
        : booleanSetting(setting(undefined, `${prefix}_CONFIRM_DESTRUCTIVE`), true),
    },
  };
}

function booleanSetting(setting: { value: string; source: string } | undefined, fallback: boolean): boolean {
  if (!setting) return fallback;
  const value = setting.value.trim().toLowerCase();
  if (["true", "1", "yes", "on"].includes(value)) return true;
  if (["false", "0", "no", "off"].includes(value)) return false;
  throw new ConfigError(`${setting.source} must be true or false, got ${JSON.stringify(setting.value)}.`);
}

function integerSetting(
  setting: { value: string; source: string } | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (!setting) return fallback;
  try {
    return parseIntegerSetting(setting.source, setting.value, min, max);
  } catch (error) {
    throw error instanceof SettingError ? new ConfigError(error.message) : error;
  }
}

/** The command-line flags, as given. */
type Flags = {
  transport?: string;
  port?: string;
  host?: string;
  "timeout-ms"?: string;
  "response-budget-chars"?: string;
  "no-confirm"?: boolean;
  tools?: string;
  "include-tags"?: string;
  "exclude-tags"?: string;
  "include-ops"?: string;
  "exclude-ops"?: string;
  methods?: string;
  "read-only"?: boolean;
  "wait-timeout-ms"?: string;
  "mcp-token"?: string;
  help?: boolean;
};

function parseFlags(argv: string[], api: Pick<ApiData, "name" | "envPrefix" | "baseUrlEnv">): Flags {
  let values: Flags;

  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        transport: { type: "string" },
        port: { type: "string" },
        host: { type: "string" },
        "timeout-ms": { type: "string" },
        "response-budget-chars": { type: "string" },
        "no-confirm": { type: "boolean" },
        tools: { type: "string" },
        "include-tags": { type: "string" },
        "exclude-tags": { type: "string" },
        "include-ops": { type: "string" },
        "exclude-ops": { type: "string" },
        methods: { type: "string" },
        "read-only": { type: "boolean" },
        "wait-timeout-ms": { type: "string" },
        "mcp-token": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new ConfigError(`${error instanceof Error ? error.message : String(error)}\n\n${usage(api)}`);
  }
  return values;
}

type SettingOf = (flag: keyof Flags | undefined, envName: string) => { value: string; source: string } | undefined;

/** The start-up filter from `--include-tags`... / `<PREFIX>_INCLUDE_TAGS`...; empty when nothing is filtered. */
function readFilter(setting: SettingOf, readOnlyFlag: boolean, prefix: string): ToolFilter {
  const list = (flag: "include-tags" | "exclude-tags" | "include-ops" | "exclude-ops" | "methods", envName: string) =>
    parseList(setting(flag, `${prefix}_${envName}`)?.value);
  const filter: ToolFilter = {};
  const includeTags = list("include-tags", "INCLUDE_TAGS");
  const excludeTags = list("exclude-tags", "EXCLUDE_TAGS");
  const includeOperations = list("include-ops", "INCLUDE_OPS");
  const excludeOperations = list("exclude-ops", "EXCLUDE_OPS");
  const methods = list("methods", "METHODS")?.map((method) => method.toLowerCase());
  if (includeTags) filter.includeTags = includeTags;
  if (excludeTags) filter.excludeTags = excludeTags;
  if (includeOperations) filter.includeOperations = includeOperations;
  if (excludeOperations) filter.excludeOperations = excludeOperations;
  if (methods) filter.methods = methods;
  if (readOnlyFlag || booleanSetting(setting(undefined, `${prefix}_READ_ONLY`), false)) filter.readOnly = true;
  return filter;
}
