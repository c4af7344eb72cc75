/**
 * A function of an object, computed once per object for as long as it lives. Guidance asks the same questions
 * of the same (often shared) schema and tool objects, tool after tool; the answers must never be modified.
 */
export function perObject<K extends object, V>(compute: (key: K) => V): (key: K) => V {
  const known = new WeakMap<K, V>();
  return (key) => {
    let value = known.get(key);
    if (value === undefined) known.set(key, (value = compute(key)));
    return value;
  };
}
