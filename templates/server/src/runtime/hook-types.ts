/**
 * Types for the user-owned extension points in `src/hooks.ts` and for
 * hand-written tool handlers. Kept separate from the server so user code
 * depends on a small, stable surface.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { Env } from "./upstream/auth.js";
import type { CallFailure } from "./call/outcomes.js";
import type { BuiltRequest } from "./upstream/request.js";
import type { ApiData, ToolData } from "./shared/tool-data.js";
import type { UpstreamResponse } from "./upstream/upstream.js";

type Awaitable<T> = T | Promise<T>;

export type ToolArguments = Record<string, unknown>;

export interface HandlerContext {
  tool: ToolData;
  api: ApiData;
  env: Env;
  /** Aborted when the MCP client cancels the call or the upstream deadline passes; pass it on to fetch. */
  signal: AbortSignal;
  timeoutMs: number;
}

/** Implements a tool in code. The resolved value becomes the result's `data`; a throw becomes an error result. */
export type Handler = (args: ToolArguments, context: HandlerContext) => Promise<unknown>;

export interface HookContext {
  tool: ToolData;
  api: ApiData;
  /** The validated arguments of this call. */
  args: ToolArguments;
  env: Env;
  signal: AbortSignal;
}

/** Every hook may return a replacement, or nothing to keep the value as it is. */
export interface ToolHooks {
  /** Runs after auth has been applied, just before the upstream call (add headers, sign, rewrite). */
  beforeRequest?(request: BuiltRequest, context: HookContext): Awaitable<BuiltRequest | void>;
  /** Runs on every upstream response, successful or not, before it is turned into a result. */
  afterResponse?(response: UpstreamResponse, context: HookContext): Awaitable<UpstreamResponse | void>;
  /** Return a result to replace the default error result for this failure. */
  onError?(failure: CallFailure, context: HookContext): Awaitable<CallToolResult | void>;
  /** Last word on every result of a known tool, errors included. */
  transformResult?(result: CallToolResult, context: HookContext): Awaitable<CallToolResult | void>;
}

/**
 * Global hooks run first, then the tool's own (`tools[name]`) for
 * beforeRequest/afterResponse/transformResult; for onError the tool's own hook
 * is asked first, the global one second.
 */
export interface Hooks extends ToolHooks {
  tools?: Record<string, ToolHooks>;
  /** Replace any tool's implementation, including generated HTTP operations, keyed by tool name. */
  handlers?: Record<string, Handler>;
}

/** Identity helper so `src/hooks.ts` gets type checking and completion without importing types by hand. */
export function defineHooks(hooks: Hooks): Hooks {
  return hooks;
}

/** Thrown by a handler stub that has not been written yet; the caller gets a clear "not implemented yet" tool error. */
export class NotImplementedError extends Error {
  override readonly name = "NotImplementedError";
}
