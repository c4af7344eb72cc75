/**
 * A full garbage collection of this thread's heap, made on purpose (see `startExampleWorker`).
 *
 * V8 gives a new heap a small first limit for its old generation (Stripe: 25 MB, set from how much survived the
 * first scavenges) and, once the parsed spec and the model fill it, marks the heap incrementally: on a large
 * cold run that falls in the middle of the model and guidance stages, while the example worker has the other
 * core, so the main thread does nearly all the marking itself, in steps (Stripe: 16–25 ms of steps and a 2–5 ms
 * pause). Collected once right after the spec is loaded, before the worker starts, the heap holds little besides
 * the parsed spec, the idle core helps, and V8 sets the next limit from what is live: Stripe's run then needs no
 * other mark-compact (one 5.5 ms pause instead).
 *
 * `gc` is not exposed without `--expose-gc`, and the flag cannot be given to a CLI started through its `bin`;
 * set for the time it takes to make one context, it exposes `gc` there. The flag is put back at once: V8 hashes
 * its flags into every code cache check (src/code-cache.ts), and no script of ours is compiled meanwhile.
 */
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

/** Collects now if `gc` can be reached; a speed measure only, so a runtime where it cannot does nothing. */
export function collectGarbageNow(): void {
  const gc = (globalThis as { gc?: unknown }).gc ?? exposedGc();
  if (typeof gc === "function") gc();
}

function exposedGc(): unknown {
  setFlagsFromString("--expose-gc");
  try {
    return runInNewContext("typeof gc === 'function' ? gc : undefined");
  } finally {
    setFlagsFromString("--no-expose-gc");
  }
}
