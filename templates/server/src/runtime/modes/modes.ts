/**
 * How the API's operations are exposed — three surfaces over ONE set of
 * precomputed tool data (switching mode costs nothing at start-up):
 *
 *   per-operation  one MCP tool per operation (the data file as is).
 *   dispatch       one tool for the whole API (≤ 150 operations) or one per
 *                  category (first tag), each `{ action, params }` with the
 *                  operation names in a VISIBLE `action` enum, plus the
 *                  actions `list` (trimmed summaries) and `describe`
 *                  (`params: { action, level? }`).
 *   discovery      `search_operations` → `describe_operation` →
 *                  `invoke_operation`, over a token index built once.
 *
 * Every surface ends in the same guided call path (validation, correction,
 * corrective_params, confirmation gate, envelope); `present` then rewrites
 * every call the result suggests (available_actions, next_steps,
 * corrective_params, valid_example) into the surface in use, so an agent
 * never sees a call it cannot make.
 */
import { INFO_TOOL } from "../call/types.js";
import type { ApiData, ToolMode } from "../shared/tool-data.js";
import { DEFAULT_AUTO_THRESHOLD } from "../config/settings.js";
import { discoverySurface } from "./discovery.js";
import { dispatchSurface } from "./dispatch.js";
import { commonWorkflow } from "./presentation.js";
import { type ResolvedMode, type Surface, type SurfaceOptions } from "./types.js";

/** `auto` is per-operation up to the threshold, discovery above it. */
export function resolveToolMode(
  requested: ToolMode | undefined,
  api: Pick<ApiData, "toolMode" | "autoThreshold">,
  toolCount: number,
): ResolvedMode {
  const mode = requested ?? api.toolMode ?? "auto";
  if (mode !== "auto") return mode;
  return toolCount <= (api.autoThreshold ?? DEFAULT_AUTO_THRESHOLD) ? "per-operation" : "discovery";
}

export function createSurface(options: SurfaceOptions): Surface {
  if (options.mode === "dispatch") return dispatchSurface(options);
  if (options.mode === "discovery") return discoverySurface(options);
  return {
    mode: "per-operation",
    tools: [],
    listed: [],
    workflow: perOperationWorkflow,
    route: () => {
      throw new Error("per-operation mode has no mode-level tools");
    },
    present: (result) => result,
    express: (step) => step,
    warmUp: () => {},
  };
}

function perOperationWorkflow(confirmDestructive: boolean): string {
  return [
    `Workflow: call \`${INFO_TOOL}\` first to see the tool categories; \`${INFO_TOOL}\` ` +
      `{"tool": "<name>", "level": "typed"|"full"} shows a tool's parameters, constraints and ` +
      `valid examples. Then call the tool.`,
    ...commonWorkflow(confirmDestructive, "the call", "in the call"),
  ].join(" ");
}
