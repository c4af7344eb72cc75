/**
 * Credential hygiene and the opt-in audit trail (design pattern 10).
 *
 * - `credentialSecrets`: every credential value this server holds (the
 *   security schemes' env vars, the MCP endpoint token), with the encodings
 *   they travel in (Basic base64, percent-encoding), so a value can be
 *   recognised wherever an upstream echoes it.
 * - `scrubResult`: the last line of defence before a tool result leaves the
 *   process: any credential value in it is replaced by `[redacted ENV_NAME]`.
 * - `AuditTrail`: one JSON line per tool call (`<PREFIX>_AUDIT_LOG`):
 *   `{ ts, tool, status, error_code?, duration_ms, arguments }`, arguments
 *   redacted: values of keys that look secret (token, password, secret, key,
 *   authorization, cookie...) are replaced, credential values anywhere are
 *   replaced, and long strings are cut so one huge call cannot flood the file.
 */
import { closeSync, openSync, writeSync } from "node:fs";
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { Env } from "../upstream/auth.js";
import { schemeEnvNames } from "../shared/credentials.js";
import type { ApiData } from "../shared/tool-data.js";

export interface Secret {
  value: string;
  /** The env var it comes from, named in the replacement. */
  env: string;
}

/** Shorter values are not redacted: they would match ordinary text. */
const MIN_SECRET_LENGTH = 4;
/** Argument names whose values never reach the audit trail. */
export const SECRET_ARGUMENT_NAME =
  /token|passw|secret|key|authori[sz]ation|^auth$|credential|cookie|session|signature|private/i;
const MAX_AUDIT_STRING = 256;
const MAX_AUDIT_ITEMS = 50;
const MAX_AUDIT_DEPTH = 8;

export function credentialSecrets(api: ApiData, env: Env, extraEnvNames: string[] = []): Secret[] {
  const secrets: Secret[] = [];
  const add = (name: string, value: string | undefined) => addSecret(secrets, name, value);
  for (const scheme of api.securitySchemes) {
    if (scheme.kind === "basic") {
      const username = env[scheme.usernameEnv];
      const password = env[scheme.passwordEnv];
      add(scheme.usernameEnv, username);
      add(scheme.passwordEnv, password);
      if (username) add(scheme.passwordEnv, Buffer.from(`${username}:${password ?? ""}`, "utf8").toString("base64"));
    } else {
      for (const name of schemeEnvNames(scheme)) add(name, env[name]);
    }
  }
  for (const name of extraEnvNames) add(name, env[name]);
  return bySecretLength(secrets);
}

/** Adds a value (and its percent-encoded form) unless it is too short to redact safely or already known. */
export function addSecret(secrets: Secret[], name: string, value: string | undefined): void {
  if (value === undefined || value.length < MIN_SECRET_LENGTH) return;
  for (const form of new Set([value, encodeURIComponent(value)]))
    if (!secrets.some((secret) => secret.value === form)) secrets.push({ value: form, env: name });
}

/** Longest first, so a secret that contains another is replaced whole. */
export function bySecretLength(secrets: Secret[]): Secret[] {
  return secrets.sort((a, b) => b.value.length - a.value.length);
}

export function redactText(text: string, secrets: readonly Secret[]): string {
  let out = text;
  for (const secret of secrets)
    if (out.includes(secret.value)) out = out.split(secret.value).join(`[redacted ${secret.env}]`);
  return out;
}

function mapStrings(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === "string") return map(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, map));
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[map(key)] = mapStrings(item, map);
    return out;
  }
  return value;
}

/** The result with every credential value replaced; the same object when none occurs (the common case). */
export function scrubResult(result: CallToolResult, secrets: readonly Secret[]): CallToolResult {
  if (secrets.length === 0) return result;
  const text = JSON.stringify(result);
  if (!secrets.some((secret) => text.includes(secret.value))) return result;
  return mapStrings(result, (value) => redactText(value, secrets)) as CallToolResult;
}

/** Arguments as the audit trail records them. */
export function redactArguments(value: unknown, secrets: readonly Secret[], depth = 0): unknown {
  if (typeof value === "string") {
    const text = redactText(value, secrets);
    return text.length > MAX_AUDIT_STRING ? `${text.slice(0, MAX_AUDIT_STRING)}… (${text.length} chars)` : text;
  }
  if (value === null || typeof value !== "object") return value;
  if (depth >= MAX_AUDIT_DEPTH) return "[…]";
  if (Array.isArray(value)) {
    const items = value.slice(0, MAX_AUDIT_ITEMS).map((item) => redactArguments(item, secrets, depth + 1));
    if (value.length > MAX_AUDIT_ITEMS) items.push(`… (${value.length - MAX_AUDIT_ITEMS} more items)`);
    return items;
  }
  const out: Record<string, unknown> = {};
  const entries = Object.entries(value);
  for (const [key, item] of entries.slice(0, MAX_AUDIT_ITEMS)) {
    const name = redactText(key, secrets).slice(0, MAX_AUDIT_STRING);
    out[name] =
      SECRET_ARGUMENT_NAME.test(key) && item !== null && item !== undefined
        ? "[redacted]"
        : redactArguments(item, secrets, depth + 1);
  }
  if (entries.length > MAX_AUDIT_ITEMS) out["…"] = `${entries.length - MAX_AUDIT_ITEMS} more keys`;
  return out;
}

export interface AuditEntry {
  tool: string;
  args: unknown;
  result: CallToolResult;
  durationMs: number;
  /** This call's secrets when they differ from the trail's (an OAuth2 access token fetched since it opened). */
  secrets?: readonly Secret[];
}

/** Appends one JSON line per call; synchronous, so the line is on disk when the client gets the result. */
export class AuditTrail {
  private fd: number | undefined;
  private failed = false;

  constructor(
    readonly path: string,
    private readonly secrets: readonly Secret[],
    private readonly log: (line: string) => void,
  ) {
    // 0600: the trail says who called what; it is nobody else's business.
    this.fd = openSync(path, "a", 0o600);
  }

  record(entry: AuditEntry): void {
    if (this.fd === undefined) return;
    const error = entry.result.isError
      ? (entry.result.structuredContent as { error?: { code?: unknown } } | undefined)?.error?.code
      : undefined;
    const secrets = entry.secrets ?? this.secrets;
    const line = {
      ts: new Date().toISOString(),
      tool: redactText(entry.tool, secrets).slice(0, MAX_AUDIT_STRING),
      status: entry.result.isError ? "error" : "ok",
      ...(entry.result.isError && { error_code: typeof error === "string" ? error : "ERROR" }),
      duration_ms: Math.round(entry.durationMs),
      arguments: redactArguments(entry.args ?? {}, secrets),
    };
    try {
      writeSync(this.fd, `${JSON.stringify(line)}\n`);
    } catch (error) {
      if (!this.failed)
        this.log(
          `audit log ${this.path}: write failed (${error instanceof Error ? error.message : String(error)}); ` +
            `further failures are not reported`,
        );
      this.failed = true;
    }
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
