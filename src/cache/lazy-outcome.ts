/**
 * An operation outcome as the model cache stores it (src/cache/model-cache.ts), with its tool's response schema
 * parsed only when something reads it. A regeneration after a summary edit reuses 1,222 of GitHub's 1,223 outcomes
 * and, with every tool's guidance cached, reads none of their 925 response schemas (1.7 MB of the 4.8 MB of
 * outcomes; parsing them took ≈ 10 ms of the ≈ 26 ms). A change that recomputes guidance reads them all, as before.
 *
 * The text is the outcome's JSON with `responseSchema` in place but holding `0`, then a tab and the schema's JSON
 * (JSON text never holds a raw tab). The placeholder keeps the property's place among the draft's keys, so the
 * draft read back serialises as the one stored.
 */
import type { OperationOutcome } from "../model/openapi.js";
import { defineLazySchema } from "../model/lazy-schema.js";
import { DamagedCacheError } from "./damaged.js";

const LAZY = "responseSchema";

/** The outcome's text (`json`: how a value becomes the file's JSON; see model-cache.ts `asciiJson`). */
export function outcomeText(outcome: OperationOutcome, json: (value: unknown) => string): string {
  const draft = outcome.draft;
  if (draft?.[LAZY] === undefined) return json(outcome);
  return `${json({ ...outcome, draft: { ...draft, [LAZY]: 0 } })}\t${json(draft[LAZY])}`;
}

/**
 * The outcome `outcomeText` made, its draft's response schema parsed when first read (`file`: named if that
 * fails: the file was edited, see ./damaged.ts). Throws if the rest does not parse, like `JSON.parse`.
 */
export function parseOutcome(text: string, file: string): OperationOutcome {
  const tab = text.indexOf("\t");
  if (tab < 0) return JSON.parse(text) as OperationOutcome;
  const outcome = JSON.parse(text.slice(0, tab)) as OperationOutcome;
  const draft = outcome.draft as Record<string, unknown> | undefined;
  if (draft?.[LAZY] !== 0) throw new SyntaxError("a response schema without its place in the draft");
  defineLazySchema(draft, () => {
    try {
      return JSON.parse(text.slice(tab + 1));
    } catch {
      throw new DamagedCacheError(file, "an operation's cached response schema");
    }
  });
  return outcome;
}
