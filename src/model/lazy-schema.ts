/**
 * A tool's input and response schemas parsed when first read. A tool made from a cached operation outcome holds
 * them as JSON text until something reads them (src/cache/lazy-outcome.ts): a regeneration whose guidance is all
 * cached reads few of the reused tools' (GitHub after a summary edit: 40 of ≈ 2,150, of 2.8 MB). Each property stays in its
 * place among the tool's keys, as an accessor that every such tool shares (one accessor per object would give each
 * its own hidden class), reading a non-enumerable cell. A spread would read them, so such a tool is never copied: the
 * draft becomes its tool and then its guided tool in place (src/model/openapi.ts `toolOf`, src/guidance/guide.ts); what
 * only needs a schema's identity (the example cache's keys) takes its cell (`schemaRef`).
 */

export const LAZY_SCHEMAS = ["inputSchema", "responseSchema"] as const;
export type LazySchemaKey = (typeof LAZY_SCHEMAS)[number];

/** A schema held as text until first read; copies of a tool share it. */
export class LazySchema {
  private parse: (() => unknown) | undefined;
  private value: unknown;

  constructor(parse: () => unknown) {
    this.parse = parse;
  }

  read(): unknown {
    if (this.parse) {
      this.value = this.parse();
      this.parse = undefined;
    }
    return this.value;
  }

  replace(value: unknown): void {
    this.parse = undefined;
    this.value = value;
  }
}

const CELLS: Record<LazySchemaKey, symbol> = {
  inputSchema: Symbol("lazy inputSchema"),
  responseSchema: Symbol("lazy responseSchema"),
};

type Cells = Record<symbol, LazySchema | undefined>;

function accessor(key: LazySchemaKey): PropertyDescriptor {
  const cell = CELLS[key];
  return {
    enumerable: true,
    configurable: true,
    get(this: Cells): unknown {
      return this[cell]!.read();
    },
    set(this: Cells, value: unknown) {
      this[cell]!.replace(value);
    },
  };
}

const ACCESSORS: Record<LazySchemaKey, PropertyDescriptor> = {
  inputSchema: accessor("inputSchema"),
  responseSchema: accessor("responseSchema"),
};

function attach(target: object, key: LazySchemaKey, cell: LazySchema): void {
  Object.defineProperty(target, CELLS[key], { value: cell, enumerable: false, configurable: true, writable: true });
}

/** Makes `target[key]` (already a property, holding a placeholder, so it keeps its place) what `parse` gives when read. */
export function defineLazySchema(target: object, key: LazySchemaKey, parse: () => unknown): void {
  attach(target, key, new LazySchema(parse));
  Object.defineProperty(target, key, ACCESSORS[key]);
}

/** Whether some schema of `tool` is held as text (see the module comment). */
export function hasLazySchema(tool: object): boolean {
  return LAZY_SCHEMAS.some((key) => Object.hasOwn(tool, CELLS[key]));
}

/** What identifies `tool[key]`: its cell while it is lazy (reading nothing), else the schema itself. */
export function schemaRef<T extends object>(tool: T, key: LazySchemaKey): object {
  return (tool as Cells)[CELLS[key]] ?? (tool as Record<string, object>)[key]!;
}

/** The schema a `schemaRef` stands for (parsing it if need be). */
export function readSchemaRef(ref: object): unknown {
  return ref instanceof LazySchema ? ref.read() : ref;
}
