/**
 * Dispatch mode: one tool for the whole API (up to DISPATCH_SINGLE_TOOL_MAX
 * operations) or one per category, each `{ action, params }` with the
 * operation names in a visible `action` enum, plus the actions `list`
 * (trimmed summaries) and `describe` (`params: { action, level? }`).
 */
import type { Tool } from "@modelcontextprotocol/server";
import {
  CONFIRM_ARG,
  INFO_TOOL,
  RESERVED_TOOL_NAMES,
  WAIT_ARG,
  type GuidedError,
  type HintLevel,
  type ToolCall,
  type ToolOutcome,
} from "../call/types.js";
import { categoryCounts, infoStep } from "../guidance/errors.js";
import { renderCall } from "../guidance/text.js";
import { isPlainObject } from "../shared/json.js";
import type { ApiData, ToolData } from "../shared/tool-data.js";
import {
  commonWorkflow,
  describeResult,
  invokeOperation,
  metaTool,
  presentWith,
  routedCallSchema,
  sanitizeName,
  summary,
  answer,
  unknownOperationError,
} from "./presentation.js";
import {
  DESCRIBE_ACTION,
  DISPATCH_SINGLE_TOOL_MAX,
  LEVELS,
  LIST_ACTION,
  LOOSE_OUTPUT_SCHEMA,
  NAME_PATTERN,
  type Routed,
  type Surface,
  type SurfaceOptions,
} from "./types.js";

interface DispatchGroup {
  name: string;
  category?: string;
  tools: ToolData[];
}

/** One group for ≤ DISPATCH_SINGLE_TOOL_MAX operations, else one per category; names sanitised and unique. */
export function dispatchGroups(api: Pick<ApiData, "name">, tools: readonly ToolData[]): DispatchGroup[] {
  const taken = new Set<string>([...RESERVED_TOOL_NAMES, ...tools.map((tool) => tool.name)]);
  const unique = (raw: string, fallback: string): string => {
    const base = sanitizeName(raw, fallback);
    let name = base;
    for (let n = 2; taken.has(name) || !NAME_PATTERN.test(name); n++) name = `${base.slice(0, 60)}_${n}`;
    taken.add(name);
    return name;
  };
  if (tools.length <= DISPATCH_SINGLE_TOOL_MAX) {
    return [{ name: unique(api.name.replace(/[-_]mcp$/i, ""), "api"), tools: [...tools] }];
  }
  const byCategory = new Map<string, ToolData[]>();
  for (const tool of tools) {
    const list = byCategory.get(tool.category) ?? [];
    list.push(tool);
    byCategory.set(tool.category, list);
  }
  return [...byCategory].map(([category, members]) => ({
    name: unique(category, "default"),
    category,
    tools: members,
  }));
}

interface Dispatch {
  tools: readonly ToolData[];
  toolsByName: ReadonlyMap<string, ToolData>;
  groups: DispatchGroup[];
  /** The group each operation belongs to. */
  groupOf: Map<string, DispatchGroup>;
  groupByName: Map<string, DispatchGroup>;
}

export function dispatchSurface({ api, tools, toolsByName }: SurfaceOptions): Surface {
  const groups = dispatchGroups(api, tools);
  const groupOf = new Map<string, DispatchGroup>();
  for (const group of groups) for (const tool of group.tools) groupOf.set(tool.name, group);
  const dispatch: Dispatch = {
    tools,
    toolsByName,
    groups,
    groupOf,
    groupByName: new Map(groups.map((g) => [g.name, g])),
  };
  const express = (step: ToolCall): ToolCall => expressInDispatch(dispatch, step);
  return {
    mode: "dispatch",
    tools: groups.map(validationTool),
    listed: groups.map((group) => listedTool(api, group)),
    workflow: (confirmDestructive) =>
      [
        groups.length === 1
          ? `Workflow: \`${groups[0]!.name}\` runs every operation of the API, chosen with \`action\` (the enum in its schema).`
          : `Workflow: each tool covers one category of operations (${groups.length} tools), chosen ` +
            `with \`action\` (the enum in its schema).`,
        `Call a tool with {"action": "list"} for one-line summaries, then {"action": "describe", ` +
          `"params": {"action": "<operation>", "level": "typed"|"full"}} for an operation's ` +
          `parameters and valid examples, then {"action": "<operation>", "params": {...}}.`,
        `Every suggested call (available_actions, next_steps, corrective_params) is already in this {"action", "params"} form.`,
        ...commonWorkflow(confirmDestructive, "`params`", "in `params`"),
      ].join(" "),
    route: (front, args, confirmed) => route(dispatch, express, front, args, confirmed),
    express,
    present: (result) =>
      presentWith(result, express, (name) => {
        const group = groupOf.get(name);
        return group ? { tool: group.name, wrap: (params) => express({ tool: name, params }).params } : undefined;
      }),
    warmUp: () => {},
  };
}

/** One call in dispatch form: `{ action, params }` on the operation's group tool. */
function expressInDispatch({ toolsByName, groupOf }: Dispatch, step: ToolCall): ToolCall {
  if (step.tool === INFO_TOOL && typeof step.params["tool"] === "string") {
    const group = groupOf.get(step.params["tool"]);
    if (!group) return step;
    const params: Record<string, unknown> = { action: step.params["tool"] };
    if (step.params["level"] !== undefined) params["level"] = step.params["level"];
    return { ...step, tool: group.name, params: { action: DESCRIBE_ACTION, params } };
  }
  const group = groupOf.get(step.tool);
  if (!group || !toolsByName.has(step.tool)) return step;
  return { ...step, tool: group.name, params: { action: step.tool, params: step.params } };
}

/** A group tool as validation data: `action` left open so an unknown one gets did-you-mean. */
function validationTool(group: DispatchGroup): ToolData {
  const tool = metaTool(
    group.name,
    "",
    routedCallSchema("action"),
    { action: LIST_ACTION },
    { action: DESCRIBE_ACTION, params: { action: group.tools[0]?.name ?? "", level: "typed" } },
  );
  // The schema leaves `action` open so an unknown one gets did-you-mean; the hint still names every action.
  const actionHint = tool.guidance.hints.typed["action"];
  if (actionHint) actionHint.enum = [...group.tools.map((t) => t.name), LIST_ACTION, DESCRIBE_ACTION];
  return tool;
}

/** A group tool as listed; kept terse: with one tool per category this repeats for every category (GitHub: 50 tools). */
function listedTool(api: ApiData, group: DispatchGroup): Tool {
  const count = group.tools.length;
  const scope =
    group.category !== undefined
      ? `${count} '${group.category}' operations of ${api.title}`
      : `All ${count} operations of ${api.title}`;
  return {
    name: group.name,
    description:
      `${scope}. {"action": "list"}: summaries; {"action": "describe", "params": {"action": "<name>"}}: parameters and valid examples; ` +
      `{"action": "<name>", "params": {...}} runs it.`,
    inputSchema: {
      type: "object",
      properties: {
        action: { type: "string", enum: [...group.tools.map((t) => t.name), LIST_ACTION, DESCRIBE_ACTION] },
        params: {
          type: "object",
          description:
            `The operation's arguments; "${CONFIRM_ARG}": true for destructive ones, "${WAIT_ARG}": ` +
            `true to await a long-running one.`,
        },
      },
      required: ["action"],
    },
    outputSchema: LOOSE_OUTPUT_SCHEMA,
    annotations: {
      readOnlyHint: group.tools.every((t) => t.annotations.readOnlyHint),
      destructiveHint: group.tools.some((t) => t.annotations.destructiveHint),
      idempotentHint: group.tools.every((t) => t.annotations.idempotentHint),
      openWorldHint: true,
    },
  };
}

function listStep(group: DispatchGroup): ToolCall {
  return { tool: group.name, params: { action: LIST_ACTION }, note: "Every action with a one-line summary" };
}

function invalidParams(
  group: DispatchGroup,
  field: string,
  problem: string,
  fix: string,
  corrective: Record<string, unknown> | undefined,
  received?: unknown,
): ToolOutcome {
  const error: GuidedError = {
    code: "INVALID_ARGUMENTS",
    message: `${group.name}: ${problem}.`,
    severity: "high",
    tool: group.name,
    issues: [
      { field, code: "INVALID_VALUE", problem, expected: fix, fix, ...(received !== undefined && { received }) },
    ],
    suggestions: { auto_correctable: corrective !== undefined },
    next_steps: corrective
      ? [{ tool: group.name, params: corrective, note: "Passes validation" }, listStep(group)]
      : [listStep(group)],
    ...(corrective && { corrective_params: corrective }),
  };
  return { kind: "error", error: error };
}

function route(
  dispatch: Dispatch,
  express: (step: ToolCall) => ToolCall,
  front: ToolData,
  args: Record<string, unknown>,
  confirmed: boolean,
): Routed {
  const { tools, toolsByName, groupOf, groupByName } = dispatch;
  const group = groupByName.get(front.name)!;
  const action = args["action"] as string;
  const rawParams = args["params"];
  const params = isPlainObject(rawParams) ? rawParams : {};
  if (rawParams !== undefined && !isPlainObject(rawParams)) {
    return {
      kind: "result",
      result: invalidParams(
        group,
        "params",
        "`params` must be an object of the operation's arguments",
        "Send params as a JSON object",
        { action, params: {} },
        rawParams,
      ),
    };
  }
  if (action === LIST_ACTION) return { kind: "result", result: listActions(group) };
  if (action === DESCRIBE_ACTION) return { kind: "result", result: describeAction(dispatch, express, group, params) };
  const tool = toolsByName.get(action);
  if (!tool)
    return {
      kind: "result",
      result: {
        kind: "error",
        error: unknownOperationError(
          "UNKNOWN_ACTION",
          "action",
          action,
          params,
          group.name,
          tools,
          listStep(group),
          (operation, example) => express({ tool: operation, params: example }),
        ),
      },
    };
  const home = groupOf.get(action);
  const warnings =
    home && home !== group ? [`'${action}' belongs to \`${home.name}\`; call it there next time.`] : undefined;
  return invokeOperation(tool, params, args, confirmed, warnings);
}

/** `{"action": "list"}`: every action of the group with a one-line summary. */
function listActions(group: DispatchGroup): ToolOutcome {
  const multi = new Set(group.tools.map((t) => t.category)).size > 1;
  const actions = group.tools.map((tool) => summary(tool, multi));
  const next: ToolCall[] = [
    {
      tool: group.name,
      params: { action: DESCRIBE_ACTION, params: { action: group.tools[0]?.name ?? "", level: "typed" } },
      note: "Parameters and valid examples of one action",
    },
  ];
  const structured: Record<string, unknown> = {
    tool: group.name,
    action_count: actions.length,
    actions,
    next_steps: next,
  };
  if (multi) structured["categories"] = categoryCounts(group.tools);
  const lines = actions.map(
    (a) =>
      `- ${a["name"] as string}` +
      (a["required"] ? ` (required: ${(a["required"] as string[]).join(", ")})` : "") +
      (a["destructive"] ? " [destructive]" : "") +
      (a["description"] ? `: ${a["description"] as string}` : ""),
  );
  return answer(
    `${actions.length} actions of \`${group.name}\`:\n${lines.join("\n")}\n\nNext: ${renderCall(next[0]!)}`,
    structured,
  );
}

/** `{"action": "describe", "params": {"action", "level"}}`: one operation's parameters and valid calls. */
function describeAction(
  { tools, toolsByName }: Dispatch,
  express: (step: ToolCall) => ToolCall,
  group: DispatchGroup,
  params: Record<string, unknown>,
): ToolOutcome {
  const target = params["action"];
  const level = params["level"] ?? "typed";
  if (typeof target !== "string" || target === "") {
    return invalidParams(
      group,
      "params.action",
      "describe needs params.action: the operation to describe",
      `Pass one of the action names, e.g. "${group.tools[0]?.name}"`,
      group.tools[0] ? { action: DESCRIBE_ACTION, params: { action: group.tools[0].name, level: "typed" } } : undefined,
      target,
    );
  }
  if (typeof level !== "string" || !LEVELS.includes(level as HintLevel)) {
    return invalidParams(
      group,
      "params.level",
      `level must be one of ${LEVELS.join(", ")}`,
      `Use "typed" (or minimal / full)`,
      { action: DESCRIBE_ACTION, params: { action: target, level: "typed" } },
      level,
    );
  }
  const tool = toolsByName.get(target);
  if (!tool)
    return {
      kind: "error",
      error: unknownOperationError(
        "UNKNOWN_ACTION",
        "params.action",
        target,
        undefined,
        group.name,
        tools,
        listStep(group),
        (operation) => express(infoStep(operation)),
      ),
    };
  return describeResult(tool, level as HintLevel, express);
}
