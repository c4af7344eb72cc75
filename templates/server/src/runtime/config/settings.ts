/**
 * The settings table: every flag and `<PREFIX>_*` environment variable of a
 * generated server, each with its default, range and description, spelled
 * once. It drives the config parser (config.ts), `--help` (help.ts), the
 * defaults the runtime falls back to, and — imported by the generator — the
 * generated README's configuration table. Imports only types.
 */
import type { ToolMode } from "../shared/tool-data.js";

/** What the table needs of the API's data: the env prefix, and the defaults the data file sets. */
export interface SettingsApi {
  envPrefix: string;
  /** Default upstream timeout (`<PREFIX>_TIMEOUT_MS`). */
  timeoutMs: number;
  /** Default tool mode (`<PREFIX>_TOOLS`); absent: `auto`. */
  toolMode?: ToolMode;
}

interface Common {
  /** The variable's name after `<PREFIX>_`. */
  env: string;
  /** The command-line flag, without `--`; absent: environment only. */
  flag?: string;
  /** One line for `--help`. */
  help: string;
  /** The README's description (Markdown). */
  doc: string;
  /** Its value is a secret: scrubbed from results, errors and the audit trail like a credential (call/guard.ts). */
  secret?: true;
}

export interface IntegerSetting extends Common {
  kind: "integer";
  min: number;
  max: number;
  default: number | ((api: SettingsApi) => number);
}

export interface BooleanSetting extends Common {
  kind: "boolean";
  default: boolean;
  /** The flag takes no value and sets this (`--no-confirm` sets false, `--read-only` true). */
  flagSets?: boolean;
}

export interface TextSetting extends Common {
  kind: "text";
  default?: string;
  /** Placeholder in `--help` (`--host ADDRESS`). */
  placeholder?: string;
}

export interface ChoiceSetting extends Common {
  kind: "choice";
  choices: readonly string[];
  /** Absent: the setting stays unset when not given (the data file decides). */
  default?: string;
  /** For the README and `--help` when the default depends on the data file. */
  describeDefault?: (api: SettingsApi) => string;
  /** Matched after trimming and lower-casing. */
  caseInsensitive?: boolean;
  /** Placeholder in `--help` (`--tools MODE`); default the choices (`stdio|http`). */
  placeholder?: string;
}

/** Comma-separated values (`a, b ,c` → `["a", "b", "c"]`). */
export interface ListSetting extends Common {
  kind: "list";
  lowerCase?: boolean;
}

/** Read at start-up by another module than the config parser (named in `readBy`), from the env the entry passes. */
export interface ExternalSetting extends Common {
  kind: "external";
  readBy: string;
}

export type SettingDefinition =
  IntegerSetting | BooleanSetting | TextSetting | ChoiceSetting | ListSetting | ExternalSetting;

const DAY_MS = 24 * 60 * 60 * 1000;

/** `--tools auto`: one tool per operation up to this many operations, discovery above (recorded in data/tools.json). */
export const DEFAULT_AUTO_THRESHOLD = 40;

export const TOOL_MODES: readonly ToolMode[] = ["per-operation", "dispatch", "discovery", "auto"];

export const SETTINGS = {
  transport: {
    kind: "choice",
    env: "TRANSPORT",
    flag: "transport",
    choices: ["stdio", "http"],
    default: "stdio",
    help: "stdio, or http (Streamable HTTP on /mcp)",
    doc: "`stdio` or `http` (Streamable HTTP on `/mcp`)",
  },
  host: {
    kind: "text",
    env: "HOST",
    flag: "host",
    placeholder: "ADDRESS",
    // Loopback by default: an MCP server holding API credentials must not be reachable from the network by accident.
    default: "127.0.0.1",
    help: "HTTP bind address",
    doc: "HTTP bind address (the default is loopback only)",
  },
  port: {
    kind: "integer",
    env: "PORT",
    flag: "port",
    min: 0,
    max: 65535,
    default: 3000,
    help: "HTTP port",
    doc: "HTTP port",
  },
  mcpToken: {
    kind: "text",
    env: "MCP_TOKEN",
    flag: "mcp-token",
    placeholder: "TOKEN",
    secret: true,
    help: 'HTTP only: require "Authorization: Bearer TOKEN" on /mcp',
    doc:
      "HTTP only: every request to `/mcp` must carry `Authorization: Bearer <token>`, else 401. " +
      "Set it whenever the endpoint is reachable beyond this machine",
  },
  handleKey: {
    kind: "external",
    env: "HANDLE_KEY",
    readBy: "runtime/stateless/handles.ts",
    secret: true,
    help: "signing key (32+ characters) for read_response and operation_status handles",
    doc:
      "Signing key (32+ random characters) for `read_response` and `operation_status` handles. Set the same key " +
      "on every instance behind a load balancer, so any instance can serve any handle; without it each process " +
      "signs with its own random key",
  },
  timeoutMs: {
    kind: "integer",
    env: "TIMEOUT_MS",
    flag: "timeout-ms",
    min: 1,
    max: DAY_MS,
    default: (api) => api.timeoutMs,
    help: "upstream request timeout in milliseconds",
    doc: "Upstream timeout in milliseconds",
  },
  responseBudgetChars: {
    kind: "integer",
    env: "RESPONSE_BUDGET_CHARS",
    flag: "response-budget-chars",
    min: 500,
    max: Number.MAX_SAFE_INTEGER,
    default: 20_000,
    help: "larger results are summarised, the rest read with read_response",
    doc:
      "Results larger than this (JSON characters) come back as a summary; the rest is paged with the " +
      "`read_response` tool",
  },
  confirmDestructive: {
    kind: "boolean",
    env: "CONFIRM_DESTRUCTIVE",
    flag: "no-confirm",
    flagSets: false,
    default: true,
    help: 'run destructive tools without "_confirm": true',
    doc:
      '`true`: destructive tools (DELETE…) run only with `"_confirm": true` or after the user confirms through ' +
      "MCP elicitation; `false` (or flag `--no-confirm`) switches this off",
  },
  toolMode: {
    kind: "choice",
    env: "TOOLS",
    flag: "tools",
    choices: TOOL_MODES,
    caseInsensitive: true,
    placeholder: "MODE",
    describeDefault: (api) => api.toolMode ?? "auto",
    help: "per-operation | dispatch | discovery | auto (per-operation up to the threshold, discovery above)",
    doc: "How tools are exposed: `per-operation`, `dispatch`, `discovery` or `auto` (see below)",
  },
  includeTags: {
    kind: "list",
    env: "INCLUDE_TAGS",
    flag: "include-tags",
    help: "keep operations with these tags",
    doc: "Comma-separated tags to keep",
  },
  excludeTags: {
    kind: "list",
    env: "EXCLUDE_TAGS",
    flag: "exclude-tags",
    help: "drop operations with these tags",
    doc: "Comma-separated tags to hide",
  },
  includeOperations: {
    kind: "list",
    env: "INCLUDE_OPS",
    flag: "include-ops",
    help: "keep tools whose name or operationId matches one of these globs",
    doc: "Globs (`*`, `?`) over tool names and operationIds to keep",
  },
  excludeOperations: {
    kind: "list",
    env: "EXCLUDE_OPS",
    flag: "exclude-ops",
    help: "drop tools whose name or operationId matches one of these globs",
    doc: "Globs (`*`, `?`) over tool names and operationIds to hide",
  },
  methods: {
    kind: "list",
    env: "METHODS",
    flag: "methods",
    lowerCase: true,
    help: "keep these HTTP methods only, e.g. get,post",
    doc: "Only these HTTP methods, e.g. `get,post`",
  },
  readOnly: {
    kind: "boolean",
    env: "READ_ONLY",
    flag: "read-only",
    flagSets: true,
    default: false,
    help: "keep only operations that change nothing",
    doc: "`true`: only safe methods (GET/HEAD/OPTIONS)",
  },
  waitTimeoutMs: {
    kind: "integer",
    env: "WAIT_TIMEOUT_MS",
    flag: "wait-timeout-ms",
    min: 1,
    max: DAY_MS,
    default: 60_000,
    help: 'how long "wait": true waits for a long-running (202) operation',
    doc: "Longest wait for a long-running operation with `wait: true`",
  },
  maxArgumentBytes: {
    kind: "integer",
    env: "MAX_ARGUMENT_BYTES",
    min: 1,
    max: Number.MAX_SAFE_INTEGER,
    default: 1024 * 1024,
    help: "largest tool arguments, in bytes of JSON",
    doc: "Largest tool arguments, in bytes of JSON; larger calls get an `INVALID_LENGTH` error and nothing is sent",
  },
  maxResponseBytes: {
    kind: "integer",
    env: "MAX_RESPONSE_BYTES",
    min: 1,
    max: Number.MAX_SAFE_INTEGER,
    default: 10 * 1024 * 1024,
    help: "largest upstream response body, in bytes",
    doc: "Largest upstream response body, in bytes",
  },
  retries: {
    kind: "integer",
    env: "RETRIES",
    min: 0,
    max: 10,
    default: 2,
    help: "retries of idempotent upstream calls (0 = off)",
    doc:
      "Retries of idempotent upstream calls (GET, HEAD, PUT, DELETE, OPTIONS; POST/PATCH only when the operation " +
      "declares an `Idempotency-Key` header) on 429, 502, 503, 504 and network errors, with exponential backoff " +
      "and jitter, within the call's timeout; `0` turns retrying off",
  },
  retryMaxDelayMs: {
    kind: "integer",
    env: "RETRY_MAX_DELAY_MS",
    min: 0,
    max: 600_000,
    default: 5_000,
    help: "longest wait before a retry, Retry-After included",
    doc:
      "Longest wait before a retry, `Retry-After` included; a longer `Retry-After` is passed to the agent as " +
      "`retry_after_ms` instead of holding the call",
  },
  circuitThreshold: {
    kind: "integer",
    env: "CIRCUIT_THRESHOLD",
    min: 0,
    max: 1_000_000,
    default: 5,
    help: "consecutive failed calls that open a host's circuit (0 = off)",
    doc:
      "Consecutive failed calls (5xx, network error, timeout) after which the circuit breaker for the upstream " +
      "host opens: calls then fail at once with `UPSTREAM_UNAVAILABLE` (`details.circuit`) without calling the " +
      "API; `0` turns it off",
  },
  circuitCooldownMs: {
    kind: "integer",
    env: "CIRCUIT_COOLDOWN_MS",
    min: 1,
    max: DAY_MS,
    default: 30_000,
    help: "how long an open circuit fails fast",
    doc: "How long an open circuit fails fast before one trial call is let through",
  },
  auditLog: {
    kind: "text",
    env: "AUDIT_LOG",
    placeholder: "FILE",
    help: "append one JSON line per tool call to this file",
    doc:
      "Path of a JSON-lines audit trail, one line per tool call: `ts`, `tool`, `status` (`ok`/`error`), " +
      "`error_code`, `duration_ms` and the `arguments`, with values of secret-looking arguments (token, password, " +
      "secret, key, authorization…) and any credential value replaced",
  },
} as const satisfies Record<string, SettingDefinition>;

export type SettingKey = keyof typeof SETTINGS;

/** The default of a setting with a fixed one. */
type FixedDefault<K extends SettingKey> = (typeof SETTINGS)[K] extends { default: infer D }
  ? D extends (...args: never[]) => unknown
    ? never
    : D
  : never;

export function settingDefault<K extends SettingKey>(key: K): FixedDefault<K> {
  return (SETTINGS[key] as { default?: unknown }).default as FixedDefault<K>;
}

/** `<PREFIX>_PORT`... */
export function settingEnv(setting: SettingDefinition, envPrefix: string): string {
  return `${envPrefix}_${setting.env}`;
}

/** The env vars whose values are secrets (`<PREFIX>_MCP_TOKEN`, `<PREFIX>_HANDLE_KEY`). */
export function secretSettingEnv(envPrefix: string): string[] {
  return (Object.values(SETTINGS) as SettingDefinition[])
    .filter((setting) => setting.secret)
    .map((setting) => settingEnv(setting, envPrefix));
}

/** The default as a reader sees it: `3000`, `stdio`, `true`; undefined when the setting is off unless given. */
export function describeSettingDefault(setting: SettingDefinition, api: SettingsApi): string | undefined {
  switch (setting.kind) {
    case "integer":
      return String(typeof setting.default === "function" ? setting.default(api) : setting.default);
    case "boolean":
      return String(setting.default);
    case "choice":
      return setting.describeDefault?.(api) ?? setting.default;
    case "text":
      return setting.default;
    default:
      return undefined;
  }
}

/** The accepted values: `0–65535`, `stdio, http`, `true, false` (no `|`: it would split a Markdown table cell). */
export function describeSettingRange(setting: SettingDefinition): string | undefined {
  switch (setting.kind) {
    case "integer":
      return `${setting.min}–${setting.max === Number.MAX_SAFE_INTEGER ? "…" : setting.max}`;
    case "boolean":
      return "true, false";
    case "choice":
      return setting.choices.join(", ");
    case "list":
      return "a,b,…";
    default:
      return undefined;
  }
}

/** One row of the generated README's configuration table. */
export interface SettingRow {
  env: string;
  flag?: string;
  default?: string;
  range?: string;
  description: string;
}

/** The table's rows for one API, in table order (the README's configuration section). */
export function settingRows(api: SettingsApi): SettingRow[] {
  return Object.values(SETTINGS).map((setting: SettingDefinition) => {
    const fallback = describeSettingDefault(setting, api);
    const range = describeSettingRange(setting);
    return {
      env: settingEnv(setting, api.envPrefix),
      ...(setting.flag !== undefined && { flag: `--${setting.flag}` }),
      ...(fallback !== undefined && { default: fallback }),
      ...(range !== undefined && { range }),
      description: setting.doc,
    };
  });
}
