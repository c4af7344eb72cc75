/**
 * tools/call, the route every call takes:
 *
 *   reserved tool?  -> prepare its arguments -> info / read_response / operation_status
 *   mode front tool -> prepare -> the mode routes it to an operation (or answers itself)
 *   unknown tool?   -> UNKNOWN_TOOL (did_you_mean, similar tools, categories)
 *   operation       -> prepare (fuzzy-correct confident key typos, validate; invalid -> INVALID_ARGUMENTS)
 *                   -> confirm (destructive: ask through MCP elicitation when the client can, else CONFIRMATION_REQUIRED)
 *                   -> execute (call/execute.ts) -> outcome -> long-running (operations.ts)
 *                   -> presented in the tool mode -> rendered -> transformResult hooks
 *
 * Every branch produces a value (`ToolOutcome`); the mode's presentation rewrites it and `outcomes.render`
 * turns it into the `CallToolResult` once, here at the end.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import { createExecutor, plainCall, type Execution, type Executor } from "../call/execute.js";
import type { CallFailure, ConfirmationAnswer, OutcomeContext, Outcomes, PreparedCall } from "../call/outcomes.js";
import { INFO_TOOL, OPERATION_STATUS_TOOL, WAIT_ALIAS, WAIT_ARG, type ToolOutcome } from "../call/types.js";
import { needsConfirmation, prepareArguments } from "../guidance/correct.js";
import type { Validator } from "../guidance/validator.js";
import { resolvedPath } from "../guidance/errors.js";
import { callInfo, callReadResponse } from "../guidance/reserved.js";
import type { HookContext, ToolArguments } from "../hook-types.js";
import type { Surface } from "../modes/types.js";
import { isPlainObject } from "../shared/json.js";
import type { ToolData } from "../shared/tool-data.js";
import type { CallSession, RuntimeParts } from "./context.js";
import { createOperations, type LongRunningOperations } from "./operations.js";

export type CallTool = (
  name: string,
  args: ToolArguments | undefined,
  session?: AbortSignal | CallSession,
) => Promise<CallToolResult>;

export function createCallTool(
  parts: RuntimeParts,
  surface: Surface,
  reserved: ReadonlyMap<string, ToolData>,
): CallTool {
  const { api, env, toolsByName, outcomes, outcomeContext, validators, log, confirmDestructive } = parts;
  const executor = createExecutor(parts);
  const operations = createOperations(parts);
  const callParts: CallParts = { executor, operations, outcomes, outcomeContext };
  const frontTools = new Map(surface.tools.map((tool) => [tool.name, tool]));

  const validatorFor =
    (tool: ToolData): Validator =>
    (args: unknown) =>
      validators.validateArguments(tool, args);

  async function callTool(
    name: string,
    rawArgs: ToolArguments | undefined,
    sessionOrSignal?: AbortSignal | CallSession,
  ): Promise<CallToolResult> {
    const session: CallSession =
      sessionOrSignal instanceof AbortSignal ? { signal: sessionOrSignal } : (sessionOrSignal ?? {});
    const startedAt = performance.now();
    const finish = (label: string, result: CallToolResult): CallToolResult => {
      log(`${api.name}: ${label} ${result.isError ? "error" : "ok"} ${Math.round(performance.now() - startedAt)}ms`);
      return result;
    };
    /** The one render of a call that is not an operation's: present the value in the mode, then render it. */
    const answer = (label: string, outcome: ToolOutcome): CallToolResult =>
      finish(label, outcomes.render(surface.present(outcome)));

    const builtIn = reserved.get(name);
    if (builtIn) {
      const prepared = prepareArguments(builtIn, rawArgs, validatorFor(builtIn));
      // Its own argument errors are not presented in the mode: they name the built-in tool itself.
      if (!prepared.ok)
        return finish(
          name,
          outcomes.render(outcomes.onInvalidArguments(builtIn, rawArgs, prepared.error, outcomeContext)),
        );
      return answer(name, await builtInAnswer(parts, operations, name, prepared.args, session));
    }

    const front = frontTools.get(name);
    if (front) {
      const prepared = prepareArguments(front, rawArgs, validatorFor(front));
      if (!prepared.ok)
        return answer(name, outcomes.onInvalidArguments(front, rawArgs, prepared.error, outcomeContext));
      const routed = surface.route(front, prepared.args, prepared.confirmed);
      if (routed.kind === "result") return answer(name, routed.result);
      const warnings = [...prepared.warnings, ...(routed.warnings ?? [])];
      const { tool, args, confirmed, wait } = routed;
      return finish(`${name} ${tool.name}`, await callOperation(tool, args, session, { confirmed, wait, warnings }));
    }

    // Per-operation mode lists the operations themselves; the other modes still accept a direct call.
    const tool = toolsByName.get(name);
    if (!tool)
      return answer(
        `unknown tool ${JSON.stringify(name.slice(0, 64))}`,
        outcomes.onUnknownTool(name, rawArgs, outcomeContext),
      );
    return finish(tool.name, await callOperation(tool, rawArgs, session));
  }

  /** The guided call path every mode ends in: prepare, confirm, execute, outcome, in-mode calls, hooks. */
  async function callOperation(
    tool: ToolData,
    rawArgs: ToolArguments | undefined,
    session: CallSession,
    routed: { confirmed?: boolean; wait?: boolean; warnings?: string[] } = {},
  ): Promise<CallToolResult> {
    const signal = session.signal ?? new AbortController().signal;
    const { args: withoutWait, wait: waitInArgs, warnings: waitWarnings } = takeWait(tool, rawArgs);
    const wait = waitInArgs || routed.wait === true;
    const prepared = prepareArguments(tool, withoutWait, validatorFor(tool), { confirmed: routed.confirmed === true });
    const args = prepared.ok ? prepared.args : isPlainObject(withoutWait) ? withoutWait : {};
    const context: HookContext = { tool, api, args, env, signal };

    let result: ToolOutcome;
    if (!prepared.ok) {
      result =
        prepared.schemaError !== undefined
          ? outcomes.onFailure(tool, plainCall(args), schemaFailure(tool, prepared.schemaError), outcomeContext)
          : outcomes.onInvalidArguments(tool, withoutWait, prepared.error, outcomeContext);
    } else {
      const call: PreparedCall = {
        args: prepared.args,
        resolvedInputs: prepared.resolved_inputs,
        corrections: prepared.corrections,
        warnings: [...(routed.warnings ?? []), ...waitWarnings, ...prepared.warnings],
      };
      const confirmed = prepared.confirmed || routed.confirmed === true;
      const confirmation =
        confirmDestructive && needsConfirmation(tool, { ...prepared, confirmed })
          ? await askConfirmation(log, api.name, tool, call, session, signal)
          : "accept";
      if (confirmation !== "accept") {
        const answer = confirmation === "not_asked" ? undefined : confirmation;
        result = outcomes.onConfirmationRequired(tool, call, answer, outcomeContext);
      } else {
        result = await executed(callParts, tool, call, context, wait, session);
      }
    }
    // The one render of an operation call; the transformResult hooks see what the client will.
    return executor.transformResult(outcomes.render(surface.present(result)), context);
  }

  return callTool;
}

/** `info`, `read_response` or `operation_status`, on prepared (validated) arguments. */
async function builtInAnswer(
  { tools, toolsByName, cache }: RuntimeParts,
  operations: LongRunningOperations,
  name: string,
  args: Record<string, unknown>,
  session: CallSession,
): Promise<ToolOutcome> {
  if (name === OPERATION_STATUS_TOOL) return operations.status(args, session);
  return name === INFO_TOOL ? callInfo(args, tools, toolsByName) : callReadResponse(args, cache);
}

/**
 * Takes the reserved wait flag out of the arguments: `_wait` always, `wait`
 * unless the tool declares a `wait` parameter of its own. `true` waits; the
 * strings "true"/"false" are taken as the booleans, with a warning saying so;
 * any other value is reported as ignored, never dropped silently.
 */
function takeWait(
  tool: ToolData,
  rawArgs: ToolArguments | undefined,
): { args: unknown; wait: boolean; warnings: string[] } {
  const warnings: string[] = [];
  if (!isPlainObject(rawArgs)) return { args: rawArgs, wait: false, warnings };
  const properties = isPlainObject(tool.inputSchema["properties"]) ? tool.inputSchema["properties"] : {};
  const names = [WAIT_ALIAS, WAIT_ARG].filter((name) => !(name in properties) && name in rawArgs);
  if (names.length === 0) return { args: rawArgs, wait: false, warnings };
  const args: Record<string, unknown> = { ...rawArgs };
  let wait = false;
  for (const name of names) {
    const value = args[name];
    if (value === true || value === "true") wait = true;
    if (value === "true" || value === "false")
      warnings.push(
        `"${name}" must be a boolean; received the string "${value}", taken as ${value}. Send ${value} next time.`,
      );
    else if (typeof value !== "boolean")
      warnings.push(`"${name}" must be a boolean; received ${JSON.stringify(value)}, ignored (not waiting).`);
    delete args[name];
  }
  return { args, wait, warnings };
}

function schemaFailure(tool: ToolData, schemaError: string): CallFailure {
  return {
    kind: "internal",
    error: new Error(`The input schema of ${tool.name} could not be compiled: ${schemaError}`),
  };
}

/** Asks the user through MCP elicitation, when the client can; "not_asked" otherwise or when asking failed. */
async function askConfirmation(
  log: (line: string) => void,
  apiName: string,
  tool: ToolData,
  call: PreparedCall,
  session: CallSession,
  signal: AbortSignal,
): Promise<"accept" | ConfirmationAnswer | "not_asked"> {
  if (!session.confirm) return "not_asked";
  const op = tool.operation;
  const what = op ? `${op.method.toUpperCase()} ${resolvedPath(tool, call.args)}` : `run ${tool.name}`;
  const args = Object.keys(call.args).length ? ` with ${JSON.stringify(call.args)}` : "";
  try {
    return await session.confirm(
      `Allow '${tool.name}' to ${what}${args}? This is destructive and may not be reversible.`,
      signal,
    );
  } catch (error) {
    // A client that declared elicitation but failed to answer: fall back to the `_confirm` round trip.
    log(
      `${apiName}: confirmation prompt for ${tool.name} failed: ${error instanceof Error ? error.message : String(error)}`,
    );
    return "not_asked";
  }
}

interface CallParts {
  executor: Executor;
  operations: LongRunningOperations;
  outcomes: Outcomes;
  outcomeContext: OutcomeContext;
}

/** Runs a prepared, confirmed call: a failure, a long-running operation, or a success. */
async function executed(
  { executor, operations, outcomes, outcomeContext }: CallParts,
  tool: ToolData,
  call: PreparedCall,
  context: HookContext,
  wait: boolean,
  session: CallSession,
): Promise<ToolOutcome> {
  let execution: Execution;
  try {
    execution = await executor.execute(tool, context, session.forwardedToken);
  } catch (error) {
    execution = { ok: false, failure: { kind: "internal", error } };
  }
  if (!execution.ok) return executor.failureResult(tool, call, execution.failure, context);
  if (execution.statusUrl) return operations.start(tool, call, execution.success, execution.statusUrl, wait, session);
  return outcomes.onSuccess(tool, call, execution.success, outcomeContext);
}
