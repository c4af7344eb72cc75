/**
 * What every tool mode provides (a `Surface`), and the names and limits the
 * modes share.
 */
import type { Tool } from "@modelcontextprotocol/server";
import type { HintLevel, ToolCall, ToolOutcome } from "../call/types.js";
import type { ApiData, ToolData, ToolMode } from "../shared/tool-data.js";

export type ResolvedMode = Exclude<ToolMode, "auto">;

/** Dispatch: one tool for the whole API up to this many operations, one per category above. */
export const DISPATCH_SINGLE_TOOL_MAX = 150;

export const SEARCH_TOOL = "search_operations";
export const DESCRIBE_TOOL = "describe_operation";
export const INVOKE_TOOL = "invoke_operation";

export const LEVELS: HintLevel[] = ["minimal", "typed", "full"];
export const LIST_ACTION = "list";
export const DESCRIBE_ACTION = "describe";
export const NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** What a mode-level tool asks the server to do. */
export type Routed =
  | { kind: "result"; result: ToolOutcome }
  /**
   * Run `tool` through the guided path with `args`, the operation's own arguments.
   * `confirmed`: the front tool carried `"_confirm": true`; `wait`: it asked to wait.
   */
  | {
      kind: "invoke";
      tool: ToolData;
      args: Record<string, unknown>;
      confirmed: boolean;
      wait: boolean;
      warnings?: string[];
    };

export interface Surface {
  readonly mode: ResolvedMode;
  /** Mode-level tools (dispatch tools or the discovery meta-tools) as validation data; empty per-operation. */
  readonly tools: ToolData[];
  /** Listed form of `tools` (the dispatch `action` enum lives only here). */
  readonly listed: Tool[];
  /** The instructions paragraph for this mode. */
  readonly workflow: (confirmDestructive: boolean) => string;
  /** Handles a call to one of `tools`, on prepared (validated) arguments. */
  route(tool: ToolData, args: Record<string, unknown>, confirmed: boolean): Routed;
  /** Rewrites every call a result value suggests into this mode (before the one render). Identity per-operation. */
  present(outcome: ToolOutcome): ToolOutcome;
  /** One call in this mode. */
  express(step: ToolCall): ToolCall;
  /** Builds the search index now (discovery); otherwise a no-op. */
  warmUp(): void;
}

export const LOOSE_OUTPUT_SCHEMA = { type: "object" as const, additionalProperties: true };
export const META_ANNOTATIONS = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

export interface SurfaceOptions {
  api: ApiData;
  tools: readonly ToolData[];
  toolsByName: ReadonlyMap<string, ToolData>;
  mode: ResolvedMode;
}
