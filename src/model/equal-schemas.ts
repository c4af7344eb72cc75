/**
 * One schema object for each content among response schemas. Operations
 * often declare the same answer inline (`{type: array, items: <repository>}`),
 * and each inline declaration is an object of its own: GitHub's 926 responses
 * are 641 objects, but only ~470 contents. The memo and the bounded depth
 * (see schema-memo.ts) are kept per object, so each such copy was converted
 * and bounded anew, and the tools' response schemas were distinct objects for
 * equal JSON (so per-object memos downstream missed too).
 *
 * Two schemas count as equal when their top `LEVELS` levels have the same
 * keys in the same order with the same values, and below (or wherever a
 * schema lies on a cycle, where identity decides which stubs a conversion
 * makes) they refer to the very same objects. Their conversions are then the
 * same: a conversion depends on a schema's own keys and on its sub-schemas,
 * and an object on no cycle is never its own ancestor. Values that are data
 * (`enum`, `examples`…) compare as JSON when they are primitives or lists of
 * primitives, and by identity otherwise (no walk into large or odd examples).
 */
import { SUB_SCHEMA_KINDS } from "./schema-keywords.js";

const LEVELS = 3;

export class EqualSchemas {
  /** The first object met with each content key. */
  private readonly byKey = new Map<string, object>();
  /** Each object asked about, and the one that stands for it. */
  private readonly chosen = new Map<object, object>();
  /** Numbers for objects compared by identity. */
  private readonly ids = new Map<object, number>();

  /** `onCycle` tells whether a schema object lies on a cycle of sub-schema references. */
  constructor(private readonly onCycle: (schema: object) => boolean) {}

  /** The first object asked about whose content equals `schema`'s (`schema` itself if none). */
  representative(schema: object): object {
    let chosen = this.chosen.get(schema);
    if (chosen) return chosen;
    const key = this.schemaKey(schema, 0);
    chosen = this.byKey.get(key);
    if (!chosen) this.byKey.set(key, (chosen = schema));
    this.chosen.set(schema, chosen);
    return chosen;
  }

  private schemaKey(schema: unknown, level: number): string {
    if (!isRecord(schema)) return this.dataKey(schema);
    if (level >= LEVELS || this.onCycle(schema)) return this.identity(schema);
    let key = "{";
    for (const name of Object.keys(schema)) {
      const value = schema[name];
      const kind = SUB_SCHEMA_KINDS.get(name);
      key += `${JSON.stringify(name)}:`;
      if (kind === "map" && isRecord(value)) key += this.mapKey(value, level + 1);
      else if (kind !== undefined && kind !== "map" && Array.isArray(value))
        key += `[${value.map((item) => this.schemaKey(item, level + 1)).join(",")}]`;
      else if (kind === "single") key += this.schemaKey(value, level + 1);
      else key += this.dataKey(value);
      key += ",";
    }
    return `${key}}`;
  }

  private mapKey(map: Record<string, unknown>, level: number): string {
    let key = "{";
    for (const name of Object.keys(map)) key += `${JSON.stringify(name)}:${this.schemaKey(map[name], level)},`;
    return `${key}}`;
  }

  /** Primitives and lists of primitives as JSON; any other object by identity. */
  private dataKey(value: unknown): string {
    if (value === undefined) return "u";
    if (typeof value !== "object" || value === null) return JSON.stringify(value);
    if (Array.isArray(value) && value.every((item) => item === null || typeof item !== "object"))
      return `[${value.map((item) => (item === undefined ? "u" : JSON.stringify(item))).join(",")}]`;
    return this.identity(value);
  }

  /** `#n`: no JSON text starts with `#`, so an identity never equals a content. */
  private identity(value: object): string {
    let id = this.ids.get(value);
    if (id === undefined) this.ids.set(value, (id = this.ids.size));
    return `#${id}`;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
