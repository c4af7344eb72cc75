/**
 * Keeps the generator's main thread on a core of its own.
 *
 * V8 runs its optimising compiler and parts of its garbage collector on a pool
 * of background threads: four by default, whatever the number of cores. The
 * generator's work is all on the main thread, and on a 2-core machine those
 * threads kept taking its core. On a Stripe run, the main thread was runnable
 * but not running for 0.13–0.16 s of 0.8 s. Lowering the background threads'
 * priority lets them use whatever core is idle without taking the main
 * thread's. They still do all their work, and a wall-time saving is the only
 * effect.
 *
 * This only works on Linux. There a process's threads are listed in
 * `/proc/self/task`, and `setpriority` applies to one thread id. Elsewhere,
 * or where a thread refuses, nothing changes. V8's pool exists from
 * start-up. libuv's is made at the first task queued to it, so one is queued
 * here first, and it is lowered too: it reads, writes and compresses while the
 * main thread waits for it or works beside it, and a lowered thread still has
 * any idle core. Worker threads made later are started by the main thread and
 * keep its priority.
 */
import { readdirSync, stat } from "node:fs";
import { constants, setPriority } from "node:os";

export function yieldBackgroundThreads(): void {
  if (process.platform !== "linux") return;
  // libuv starts all its pool's threads, and waits for them, when the first task is queued: then they are listed.
  stat("/proc/self/task", () => {});
  let threads: string[];
  try {
    threads = readdirSync("/proc/self/task");
  } catch {
    return;
  }
  for (const thread of threads) {
    const id = Number(thread);
    if (id === process.pid) continue;
    try {
      setPriority(id, constants.priority.PRIORITY_LOW);
    } catch {
      // A thread that ended meanwhile, or a system that refuses: its priority stays as it was.
    }
  }
}
