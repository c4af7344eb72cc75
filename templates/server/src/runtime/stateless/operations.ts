/**
 * operation_status on any instance. A long-running operation's handle is
 * signed and carries what polling needs — the tool, the status URL, whether
 * it may be polled (same origin as the API), the call's arguments and the
 * start time — so an instance that did not start the operation rebuilds it
 * from the handle and polls the status URL itself. The status URL comes only
 * from a handle this deployment signed, so a client cannot point the server
 * (and its credentials) anywhere else.
 */
import type { PreparedCall } from "../call/outcomes.js";
import { OperationRegistry, type PendingOperation } from "../call/long-running.js";
import type { ToolData } from "../shared/tool-data.js";
import type { HandleCodec } from "./handles.js";

/** Arguments larger than this (JSON characters) stay out of the handle; the result envelope then shows no call context. */
const MAX_SEALED_ARGS_CHARS = 4_000;
const HANDLE_TTL_MS = 24 * 60 * 60_000;

interface SealedOperation {
  t: string;
  u: string;
  p: boolean;
  a: Record<string, unknown>;
  s: number;
}

export class StatelessOperationRegistry extends OperationRegistry {
  private readonly local = new Map<string, PendingOperation>();

  constructor(
    private readonly codec: HandleCodec,
    private readonly toolNamed: (name: string) => ToolData | undefined,
    private readonly maxLocal = 500,
  ) {
    super();
  }

  override create(tool: ToolData, call: PreparedCall, statusUrl: URL, pollable: boolean): PendingOperation {
    const startedAt = Date.now();
    const args = JSON.stringify(call.args).length <= MAX_SEALED_ARGS_CHARS ? call.args : {};
    const sealed: SealedOperation = { t: tool.name, u: statusUrl.href, p: pollable, a: args, s: startedAt };
    const entry: PendingOperation = {
      handle: this.codec.mint("op", sealed, HANDLE_TTL_MS),
      tool,
      call,
      statusUrl,
      pollable,
      state: "running",
      startedAt,
      polls: 0,
    };
    this.remember(entry);
    return entry;
  }

  override get(handle: string): PendingOperation | undefined {
    const known = this.local.get(handle);
    if (known) return known;
    const opened = this.codec.open<SealedOperation>("op", handle);
    const tool = opened.ok ? this.toolNamed(opened.value.t) : undefined;
    if (!opened.ok || !tool) return undefined;
    const { u, p, a, s } = opened.value;
    const entry: PendingOperation = {
      handle,
      tool,
      call: { args: a, resolvedInputs: a, corrections: [], warnings: [] },
      statusUrl: new URL(u),
      pollable: p,
      state: "running",
      startedAt: s,
      polls: 0,
    };
    this.remember(entry);
    return entry;
  }

  private remember(entry: PendingOperation): void {
    this.local.set(entry.handle, entry);
    while (this.local.size > this.maxLocal) this.local.delete(this.local.keys().next().value as string);
  }
}
