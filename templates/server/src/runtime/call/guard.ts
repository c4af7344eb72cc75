/**
 * What every tools/call passes through, whatever the tool mode or transport:
 *
 *   arguments larger than maxArgumentBytes -> INVALID_ARGUMENTS, nothing runs
 *   the call                               -> the runtime's callTool
 *   the result                             -> credential values scrubbed (audit.ts)
 *   the audit trail                        -> one JSON line, when configured
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import { addSecret, AuditTrail, bySecretLength, credentialSecrets, scrubResult, type Secret } from "./audit.js";
import type { Env } from "../upstream/auth.js";
import type { HardeningSettings } from "../config/hardening.js";
import { secretSettingEnv } from "../config/settings.js";
import type { ToolArguments } from "../hook-types.js";
import type { Outcomes } from "./outcomes.js";
import type { ApiData } from "../shared/tool-data.js";
import type { ClientCredentialsTokens } from "../upstream/oauth.js";

export type CallTool<S> = (name: string, args: ToolArguments | undefined, session?: S) => Promise<CallToolResult>;

/** Env vars whose values are secret besides the security schemes': the settings table's secrets (MCP token, handle key). */
export function extraSecretEnv(api: Pick<ApiData, "envPrefix">): string[] {
  return secretSettingEnv(api.envPrefix);
}

export function guardCallTool<S>(
  callTool: CallTool<S>,
  api: ApiData,
  env: Env,
  settings: HardeningSettings,
  log: (line: string) => void,
  outcomes: Pick<Outcomes, "onArgumentsTooLarge" | "render">,
  tokens?: Pick<ClientCredentialsTokens, "current">,
): CallTool<S> {
  const secrets = credentialSecrets(api, env, extraSecretEnv(api));
  // OAuth2 access tokens the server fetched come and go; they are scrubbed like the env vars' values.
  // So is a caller's forwarded bearer token (api.forwardAuthorization): an upstream may echo it.
  const currentSecrets = (session: S | undefined): readonly Secret[] => {
    const held = tokens?.current() ?? [];
    const forwarded = forwardedTokenOf(session);
    if (held.length === 0 && forwarded === undefined) return secrets;
    const all = [...secrets];
    for (const { scheme, token } of held) addSecret(all, `access token of ${scheme}`, token);
    addSecret(all, "forwarded Authorization", forwarded);
    return bySecretLength(all);
  };
  // Opened at the first call, not at start-up: a process that only answers a probe (server/discover) touches no file.
  let audit: AuditTrail | undefined;
  let opened = false;
  const auditTrail = (): AuditTrail | undefined => {
    if (opened || !settings.auditLog) return audit;
    opened = true;
    try {
      audit = new AuditTrail(settings.auditLog, secrets, log);
    } catch (error) {
      log(
        `${api.name}: cannot open the audit log ${settings.auditLog}: ` +
          `${error instanceof Error ? error.message : String(error)}; tool calls are NOT audited`,
      );
    }
    return audit;
  };

  return async (name, args, session) => {
    const startedAt = performance.now();
    const bytes = argumentBytes(args);
    let result: CallToolResult;
    if (bytes > settings.maxArgumentBytes) {
      log(
        `${api.name}: ${JSON.stringify(name.slice(0, 64))} refused: ${bytes} bytes of arguments (limit ${settings.maxArgumentBytes})`,
      );
      result = outcomes.render(outcomes.onArgumentsTooLarge(name, bytes, settings.maxArgumentBytes, api));
    } else {
      try {
        result = await callTool(name, args, session);
      } catch (error) {
        auditTrail()?.record({
          tool: name,
          args,
          result: { isError: true, content: [], structuredContent: { error: { code: "INTERNAL_ERROR" } } },
          durationMs: performance.now() - startedAt,
        });
        throw error;
      }
    }
    const callSecrets = currentSecrets(session);
    result = scrubResult(result, callSecrets);
    auditTrail()?.record({
      tool: name,
      args,
      result,
      durationMs: performance.now() - startedAt,
      secrets: callSecrets,
    });
    return result;
  };
}

function forwardedTokenOf(session: unknown): string | undefined {
  if (typeof session !== "object" || session === null || !("forwardedToken" in session)) return undefined;
  return typeof session.forwardedToken === "string" ? session.forwardedToken : undefined;
}

/** UTF-8 bytes of the arguments as JSON; what the client sent is already parsed, so this is an upper-bound estimate of it. */
function argumentBytes(args: unknown): number {
  if (args === undefined) return 0;
  try {
    return Buffer.byteLength(JSON.stringify(args) ?? "", "utf8");
  } catch {
    return 0;
  }
}
