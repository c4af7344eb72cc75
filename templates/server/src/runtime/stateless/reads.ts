/**
 * read_response on any instance. A response that is too large is cached
 * where it was fetched, under a signed handle that also carries the call
 * that produced it. When a page is asked of an instance that does not hold
 * the response (another instance behind a load balancer, or a restart), and
 * the call is read-only, that instance re-runs the call — with its own
 * credentials, exactly as if the caller had made it — caches the result and
 * serves the page. Non-read-only calls are never re-run: their handles
 * answer RESPONSE_EXPIRED with the call to repeat, as before.
 *
 * Trade-off (documented in the README): no shared store to run, at the cost
 * of one upstream request per instance that first serves a handle, and a
 * page from a re-run may come from newer data than the first page. A shared
 * store (Redis...) would keep pages consistent; `ResponseCache` is the seam.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import { errorResult } from "../guidance/result.js";
import { READ_RESPONSE_TOOL, type ToolCall } from "../call/types.js";
import type { CachedResponse } from "../call/response-cache.js";
import type { ToolArguments } from "../hook-types.js";
import type { CallSession, ToolRuntime } from "../server/runtime.js";
import { foreignHandleError, type HandleCodec } from "./handles.js";

/** How long a response handle can be re-served (re-run) after it was issued. */
export const RESPONSE_HANDLE_TTL_MS = 60 * 60_000;

/** `ResponseCache`'s `mintHandle`: a signed handle that names the call behind the response. */
export function responseHandleMinter(codec: HandleCodec): (response: CachedResponse) => string {
  return (response) => codec.mint("resp", response.call, RESPONSE_HANDLE_TTL_MS);
}

/** The runtime, with read_response pages served from a re-run when this instance does not hold the response. */
export function withStatelessReads(runtime: ToolRuntime, codec: HandleCodec): ToolRuntime {
  const readOnly = new Set(
    runtime.toolsFile.tools.filter((tool) => tool.annotations.readOnlyHint).map((tool) => tool.name),
  );

  async function readElsewhere(
    args: ToolArguments,
    missed: CallToolResult,
    session?: AbortSignal | CallSession,
  ): Promise<CallToolResult> {
    const handle = args["handle"];
    if (typeof handle !== "string" || !codec.isSigned("resp", handle)) return missed;
    const opened = codec.open<ToolCall>("resp", handle);
    if (!opened.ok && opened.reason !== "expired")
      return errorResult(foreignHandleError(READ_RESPONSE_TOOL, handle, codec));
    if (!opened.ok || !readOnly.has(opened.value.tool)) return missed;
    const call = opened.value;
    const fresh = await runtime.callTool(call.tool, call.params as ToolArguments, session);
    const freshHandle = (fresh.structuredContent as { detail?: { handle?: unknown } } | undefined)?.detail?.handle;
    // The re-run failed, or now fits in one answer: hand that over, it is the most useful thing there is.
    if (fresh.isError || typeof freshHandle !== "string") return fresh;
    return runtime.callTool(READ_RESPONSE_TOOL, { ...args, handle: freshHandle }, session);
  }

  return {
    get toolsFile() {
      return runtime.toolsFile;
    },
    get mode() {
      return runtime.mode;
    },
    get validators() {
      return runtime.validators;
    },
    get instructions() {
      return runtime.instructions;
    },
    listTools: () => runtime.listTools(),
    async callTool(name, args, session) {
      const result = await runtime.callTool(name, args, session);
      if (name !== READ_RESPONSE_TOOL || !isExpired(result) || args === undefined) return result;
      return readElsewhere(args, result, session);
    },
  };
}

function isExpired(result: CallToolResult): boolean {
  return (
    result.isError === true &&
    (result.structuredContent as { error?: { code?: unknown } } | undefined)?.error?.code === "RESPONSE_EXPIRED"
  );
}
