/**
 * The MCP layer over a `ToolRuntime`: a low-level SDK `Server` whose
 * tools/list and tools/call handlers delegate to the runtime. Cheap to
 * create, so the HTTP entry builds one per request.
 *
 * One factory serves both protocol eras (the SDK's serving entries decide
 * the era per connection on stdio, per request on HTTP):
 * - 2025-11-25 and earlier (`legacy`): the initialize handshake; a
 *   destructive call is confirmed through a pushed `elicitation/create` when
 *   the client declared elicitation on a live connection.
 * - 2026-07-28 (`modern`): no handshake; `server/discover` (the SDK answers
 *   it) and cache hints on tools/list and server/discover; a destructive call
 *   is confirmed by returning `input_required` with a form elicitation when
 *   the request declares elicitation, and the client retries with the answer.
 * Everywhere else the `_confirm: true` argument is the fallback.
 *
 * The low-level `Server`, not `McpServer`: the tool schemas are raw JSON
 * Schema from the data file, and validation is ours (Ajv, with guided errors
 * and corrective_params) — the SDK checks only that `arguments` is an object.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import {
  CLIENT_CAPABILITIES_META_KEY,
  Server,
  inputRequired,
  inputResponse,
  type CacheHint,
  type CacheScope,
  type CallToolResult,
  type ClientCapabilities,
  type ElicitResult,
  type InputRequiredResult,
  type ServerContext,
  type Tool,
} from "@modelcontextprotocol/server";
import type { ConfirmationAnswer } from "../call/outcomes.js";
import type { ApiData, ToolMode, ToolsFile } from "../shared/tool-data.js";
import {
  composeInstructions,
  createToolRuntime,
  type CallSession,
  type ServerOptions,
  type ToolRuntime,
} from "../server/runtime.js";
import { pagedListing, type PagedListing } from "./listing.js";

export type ProtocolEra = "legacy" | "modern";

export interface McpLayerOptions {
  /**
   * Who may cache tools/list and server/discover (2026-07-28): `public` when
   * the listing is the same for every caller and reveals nothing private;
   * default `private` — shared caches must not hand it across callers.
   */
  cacheScope?: CacheScope;
  /**
   * Send each HTTP request's bearer token (checked and attached by mcp/http.ts) upstream as Authorization,
   * so each user acts as themselves (`api.forwardAuthorization`). Off by default.
   */
  forwardAuthorization?: boolean;
}

/**
 * How long a 2026-07-28 client may treat tools/list and server/discover as
 * fresh. They change only when the server restarts (new data file, new
 * flags), so an hour; a restarted server is picked up on the next refresh.
 */
export const LIST_TTL_MS = 3_600_000;

/**
 * The HTTP entry (mcp/http.ts) runs each POST under an AbortSignal of its own that aborts when the client's
 * connection closes before the answer is sent; a tools/call joins it to `ctx.mcpReq.signal`. The SDK's own
 * path does not reach a call reliably on Node's fetch Request: a 2025-era request is served from
 * `request.clone()`, whose signal follows the original only through a WeakRef (nodejs/undici#4068), so a
 * GC between the call's start and the drop loses the abort and the upstream request runs to its end.
 */
const connectionSignal = new AsyncLocalStorage<AbortSignal>();

/** Runs `serve` (one HTTP request's MCP handling) with `signal` as the connection every tools/call in it watches. */
export function watchingConnection<T>(signal: AbortSignal, serve: () => T): T {
  return connectionSignal.run(signal, serve);
}

/** The MCP request's signal, also aborted when the HTTP connection it came on drops (plain listeners: held strongly). */
function callSignal(request: AbortSignal): AbortSignal {
  const connection = connectionSignal.getStore();
  if (connection === undefined) return request;
  const either = new AbortController();
  for (const source of [request, connection]) {
    if (source.aborted) either.abort(source.reason);
    else source.addEventListener("abort", () => either.abort(source.reason), { once: true });
  }
  return either.signal;
}

/** The `input_required` key and form for a destructive call's confirmation. */
const CONFIRM_KEY = "confirm";
const CONFIRM_SCHEMA = {
  type: "object" as const,
  properties: {
    confirm: { type: "boolean" as const, title: "Confirm", description: "Run this destructive operation." },
  },
  required: ["confirm"],
};

/** Layer-level state shared by every `Server` built over one runtime (the paged listing, the advertised output schemas). */
interface Shared {
  listing: PagedListing;
  outputSchemas: () => Map<string, Tool["outputSchema"]>;
}
const sharedByRuntime = new WeakMap<ToolRuntime, Shared>();

function sharedFor(runtime: ToolRuntime): Shared {
  let shared = sharedByRuntime.get(runtime);
  if (!shared) {
    let schemas: Map<string, Tool["outputSchema"]> | undefined;
    shared = {
      listing: pagedListing(() => runtime.listTools()),
      outputSchemas: () => (schemas ??= new Map(runtime.listTools().map((tool) => [tool.name, tool.outputSchema]))),
    };
    sharedByRuntime.set(runtime, shared);
  }
  return shared;
}

/**
 * A runtime built on first use (stdio), with what `initialize` and `server/discover` need known up front,
 * so the throwaway `server/discover` probe of a 2026-07-28 client can answer without building it.
 */
export interface DeferredRuntime {
  api: ApiData;
  /** The server instructions when they are known without the runtime (see `instructionsWithoutTools`); else built. */
  instructions?: string;
  get(): ToolRuntime;
}

/** A `Server` over an existing runtime (cheap, so HTTP can create one per request), or over one built on first use. */
export function createServerFromRuntime(source: ToolRuntime | DeferredRuntime, options: McpLayerOptions = {}): Server {
  const deferred = "get" in source ? source : undefined;
  const runtimeOf = deferred ? () => deferred.get() : () => source as ToolRuntime;
  const api = deferred ? deferred.api : runtimeOf().toolsFile.api;
  const hint: CacheHint = { ttlMs: LIST_TTL_MS, cacheScope: options.cacheScope ?? "private" };
  const server = new Server(
    { name: api.name, title: api.title, version: api.version, ...(api.icons?.length && { icons: api.icons }) },
    {
      capabilities: { tools: {} },
      instructions: deferred?.instructions ?? runtimeOf().instructions,
      cacheHints: { "tools/list": hint, "server/discover": hint },
    },
  );
  const shared = () => sharedFor(runtimeOf());

  server.setRequestHandler("tools/list", (request) => shared().listing.page(request.params?.cursor));
  server.setRequestHandler("tools/call", async (request, ctx): Promise<CallToolResult | InputRequiredResult> => {
    const runtime = runtimeOf();
    const { name } = request.params;
    const modern = ctx.mcpReq.envelope !== undefined;
    const confirmation = modern ? modernConfirmation(ctx) : legacyConfirmation(server);
    const forwardedToken = options.forwardAuthorization ? ctx.http?.authInfo?.token : undefined;
    const session: CallSession = {
      signal: callSignal(ctx.mcpReq.signal),
      ...(forwardedToken !== undefined && { forwardedToken }),
      ...(confirmation.confirm && { confirm: confirmation.confirm }),
      ...progressReporter(request.params._meta?.progressToken, ctx),
    };
    const result = await runtime.callTool(name, request.params.arguments, session);
    const ask = confirmation.pending();
    if (ask !== undefined) {
      return inputRequired({
        inputRequests: {
          [CONFIRM_KEY]: inputRequired.elicit({ mode: "form", message: ask, requestedSchema: CONFIRM_SCHEMA }),
        },
      });
    }
    // Array (or other non-object) structuredContent is fine on 2026-07-28; 2025 needs an object, so the SDK wraps it there.
    return server.projectCallToolResult(
      result,
      shared().outputSchemas().get(name) as Record<string, unknown> | undefined,
    );
  });
  return server;
}

export function createServer(toolsFile: ToolsFile, options: ServerOptions = {}): Server {
  return createServerFromRuntime(createToolRuntime(toolsFile, options));
}

/**
 * The instructions a runtime over `api` would have, when they do not depend on the operations: in per-operation
 * mode, chosen explicitly (`--tools`, `<PREFIX>_TOOLS` or the data file's `api.toolMode`). `auto` depends on
 * how many operations the start-up filter leaves, and discovery names that count: undefined then.
 */
export function instructionsWithoutTools(
  api: ApiData,
  toolMode: ToolMode | undefined,
  confirmDestructive = true,
): string | undefined {
  return (toolMode ?? api.toolMode) === "per-operation" ? composeInstructions(api, confirmDestructive) : undefined;
}

interface Confirmation {
  confirm?: CallSession["confirm"];
  /** The question to put to the user through `input_required`, when the runtime asked and no answer came with the request. */
  pending(): string | undefined;
}

/** Thrown by a deferred confirm: the runtime answers CONFIRMATION_REQUIRED, which the layer replaces with input_required. */
class ConfirmationDeferred extends Error {
  constructor() {
    super("the question goes back to the client as input_required; the call is retried with the answer");
  }
}

/**
 * 2026-07-28: no server→client requests. With elicitation declared on the
 * request, the first round defers (and becomes input_required); the retry
 * carries the user's answer in `inputResponses`. Without it, `_confirm`.
 */
function modernConfirmation(ctx: ServerContext): Confirmation {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
  if (!canAskForm(capabilities)) return { pending: () => undefined };
  const answer = inputResponse(ctx.mcpReq.inputResponses, CONFIRM_KEY);
  if (answer.kind === "elicit") {
    const verdict: "accept" | ConfirmationAnswer =
      answer.action === "accept" ? (answer.content?.[CONFIRM_KEY] === true ? "accept" : "decline") : answer.action;
    return { confirm: async () => verdict, pending: () => undefined };
  }
  let asked: string | undefined;
  return {
    confirm: async (message) => {
      asked = message;
      throw new ConfirmationDeferred();
    },
    pending: () => asked,
  };
}

/** 2025: push `elicitation/create` on the live connection (never possible on stateless HTTP: no initialize was seen). */
function legacyConfirmation(server: Server): Confirmation {
  if (!canAskForm(server.getClientCapabilities())) return { pending: () => undefined };
  return {
    confirm: async (message, signal) => {
      // A raw request: elicitInput insists on `elicitation.form`, which clients from before form/url modes do not send.
      const answer: ElicitResult = await server.request(
        { method: "elicitation/create", params: { message, requestedSchema: CONFIRM_SCHEMA } },
        { signal },
      );
      if (answer.action !== "accept") return answer.action;
      return answer.content?.[CONFIRM_KEY] === true ? "accept" : "decline";
    },
    pending: () => undefined,
  };
}

/** Form elicitation: declared explicitly, or an empty `elicitation: {}` (clients from before form/url modes). */
function canAskForm(capabilities: ClientCapabilities | undefined): boolean {
  const elicitation = capabilities?.elicitation;
  return elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
}

function progressReporter(
  progressToken: string | number | undefined,
  ctx: ServerContext,
): Pick<CallSession, "progress"> {
  if (progressToken === undefined) return {};
  return {
    progress: (progress, total, message) =>
      ctx.mcpReq.notify({
        method: "notifications/progress",
        params: { progressToken, progress, ...(total !== undefined && { total }), message },
      }),
  };
}
