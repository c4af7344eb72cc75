/**
 * What the parts of a tool runtime share, built once by `createToolRuntime`
 * (runtime.ts) and handed to each part: the call path (call-tool.ts), the
 * long-running operations (operations.ts) and execution (call/execute.ts).
 */
import type { OperationRegistry } from "../call/long-running.js";
import type { ResponseCache } from "../call/response-cache.js";
import type { ConfirmationAnswer, OutcomeContext, Outcomes } from "../call/outcomes.js";
import type { ToolValidators } from "../call/validation.js";
import type { Handler, Hooks } from "../hook-types.js";
import type { ApiData, ToolData } from "../shared/tool-data.js";
import type { Env } from "../upstream/auth.js";
import type { ClientCredentialsTokens } from "../upstream/oauth.js";
import type { ResilientUpstream } from "../upstream/resilience.js";

/** What a call can ask of the client that made it. */
export interface CallSession {
  signal?: AbortSignal;
  /**
   * Asks the user to confirm a destructive call (MCP elicitation). Absent
   * when the client did not declare the `elicitation` capability.
   */
  confirm?: (message: string, signal: AbortSignal) => Promise<"accept" | ConfirmationAnswer>;
  /** Reports progress while a call waits (MCP `notifications/progress`); absent when the client sent no progressToken. */
  progress?: (progress: number, total: number | undefined, message: string) => Promise<void>;
  /** The MCP request's own bearer token, sent upstream as Authorization (`api.forwardAuthorization`, HTTP only). */
  forwardedToken?: string;
}

export interface RuntimeParts {
  api: ApiData;
  env: Env;
  /** The API's tools after the start-up filter (the reserved tools are not among them). */
  tools: readonly ToolData[];
  toolsByName: ReadonlyMap<string, ToolData>;
  hooks: Hooks;
  handlers: Record<string, Handler>;
  outcomes: Outcomes;
  outcomeContext: OutcomeContext;
  validators: ToolValidators;
  cache: ResponseCache;
  upstream: ResilientUpstream;
  /** OAuth2 access tokens the server fetches itself (client-credentials flows). */
  tokens: ClientCredentialsTokens;
  log: (line: string) => void;
  timeoutMs: number;
  maxResponseBytes: number;
  confirmDestructive: boolean;
  waitTimeoutMs: number;
  pollIntervalMs: number;
  operations: OperationRegistry;
}
