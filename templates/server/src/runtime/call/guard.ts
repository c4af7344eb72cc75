/**
 * What every tools/call passes through, whatever the tool mode or transport:
 *
 *   arguments larger than maxArgumentBytes -> INVALID_ARGUMENTS, nothing runs
 *   the call                               -> the runtime's callTool
 *   the result                             -> credential values scrubbed (audit.ts)
 *   the audit trail                        -> one JSON line, when configured
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import { AuditTrail, credentialSecrets, scrubResult } from "./audit.js";
import type { Env } from "../upstream/auth.js";
import type { HardeningSettings } from "../config/hardening.js";
import type { ToolArguments } from "../hook-types.js";
import type { Outcomes } from "./outcomes.js";
import type { ApiData } from "../shared/tool-data.js";

export type CallTool<S> = (name: string, args: ToolArguments | undefined, session?: S) => Promise<CallToolResult>;

/** Env vars whose values are secret besides the security schemes': the MCP endpoint token, the handle signing key. */
export function extraSecretEnv(api: Pick<ApiData, "envPrefix">): string[] {
  return [`${api.envPrefix}_MCP_TOKEN`, `${api.envPrefix}_HANDLE_KEY`];
}

export function guardCallTool<S>(
  callTool: CallTool<S>,
  api: ApiData,
  env: Env,
  settings: HardeningSettings,
  log: (line: string) => void,
  outcomes: Pick<Outcomes, "onArgumentsTooLarge">,
): CallTool<S> {
  const secrets = credentialSecrets(api, env, extraSecretEnv(api));
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
      result = outcomes.onArgumentsTooLarge(name, bytes, settings.maxArgumentBytes, api);
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
    result = scrubResult(result, secrets);
    auditTrail()?.record({ tool: name, args, result, durationMs: performance.now() - startedAt });
    return result;
  };
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
