/**
 * The tool runtime: everything per process, built once from the data file —
 * the filtered tools, the tool mode's surface, compiled validators, the
 * listing, the response cache, the call path. MCP `Server` instances
 * (mcp/server.ts) are cheap wrappers around it, which is what lets the
 * stateless HTTP transport create one per request.
 *
 * The parts: listing.ts (tools/list), call-tool.ts (tools/call: route,
 * prepare, confirm), call/execute.ts (handler or HTTP operation, hooks),
 * operations.ts (202 long-running operations), call/guard.ts (size limit,
 * secret scrubbing, audit), and the outcome layer (guidance/outcomes.ts by
 * default) that turns each end of a call into a result.
 */
import type { CallToolResult, Tool } from "@modelcontextprotocol/server";
import { guardCallTool } from "../call/guard.js";
import type { OutcomeContext, Outcomes } from "../call/outcomes.js";
import { OperationRegistry } from "../call/long-running.js";
import { ResponseCache } from "../call/response-cache.js";
import { RESERVED_TOOL_NAMES } from "../call/types.js";
import { compileValidators, type ToolValidators } from "../call/validation.js";
import { hardeningSettings, type HardeningOptions } from "../config/hardening.js";
import { settingDefault } from "../config/settings.js";
import { prepareToolNames } from "../guidance/errors.js";
import { guidedOutcomes } from "../guidance/outcomes.js";
import { reservedTools } from "../guidance/reserved.js";
import type { Handler, Hooks, ToolArguments } from "../hook-types.js";
import { createSurface, resolveToolMode } from "../modes/modes.js";
import type { ResolvedMode, Surface } from "../modes/types.js";
import { filterTools, isEmptyFilter, type ToolFilter } from "../shared/filter.js";
import type { ApiData, ToolData, ToolMode, ToolsFile } from "../shared/tool-data.js";
import type { Env } from "../upstream/auth.js";
import { ClientCredentialsTokens } from "../upstream/oauth.js";
import { resolveBaseUrl } from "../upstream/request.js";
import { ResilientUpstream } from "../upstream/resilience.js";
import { createCallTool } from "./call-tool.js";
import type { CallSession, RuntimeParts } from "./context.js";
import { createListTools } from "./listing.js";

export type { CallSession } from "./context.js";

/**
 * The runtime's options: the entry fills them from the configuration it resolved once (config/config.ts);
 * anything left out takes the settings table's default (config/settings.ts).
 */
export interface ServerOptions extends HardeningOptions {
  /** Generated registry of handlers for JSON-Schema (handler-backed) tools, keyed by tool name. */
  handlers?: Record<string, Handler>;
  hooks?: Hooks;
  /** Where credentials and the base URL override are read (the entry passes the process environment); default none. */
  env?: Env;
  /** Upstream deadline per call; defaults to `api.timeoutMs`. */
  timeoutMs?: number;
  maxResponseBytes?: number;
  /** Progressive-disclosure budget in JSON characters; default 20 000. */
  responseBudgetChars?: number;
  /** Destructive tools need `"_confirm": true` (or an elicitation answer); default true. */
  confirmDestructive?: boolean;
  /** Where oversized responses wait for `read_response`; default a fresh per-runtime cache. */
  cache?: ResponseCache;
  /** Replacement result builders; the default is the guidance layer. */
  outcomes?: Partial<Outcomes>;
  /** One line per call; defaults to stderr, because stdout carries the stdio protocol. */
  log?: (line: string) => void;
  /** Overrides `api.toolMode` (`--tools` / `<PREFIX>_TOOLS`); default the data file's, else `auto`. */
  toolMode?: ToolMode;
  /** Start-up filter, applied before anything else: a filtered-out operation is unknown in every mode. */
  filter?: ToolFilter;
  /** How long `wait: true` waits for a long-running operation; default 60 000 ms. */
  waitTimeoutMs?: number;
  /** Pause between status polls when the upstream sends no Retry-After; default 1000 ms. */
  pollIntervalMs?: number;
  /** Where long-running operation handles live; default a fresh per-runtime registry (see runtime/stateless/operations.ts). */
  operations?: OperationRegistry;
}

export interface ToolRuntime {
  /** The data file, with the start-up filter applied to `tools`. */
  readonly toolsFile: ToolsFile;
  /** The surface in use: per-operation, dispatch or discovery (`auto` resolved). */
  readonly mode: ResolvedMode;
  readonly validators: ToolValidators;
  /** Server `instructions`: the API's own, then the workflow through info, _confirm and read_response. */
  readonly instructions: string;
  listTools(): Tool[];
  callTool(name: string, args: ToolArguments | undefined, session?: AbortSignal | CallSession): Promise<CallToolResult>;
}

const DEFAULT_POLL_INTERVAL_MS = 1000;

/** The workflow paragraph for the mode in use, appended to the API's own instructions. */
export function composeInstructions(
  api: ApiData,
  confirmDestructive: boolean,
  surface?: Pick<Surface, "workflow">,
): string {
  const workflow = (
    surface ?? createSurface({ api, tools: [], toolsByName: new Map(), mode: "per-operation" })
  ).workflow(confirmDestructive);
  const own = api.instructions.trim();
  return own ? `${own}\n\n${workflow}` : workflow;
}

export function createToolRuntime(toolsFile: ToolsFile, options: ServerOptions = {}): ToolRuntime {
  const { api } = toolsFile;
  const env = options.env ?? {};
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const hardening = hardeningSettings(options);
  const tools = startupTools(toolsFile, options.filter, log);
  const toolsByName = new Map(tools.map((tool) => [tool.name, tool]));
  const reserved = new Map(reservedTools(tools).map((tool) => [tool.name, tool]));
  const mode = resolveToolMode(options.toolMode, api, tools.length);
  const surface = createSurface({ api, tools, toolsByName, mode });
  prepareToolNames(tools);
  const validators = compileValidators([...tools, ...reserved.values(), ...surface.tools]);
  const budgetChars = options.responseBudgetChars ?? settingDefault("responseBudgetChars");
  const cache = options.cache ?? new ResponseCache({ pageBudgetChars: budgetChars });
  const timeoutMs = options.timeoutMs ?? api.timeoutMs;
  const outcomes: Outcomes = { ...guidedOutcomes, ...options.outcomes };
  const outcomeContext: OutcomeContext = { api, env, tools, toolsByName, validators, budgetChars, timeoutMs, cache };
  const confirmDestructive = options.confirmDestructive ?? settingDefault("confirmDestructive");
  const tokens = new ClientCredentialsTokens({ env, baseUrl: () => resolveBaseUrl(api, env), timeoutMs });
  const parts: RuntimeParts = {
    api,
    env,
    tools,
    toolsByName,
    hooks: options.hooks ?? {},
    handlers: options.handlers ?? {},
    outcomes,
    outcomeContext,
    validators,
    cache,
    upstream: new ResilientUpstream(hardening.resilience, log),
    tokens,
    log,
    timeoutMs,
    maxResponseBytes: options.maxResponseBytes ?? settingDefault("maxResponseBytes"),
    confirmDestructive,
    waitTimeoutMs: options.waitTimeoutMs ?? settingDefault("waitTimeoutMs"),
    pollIntervalMs: options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
    operations: options.operations ?? new OperationRegistry(),
  };
  const callTool = createCallTool(parts, surface, reserved);
  return {
    toolsFile: tools === toolsFile.tools ? toolsFile : { ...toolsFile, tools },
    mode,
    validators,
    instructions: composeInstructions(api, confirmDestructive, surface),
    listTools: createListTools({ mode, tools, reserved, surface, outcomes, confirmDestructive }),
    callTool: guardCallTool(callTool, api, env, hardening, log, outcomes, tokens),
  };
}

/** The data file's tools minus reserved names, then the start-up filter. */
function startupTools(toolsFile: ToolsFile, filter: ToolFilter | undefined, log: (line: string) => void): ToolData[] {
  const { api } = toolsFile;
  // The generator never emits a reserved name; a hand-edited data file that does loses that tool, loudly.
  const reservedNames = new Set(RESERVED_TOOL_NAMES);
  const unreserved = toolsFile.tools.filter((tool) => !reservedNames.has(tool.name));
  if (unreserved.length !== toolsFile.tools.length) {
    log(
      `${api.name}: ignoring tool(s) named ${RESERVED_TOOL_NAMES.join("/")}: those names are reserved for the built-in tools.`,
    );
  }
  // The start-up filter runs before anything else: what it drops is unknown in every mode.
  const tools = filter && !isEmptyFilter(filter) ? filterTools(unreserved, filter) : unreserved;
  if (tools.length === 0 && unreserved.length > 0)
    log(`${api.name}: the start-up filters leave none of the ${unreserved.length} operations.`);
  return tools;
}
