/**
 * Lets a run hear of each tool draft as the model stage makes it: a large cold
 * run's example worker starts on their input schemas while this thread is
 * still modelling (src/parallel/speculation.ts). At most one listener; it is
 * told only, and what it does cannot change the model.
 */
import type { JsonSchema } from "./ir.js";

export type DraftListener = (draft: { inputSchema: JsonSchema; baseName: string }) => void;

let listener: DraftListener | undefined;

/** Registers `next` until the returned function is called. */
export function listenToDrafts(next: DraftListener): () => void {
  listener = next;
  return () => {
    if (listener === next) listener = undefined;
  };
}

/** Tells the listener of `draft`, and hands it back. */
export function notifyDraft<Draft extends { inputSchema: JsonSchema; baseName: string }>(draft: Draft): Draft {
  listener?.(draft);
  return draft;
}
