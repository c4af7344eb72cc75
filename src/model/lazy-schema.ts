/**
 * A tool's response schema parsed when first read. A tool made from a cached operation outcome holds its response
 * schema as JSON text until something reads it (src/cache/lazy-outcome.ts): a regeneration reads none of the
 * reused tools' (GitHub: 925 of them, 1.7 MB). The property stays in its place among the tool's keys, as an
 * accessor that every such tool shares (one accessor per object would give each its own hidden class), reading the
 * text from a non-enumerable cell. A spread would read it, so such tools are copied with `copyLazyTool`.
 */

const KEY = "responseSchema";
const CELL = Symbol("lazy response schema");

interface Cell {
  parse?: () => unknown;
  value?: unknown;
}

interface Lazy {
  [CELL]: Cell;
}

const ACCESSOR: PropertyDescriptor = {
  enumerable: true,
  configurable: true,
  get(this: Lazy): unknown {
    const cell = this[CELL];
    if (cell.parse) {
      cell.value = cell.parse();
      delete cell.parse;
    }
    return cell.value;
  },
  set(this: Lazy, value: unknown) {
    const cell = this[CELL];
    delete cell.parse;
    cell.value = value;
  },
};

function attach(target: object, cell: Cell): void {
  Object.defineProperty(target, CELL, { value: cell, enumerable: false, configurable: true, writable: true });
  Object.defineProperty(target, KEY, ACCESSOR);
}

/** Makes `target`'s response schema (already a property, holding a placeholder) the value `parse` gives when read. */
export function defineLazySchema(target: object, parse: () => unknown): void {
  attach(target, { parse });
}

/** Whether `tool`'s response schema is still held as text (see the module comment). */
export function hasLazySchema(tool: object): boolean {
  return Object.hasOwn(tool, CELL);
}

/** `{ ...source }` without the keys in `omit`, for a `source` with a lazy response schema: it stays lazy, shared. */
export function copyLazyTool<T extends object>(source: T, omit: readonly string[] = []): T {
  const copy = {} as Record<string, unknown>;
  for (const key of Object.keys(source))
    if (key === KEY) Object.defineProperty(copy, KEY, ACCESSOR);
    else if (!omit.includes(key)) copy[key] = (source as Record<string, unknown>)[key];
  Object.defineProperty(copy, CELL, {
    value: (source as unknown as Lazy)[CELL],
    enumerable: false,
    configurable: true,
    writable: true,
  });
  return copy as T;
}
