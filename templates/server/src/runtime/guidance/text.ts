/**
 * Small text renderers the guidance layer and the tool modes share when they
 * turn a result into the text an agent reads.
 */
import type { ToolCall } from "../call/types.js";

/** `` `get_pet` {"petId":1} ``: an exact call the agent can copy. */
export function renderCall(call: ToolCall): string {
  return `\`${call.tool}\` ${JSON.stringify(call.params)}`;
}

/** `renderCall` plus its note, when it has one. */
export function renderCallWithNote(call: ToolCall): string {
  return call.note ? `${renderCall(call)} — ${call.note}` : renderCall(call);
}

/** `800 ms`, `2.5 s`: a wait as an agent reads it. */
export function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}

/** The warning of a success whose body departs from the documented response schema at `pointer`. */
export function driftWarning(pointer: string): string {
  return `The response did not match the documented schema at ${pointer || "/"}; fields may be missing or different. It is returned as unvalidated_data.`;
}
