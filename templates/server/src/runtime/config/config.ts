/**
 * Runtime configuration: command-line flags win over `<PREFIX>_*` environment
 * variables, which win over the defaults, all from the settings table
 * (settings.ts). Resolved once at start-up; the entry passes the result down,
 * and no other module reads flags or the environment's settings.
 */
import { parseArgs } from "node:util";
import type { Env } from "../upstream/auth.js";
import { isEmptyFilter, parseList, type ToolFilter } from "../shared/filter.js";
import { parseIntegerSetting, SettingError } from "../shared/parse.js";
import type { ToolMode } from "../shared/tool-data.js";
import { usage, type UsageApi } from "./help.js";
import { SETTINGS, settingEnv, type SettingDefinition, type SettingKey, type SettingsApi } from "./settings.js";

export { TOOL_MODES } from "./settings.js";

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
  /** How long `wait: true` waits for a long-running operation. */
  waitTimeoutMs: number;
  /** `--mcp-token` / `<PREFIX>_MCP_TOKEN`: the HTTP endpoint then requires `Authorization: Bearer <token>`. */
  mcpToken?: string;
  /** Larger tools/call arguments (JSON bytes) are refused. */
  maxArgumentBytes: number;
  /** Retries of idempotent upstream calls; 0 = off. */
  retries: number;
  retryMaxDelayMs: number;
  /** Consecutive failed calls that open a host's circuit; 0 = off. */
  circuitThreshold: number;
  circuitCooldownMs: number;
  /** JSON-lines audit trail of tool calls; absent: none. */
  auditLog?: string;
}

export type ConfigApi = UsageApi & SettingsApi;

export type ConfigResult = { kind: "config"; config: RuntimeConfig } | { kind: "help"; text: string };

/** Bad flags or env values; the entry prints `message` and exits with code 2 (usage error). */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

export function loadRuntimeConfig(argv: string[], env: Env, api: ConfigApi): ConfigResult {
  const flags = parseFlags(argv, api);
  if (flags["help"] === true) return { kind: "help", text: usage(api) };
  const read = settingReader(flags, env, api);
  try {
    // Read in this order so that, of several bad values, the same one is reported first as before.
    const transport = read.choice("transport") as Transport;
    const toolMode = read.choice("toolMode") as ToolMode | undefined;
    const filter = readFilter(read);
    const maxArgumentBytes = read.integer("maxArgumentBytes");
    const retries = read.integer("retries");
    const retryMaxDelayMs = read.integer("retryMaxDelayMs");
    const circuitThreshold = read.integer("circuitThreshold");
    const circuitCooldownMs = read.integer("circuitCooldownMs");
    const auditLog = read.text("auditLog")?.trim() || undefined;
    const mcpToken = read.text("mcpToken");
    const config: RuntimeConfig = {
      ...(mcpToken !== undefined && { mcpToken }),
      ...(toolMode !== undefined && { toolMode }),
      ...(!isEmptyFilter(filter) && { filter }),
      waitTimeoutMs: read.integer("waitTimeoutMs"),
      transport,
      port: read.integer("port"),
      host: read.text("host") ?? SETTINGS.host.default,
      timeoutMs: read.integer("timeoutMs"),
      maxResponseBytes: read.integer("maxResponseBytes"),
      responseBudgetChars: read.integer("responseBudgetChars"),
      confirmDestructive: read.boolean("confirmDestructive"),
      maxArgumentBytes,
      retries,
      retryMaxDelayMs,
      circuitThreshold,
      circuitCooldownMs,
      ...(auditLog !== undefined && { auditLog }),
    };
    return { kind: "config", config };
  } catch (error) {
    throw error instanceof SettingError ? new ConfigError(error.message) : error;
  }
}

type KeysOfKind<K extends SettingDefinition["kind"]> = {
  [P in SettingKey]: (typeof SETTINGS)[P]["kind"] extends K ? P : never;
}[SettingKey];

type Flags = Record<string, string | boolean | undefined>;

/** Reads each setting by its kind: flag, else env var, else default; a bad value throws SettingError naming its source. */
function settingReader(flags: Flags, env: Env, api: SettingsApi) {
  const given = (setting: SettingDefinition): { value: string; source: string } | undefined => {
    const fromFlag = setting.flag === undefined ? undefined : flags[setting.flag];
    if (typeof fromFlag === "string") return { value: fromFlag, source: `--${setting.flag}` };
    const name = settingEnv(setting, api.envPrefix);
    const fromEnv = env[name];
    return fromEnv === undefined || fromEnv === "" ? undefined : { value: fromEnv, source: name };
  };
  return {
    integer(key: KeysOfKind<"integer">): number {
      const setting = SETTINGS[key];
      const raw = given(setting);
      if (raw) return parseIntegerSetting(raw.source, raw.value, setting.min, setting.max);
      return typeof setting.default === "function" ? setting.default(api) : setting.default;
    },
    boolean(key: KeysOfKind<"boolean">): boolean {
      const setting = SETTINGS[key];
      if (flags[setting.flag] === true) return setting.flagSets;
      const raw = given(setting);
      return raw ? parseBoolean(raw.source, raw.value) : setting.default;
    },
    text(key: KeysOfKind<"text">): string | undefined {
      return given(SETTINGS[key])?.value;
    },
    choice(key: KeysOfKind<"choice">): string | undefined {
      const setting: (typeof SETTINGS)[typeof key] & { caseInsensitive?: boolean; default?: string } = SETTINGS[key];
      const raw = given(setting);
      if (!raw) return setting.default;
      const value = setting.caseInsensitive ? raw.value.trim().toLowerCase() : raw.value;
      if ((setting.choices as readonly string[]).includes(value)) return value;
      const expected =
        setting.choices.length === 2
          ? setting.choices.map((choice) => JSON.stringify(choice)).join(" or ")
          : `one of ${setting.choices.join(", ")}`;
      throw new SettingError(`${raw.source} must be ${expected}, got ${JSON.stringify(raw.value)}.`);
    },
    list(key: KeysOfKind<"list">): string[] | undefined {
      const setting: (typeof SETTINGS)[typeof key] & { lowerCase?: boolean } = SETTINGS[key];
      const items = parseList(given(setting)?.value);
      return setting.lowerCase ? items?.map((item) => item.toLowerCase()) : items;
    },
  };
}

function parseBoolean(source: string, text: string): boolean {
  const value = text.trim().toLowerCase();
  if (["true", "1", "yes", "on"].includes(value)) return true;
  if (["false", "0", "no", "off"].includes(value)) return false;
  throw new SettingError(`${source} must be true or false, got ${JSON.stringify(text)}.`);
}

/** The start-up filter from `--include-tags`... / `<PREFIX>_INCLUDE_TAGS`...; empty when nothing is filtered. */
function readFilter(read: ReturnType<typeof settingReader>): ToolFilter {
  const filter: ToolFilter = {};
  const includeTags = read.list("includeTags");
  const excludeTags = read.list("excludeTags");
  const includeOperations = read.list("includeOperations");
  const excludeOperations = read.list("excludeOperations");
  const methods = read.list("methods");
  if (includeTags) filter.includeTags = includeTags;
  if (excludeTags) filter.excludeTags = excludeTags;
  if (includeOperations) filter.includeOperations = includeOperations;
  if (excludeOperations) filter.excludeOperations = excludeOperations;
  if (methods) filter.methods = methods;
  if (read.boolean("readOnly")) filter.readOnly = true;
  return filter;
}

/** The command-line flags, as given; the options come from the settings table. */
function parseFlags(argv: string[], api: UsageApi): Flags {
  const options: Record<string, { type: "string" | "boolean"; short?: string }> = {
    help: { type: "boolean", short: "h" },
  };
  for (const setting of Object.values(SETTINGS) as SettingDefinition[]) {
    if (setting.flag !== undefined) options[setting.flag] = { type: setting.kind === "boolean" ? "boolean" : "string" };
  }
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values as Flags;
  } catch (error) {
    throw new ConfigError(`${error instanceof Error ? error.message : String(error)}\n\n${usage(api)}`);
  }
}
