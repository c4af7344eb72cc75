/**
 * An operation outcome as the model cache stores it (src/cache/model-cache.ts), with its tool's input and response
 * schemas parsed only when something reads them (src/model/lazy-schema.ts). A regeneration after a summary edit
 * reuses 1,222 of GitHub's 1,223 outcomes and, with every tool's guidance cached, reads none of their schemas
 * (2.8 MB of the 4.8 MB of outcomes). A change that recomputes guidance reads them all, as before.
 *
 * The text is the outcome's JSON with each schema in place but holding `0`, then, for each in that order, a tab and
 * the schema's JSON (JSON text never holds a raw tab). The placeholders keep the properties' places among the
 * draft's keys, so the draft read back serialises as the one stored.
 */
import type { OperationOutcome } from "../model/openapi.js";
import { defineLazySchema, LAZY_SCHEMAS } from "../model/lazy-schema.js";
import { DamagedCacheError } from "./damaged.js";

/** The outcome's text (`json`: how a value becomes the file's JSON; see model-cache.ts `writeChunked`). */
export function outcomeText(outcome: OperationOutcome, json: (value: unknown) => string): string {
  return [...outcomePieces(outcome, json)].join("");
}

/** `outcomeText` in pieces, for a writer that copies each into its buffer (joining them would copy every byte once more). */
export function* outcomePieces(outcome: OperationOutcome, json: (value: unknown) => string): Generator<string> {
  const draft = outcome.draft as Record<string, unknown> | undefined;
  const lazy = draft ? LAZY_SCHEMAS.filter((key) => draft[key] !== undefined) : [];
  if (lazy.length === 0) {
    yield json(outcome);
    return;
  }
  const placeholders = Object.fromEntries(lazy.map((key) => [key, 0]));
  yield json({ ...outcome, draft: { ...draft, ...placeholders } });
  for (const key of lazy) {
    yield "\t";
    yield json(draft![key]);
  }
}

/**
 * The outcome `outcomeText` made, its draft's schemas parsed when first read (`file`: named if that fails: the file
 * was edited, see ./damaged.ts). Throws if the rest does not parse, like `JSON.parse`.
 */
export function parseOutcome(text: string, file: string): OperationOutcome {
  let tab = text.indexOf("\t");
  if (tab < 0) return JSON.parse(text) as OperationOutcome;
  const outcome = JSON.parse(text.slice(0, tab)) as OperationOutcome;
  const draft = outcome.draft as Record<string, unknown> | undefined;
  for (const key of LAZY_SCHEMAS) {
    if (draft?.[key] !== 0) continue;
    if (tab < 0) throw new SyntaxError(`no text for the draft's ${key}`);
    const from = tab + 1;
    tab = text.indexOf("\t", from);
    const to = tab < 0 ? text.length : tab;
    defineLazySchema(draft, key, () => {
      try {
        return JSON.parse(text.slice(from, to));
      } catch {
        throw new DamagedCacheError(file, `an operation's cached ${key}`);
      }
    });
  }
  if (tab >= 0) throw new SyntaxError("more schemas than the draft has places for");
  return outcome;
}
