/**
 * The protective settings of a tool runtime, from `<PREFIX>_*` environment
 * variables unless given in code (`ServerOptions`):
 *
 *   <PREFIX>_MAX_ARGUMENT_BYTES   largest tools/call arguments, as JSON bytes (default 1 MiB)
 *   <PREFIX>_RETRIES              retries of idempotent upstream calls (default 2; 0 = off)
 *   <PREFIX>_RETRY_MAX_DELAY_MS   longest wait before a retry, Retry-After included (default 5000)
 *   <PREFIX>_CIRCUIT_THRESHOLD    consecutive failed calls that open a host's circuit (default 5; 0 = off)
 *   <PREFIX>_CIRCUIT_COOLDOWN_MS  how long an open circuit fails fast (default 30000)
 *   <PREFIX>_AUDIT_LOG            append one JSON line per tool call to this file (default off)
 */
import type { Env } from "../upstream/auth.js";
import { DEFAULT_RESILIENCE, type ResilienceSettings } from "../upstream/resilience.js";
import { parseIntegerSetting } from "../shared/parse.js";

export interface HardeningOptions {
  /** Arguments larger than this (JSON bytes) are refused with INVALID_ARGUMENTS; default 1 MiB. */
  maxArgumentBytes?: number;
  /** Retry and circuit-breaker settings; each defaults to its env var, then to DEFAULT_RESILIENCE. */
  resilience?: Partial<ResilienceSettings>;
  /** JSON-lines audit trail of tool calls; default `<PREFIX>_AUDIT_LOG`, else none. */
  auditLog?: string;
}

export interface HardeningSettings {
  maxArgumentBytes: number;
  resilience: ResilienceSettings;
  auditLog?: string;
}

export const DEFAULT_MAX_ARGUMENT_BYTES = 1024 * 1024;

export function readHardeningSettings(prefix: string, env: Env, options: HardeningOptions = {}): HardeningSettings {
  const overrides = options.resilience ?? {};
  const auditLog = options.auditLog ?? (env[`${prefix}_AUDIT_LOG`]?.trim() || undefined);
  return {
    maxArgumentBytes:
      options.maxArgumentBytes ??
      integerEnv(env, `${prefix}_MAX_ARGUMENT_BYTES`, DEFAULT_MAX_ARGUMENT_BYTES, 1, Number.MAX_SAFE_INTEGER),
    resilience: {
      retries: overrides.retries ?? integerEnv(env, `${prefix}_RETRIES`, DEFAULT_RESILIENCE.retries, 0, 10),
      baseDelayMs: overrides.baseDelayMs ?? DEFAULT_RESILIENCE.baseDelayMs,
      maxDelayMs:
        overrides.maxDelayMs ??
        integerEnv(env, `${prefix}_RETRY_MAX_DELAY_MS`, DEFAULT_RESILIENCE.maxDelayMs, 0, 600_000),
      circuitThreshold:
        overrides.circuitThreshold ??
        integerEnv(env, `${prefix}_CIRCUIT_THRESHOLD`, DEFAULT_RESILIENCE.circuitThreshold, 0, 1_000_000),
      circuitCooldownMs:
        overrides.circuitCooldownMs ??
        integerEnv(env, `${prefix}_CIRCUIT_COOLDOWN_MS`, DEFAULT_RESILIENCE.circuitCooldownMs, 1, 24 * 60 * 60 * 1000),
    },
    ...(auditLog !== undefined && { auditLog }),
  };
}

function integerEnv(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  return raw === undefined || raw.trim() === "" ? fallback : parseIntegerSetting(name, raw, min, max);
}
