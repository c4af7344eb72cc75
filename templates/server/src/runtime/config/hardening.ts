/**
 * The protective settings of a tool runtime — argument size limit, retries,
 * circuit breaker, audit log — as the runtime uses them. The entry resolves
 * them from flags and `<PREFIX>_*` variables once (config.ts); code that
 * builds a runtime itself passes them in `ServerOptions`, and anything left
 * out takes the settings table's default.
 */
import type { RuntimeConfig } from "./config.js";
import { settingDefault } from "./settings.js";
import type { ResilienceSettings } from "../upstream/resilience.js";

export interface HardeningOptions {
  /** Arguments larger than this (JSON bytes) are refused with INVALID_ARGUMENTS; default 1 MiB. */
  maxArgumentBytes?: number;
  /** Retry and circuit-breaker settings; each defaults to the settings table's. */
  resilience?: Partial<ResilienceSettings>;
  /** JSON-lines audit trail of tool calls; default none. */
  auditLog?: string;
}

export interface HardeningSettings {
  maxArgumentBytes: number;
  resilience: ResilienceSettings;
  auditLog?: string;
}

/** First backoff before a retry; doubled on each further one. Not a setting: `RETRY_MAX_DELAY_MS` bounds it. */
const RETRY_BASE_DELAY_MS = 250;

export const DEFAULT_RESILIENCE: ResilienceSettings = {
  retries: settingDefault("retries"),
  baseDelayMs: RETRY_BASE_DELAY_MS,
  maxDelayMs: settingDefault("retryMaxDelayMs"),
  circuitThreshold: settingDefault("circuitThreshold"),
  circuitCooldownMs: settingDefault("circuitCooldownMs"),
};

export function hardeningSettings(options: HardeningOptions = {}): HardeningSettings {
  return {
    maxArgumentBytes: options.maxArgumentBytes ?? settingDefault("maxArgumentBytes"),
    resilience: { ...DEFAULT_RESILIENCE, ...options.resilience },
    ...(options.auditLog !== undefined && { auditLog: options.auditLog }),
  };
}

/** The hardening part of a resolved configuration, as runtime options. */
export function hardeningOptions(
  config: Pick<
    RuntimeConfig,
    "maxArgumentBytes" | "retries" | "retryMaxDelayMs" | "circuitThreshold" | "circuitCooldownMs" | "auditLog"
  >,
): HardeningOptions {
  return {
    maxArgumentBytes: config.maxArgumentBytes,
    resilience: {
      retries: config.retries,
      maxDelayMs: config.retryMaxDelayMs,
      circuitThreshold: config.circuitThreshold,
      circuitCooldownMs: config.circuitCooldownMs,
    },
    ...(config.auditLog !== undefined && { auditLog: config.auditLog }),
  };
}
