/**
 * Identifier sources at call time: the producers computed at generation time
 * (`guidance.producers`) turned into exact, ordered calls for an agent that is
 * missing an identifier or holds one the upstream does not know.
 */
import { isPlainObject } from "../shared/json.js";
import type { IdentifierProducer, ProducerCall, ToolData } from "../shared/tool-data.js";
import type { ToolCall } from "../call/types.js";

const CALLER_PREFIX = "$caller.";
/** Stands for the value taken from the previous step's answer (see `IdentifierProducer.via`). */
export const VIA_VALUE = "$via";

/** The producer call's arguments: `$caller.<arg>` filled from what the caller sent, or left out. */
function fill(params: Record<string, unknown>, sent: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(params)) {
    if (typeof value === "string" && value.startsWith(CALLER_PREFIX)) {
      const arg = value.slice(CALLER_PREFIX.length);
      if (sent[arg] !== undefined) out[name] = sent[arg];
    } else out[name] = value;
  }
  return out;
}

function step(call: ProducerCall, sent: Record<string, unknown>, note: string): ToolCall {
  return { tool: call.tool, params: fill(call.params, sent), note, take: call.take };
}

/**
 * The ordered calls that yield a real value for `field`, from its best producer:
 * one call, or two when the producer itself needs a value from another call
 * (its `"$via"` argument is the value at the first call's `take`).
 */
export function producerSteps(tool: ToolData, field: string, received: unknown): ToolCall[] {
  const best: IdentifierProducer | undefined = tool.guidance.producers?.[field]?.[0];
  if (!best) return [];
  const sent = isPlainObject(received) ? received : {};
  const use = `the value at ${best.take} of its data is a real ${field} for ${tool.name}`;
  if (!best.via) return [step(best, sent, `Gets a real ${field}: ${best.note}; ${use}.`)];
  const viaArg = Object.keys(best.params).find((k) => best.params[k] === VIA_VALUE) ?? "";
  return [
    step(
      best.via,
      sent,
      `Step 1 of 2 towards ${field}: ${best.via.note}; take the value at ${best.via.take} of its data.`,
    ),
    step(
      best,
      sent,
      `Step 2 of 2: set ${viaArg} to the value taken in step 1 (replace "${VIA_VALUE}"); ${best.note}; ${use}.`,
    ),
  ];
}

/** Where real values of each identifier argument come from, for `info` / `describe_operation`. */
export function identifierSources(tool: ToolData): Record<string, string[]> | undefined {
  const producers = tool.guidance.producers;
  if (!producers) return undefined;
  const out: Record<string, string[]> = {};
  for (const [field, list] of Object.entries(producers))
    out[field] = list.map((p) =>
      p.via ? `${p.via.tool} (take ${p.via.take}) → ${p.tool} (take ${p.take})` : `${p.tool} (take ${p.take})`,
    );
  return out;
}
