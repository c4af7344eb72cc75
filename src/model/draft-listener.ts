/**
 * Lets a run hear of each tool draft as the model stage makes it: a large cold run's example worker starts on
 * their input schemas while this thread is still modelling (src/parallel/ahead.ts). At most one listener; it is
 * only told, and what it does cannot change the model. Should two runs in one process overlap, the later one's
 * listener hears the other's drafts too, which costs its worker time only: an outcome computed ahead is used only
 * for the same schema and seed.
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

/** Tells the listener, if any, of a draft the model stage has finished; whatever it throws is not the model's. */
export function notifyDraft(draft: { inputSchema: JsonSchema; baseName: string } | undefined): void {
  if (!draft || !listener) return;
  try {
    listener(draft);
  } catch {
    listener = undefined;
  }
}
