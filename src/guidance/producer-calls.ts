/**
 * What is done with producers once they are found: the hints name them, and
 * their calls are completed with the producer's own example values once
 * every tool has its examples (see ./producers.ts for how they are found).
 */
import type { GuidedTool, IdentifierProducer, ProducerCall, SchemaHints, ToolGuidance } from "../model/ir.js";
import { schemaRequired } from "./schema-util.js";

/** Each identifier's typed hint names where real values come from (shown by `info` / `describe_operation`). */
export function nameSources(hints: SchemaHints, producers: Record<string, IdentifierProducer[]>): void {
  for (const [arg, found] of Object.entries(producers)) {
    const hint = hints.typed[arg];
    const first = found[0];
    if (!hint?.placeholder || !first) continue;
    const chain = first.via ? `${first.via.tool} → ${first.tool}` : first.tool;
    hint.placeholder += `; real ones: ${chain}, at ${first.take} of its answer`;
  }
}

/**
 * A producer call is made as given, so it must pass the producer's validator:
 * its ordinary required values (a create's `quantity`) come from the
 * producer's own minimal example. Completes one tool's calls; used once every
 * tool has its examples. What it adds depends on the producers' examples only,
 * so tools can be completed in any order, each once (src/guidance/guide.ts
 * completes a cached tool when its guidance is first read).
 */
export function producerCallCompleter(tools: GuidedTool[]): (guidance: ToolGuidance) => void {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const complete = (call: ProducerCall): void => {
    const producer = byName.get(call.tool);
    const example = producer?.guidance.examples?.minimal;
    if (!producer || !example) return;
    for (const name of schemaRequired(producer.inputSchema))
      if (!(name in call.params) && name in example) call.params[name] = example[name];
  };
  return (guidance) => {
    for (const list of Object.values(guidance.producers ?? {}))
      for (const producer of list) {
        complete(producer);
        if (producer.via) complete(producer.via);
      }
  };
}
