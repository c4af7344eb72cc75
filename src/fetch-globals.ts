/**
 * The `$ref` resolver reads `typeof Headers` when it merges its options, and in
 * Node that global is a lazy accessor: its first read loads Node's whole fetch
 * implementation (undici), 20–60 ms of CPU, more than any stage of a small run.
 * A run that reads no URL never needs it. So while `run` goes, `Headers` is a
 * stand-in class that nothing is an instance of (the resolver only asks
 * `value instanceof Headers` of its options), and the accessor is put back after.
 * `fetch` itself is unaffected: it loads undici on its first call, with its own `Headers`.
 */
export async function withoutLoadingFetch<T>(run: () => Promise<T>): Promise<T> {
  const descriptor = Object.getOwnPropertyDescriptor(globalThis, "Headers");
  // Already loaded (a plain value), or not Node's lazy accessor: nothing to save.
  if (!descriptor?.get || !descriptor.configurable) return run();
  Object.defineProperty(globalThis, "Headers", { value: class Headers {}, configurable: true, writable: true });
  try {
    return await run();
  } finally {
    Object.defineProperty(globalThis, "Headers", descriptor);
  }
}
