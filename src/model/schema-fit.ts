/**
 * The JSON length a conversion (schema.ts) would have at a given depth, found
 * without building it. `toBoundedJsonSchema` tries depths from the deepest
 * down until the result fits; most tries of a large schema are rejected
 * (GitHub: 678 of 1,604 response tries, 5,775 of its 9,057 output node
 * conversions; Stripe: 381 tries, 5,084 of 6,536), and each used to build
 * the whole tree, keep it in the memo and measure it, only to drop it.
 *
 * A converted node is its own keywords (the same at every depth: see
 * schema-node.ts) with each sub-schema replaced by that sub-schema's
 * conversion one level deeper, so its JSON length is its own part's length
 * plus its sub-schemas' lengths. Each node's own part is measured once per
 * direction: read off the node when the conversion only drops keywords and
 * replaces sub-schemas (most nodes), else from its conversion with a
 * placeholder for every sub-schema. The walk mirrors `convert`: stubs where
 * the depth runs out or a schema is open further up, and it stops once the
 * length passes the limit. A node on no cycle converts alike wherever it is
 * reached (see schema-memo.ts), so its length at each remaining depth is
 * kept, exact or at least this much; once met without a depth stub, for
 * every greater depth too.
 */
import type { JsonSchema } from "./ir.js";
import { isObject } from "../normalise/index.js";
import { SCHEMA_KEYWORDS, SCHEMA_LIST_KEYWORDS, SCHEMA_MAP_KEYWORDS, type SchemaDirection } from "./schema-keywords.js";
import { ANY_DEPTH, type SchemaMemo } from "./schema-memo.js";
import { jsonLengthUpTo, jsonStringLength } from "./schema-length.js";
import {
  convertNode,
  ENUM,
  EXCLUSIVE,
  hasRepeats,
  isDropped,
  isHiddenInDirection,
  keywordBits,
  NULLABLE,
  PATTERNS,
  REQUIRED,
  stubFor,
  TYPE,
} from "./schema-node.js";

/** One node's own part: its JSON length with every sub-schema left out, and its sub-schemas in order. */
interface Shape {
  own: number;
  children: unknown[];
}

/**
 * What the walks of one model run know of a schema object, per direction.
 * One record per object, so a visit looks one up once.
 */
interface NodeFit {
  /** On a cycle of sub-schema references (see `SchemaMemo.onCycle`): its length then depends on what is open above it. */
  cyclic: boolean;
  shape: Shape | undefined;
  /** Its length at every remaining depth from `uncutFrom` up, where no part of it meets the depth limit; -1: unknown. */
  full: number;
  uncutFrom: number;
  /** By remaining depth, below `uncutFrom`: an exact length, or `-1 - n` when it is at least `n`. */
  cut: number[] | undefined;
  /** The stub it becomes where the depth runs out; -1 until measured. */
  depthStub: number;
}

const states = new WeakMap<SchemaMemo, Record<SchemaDirection, Map<object, NodeFit>>>();

function stateOf(memo: SchemaMemo, direction: SchemaDirection): Map<object, NodeFit> {
  let both = states.get(memo);
  if (!both) states.set(memo, (both = { input: new Map(), output: new Map() }));
  return both[direction];
}

/** What stands for a sub-schema while a node's own part is measured, `{}`, is two characters long. */
const PLACEHOLDER_LENGTH = 2;
/** `{"not":{}}`, what `false` converts to. */
const FALSE_LENGTH = 10;

/**
 * The JSON length of `schema` converted with `maxDepth` levels, when it is at
 * most `limit`; past that, some number above `limit`.
 */
export function convertedLengthUpTo(
  schema: unknown,
  direction: SchemaDirection,
  maxDepth: number,
  limit: number,
  memo: SchemaMemo,
): number {
  const walk = new LengthWalk(stateOf(memo, direction), direction, limit, memo);
  walk.visit(schema, maxDepth, new Set());
  return walk.length;
}

class LengthWalk {
  length = 0;
  /** Depth stubs met so far (a node whose walk met none has the same length at any greater depth). */
  private cuts = 0;

  constructor(
    private readonly fits: Map<object, NodeFit>,
    private readonly direction: SchemaDirection,
    private readonly limit: number,
    private readonly memo: SchemaMemo,
  ) {}

  /** `ancestors`: the schemas on a cycle open above (one on no cycle is never reached again below itself). */
  visit(node: unknown, remaining: number, ancestors: Set<object>): void {
    if (node === false) this.length += FALSE_LENGTH;
    else if (!isObject(node)) this.length += PLACEHOLDER_LENGTH;
    else {
      const fit = this.fitOf(node);
      if (fit.cyclic && ancestors.has(node)) this.length += stubLength(node, true);
      else if (remaining <= 0) {
        this.cuts++;
        if (fit.depthStub < 0) fit.depthStub = stubLength(node, false);
        this.length += fit.depthStub;
      } else if (fit.cyclic) {
        ancestors.add(node);
        this.visitObject(node, fit, remaining, ancestors);
        ancestors.delete(node);
      } else this.visitAcyclic(node, fit, remaining, ancestors);
    }
  }

  /** A node on no cycle: its length at `remaining` depends on nothing else, so it is kept. */
  private visitAcyclic(node: Record<string, unknown>, fit: NodeFit, remaining: number, ancestors: Set<object>): void {
    if (remaining >= fit.uncutFrom) {
      this.length += fit.full;
      return;
    }
    const kept = fit.cut?.[remaining];
    if (kept !== undefined) {
      if (kept >= 0) {
        this.cuts++;
        this.length += kept;
        return;
      }
      // At least this much: enough when it passes the limit.
      if (this.length - 1 - kept > this.limit) {
        this.length += -1 - kept;
        return;
      }
    }
    const start = this.length;
    const cutsBefore = this.cuts;
    this.visitObject(node, fit, remaining, ancestors);
    const measured = this.length - start;
    if (this.length > this.limit) {
      // Stopped early: at least what was measured.
      (fit.cut ??= [])[remaining] = -1 - Math.max(measured, kept === undefined ? 0 : -1 - kept);
    } else if (this.cuts === cutsBefore) {
      fit.full = measured;
      fit.uncutFrom = remaining;
    } else (fit.cut ??= [])[remaining] = measured;
  }

  private visitObject(node: Record<string, unknown>, fit: NodeFit, remaining: number, ancestors: Set<object>): void {
    const shape = (fit.shape ??= plainShape(node, this.direction) ?? this.convertedShape(node));
    this.length += shape.own;
    for (const child of shape.children) {
      if (this.length > this.limit) break;
      this.visit(child, remaining - 1, ancestors);
    }
  }

  private fitOf(node: Record<string, unknown>): NodeFit {
    let fit = this.fits.get(node);
    if (!fit) {
      fit = {
        cyclic: !this.memo.unshared(node) && this.memo.onCycle(node),
        shape: undefined,
        full: -1,
        uncutFrom: ANY_DEPTH,
        cut: undefined,
        depthStub: -1,
      };
      this.fits.set(node, fit);
    }
    return fit;
  }

  /** Any node's shape, from its conversion with placeholders for its sub-schemas. */
  private convertedShape(node: Record<string, unknown>): Shape {
    // A placeholder of its own per sub-schema: the node's checks may drop one again (an invalid patternProperties key).
    const placed = new Map<JsonSchema, unknown>();
    const out = convertNode(node, "", this.direction, [], (child) => {
      const placeholder: JsonSchema = {};
      placed.set(placeholder, child);
      return placeholder;
    });
    const children = placedIn(out, placed);
    return { own: jsonLengthUpTo(out, Infinity) - PLACEHOLDER_LENGTH * children.length, children };
  }
}

function stubLength(node: Record<string, unknown>, recursive: boolean): number {
  return jsonLengthUpTo(stubFor(node, recursive), Infinity);
}

/** The sub-schemas whose placeholders stayed in `out`: as keyword values, in lists, or in maps. */
function placedIn(out: JsonSchema, placed: Map<JsonSchema, unknown>): unknown[] {
  const children: unknown[] = [];
  if (placed.size === 0) return children;
  const take = (value: unknown) => {
    if (placed.has(value as JsonSchema)) children.push(placed.get(value as JsonSchema));
  };
  for (const key of Object.keys(out)) {
    const value = out[key];
    if (typeof value !== "object" || value === null) continue;
    if (placed.has(value as JsonSchema)) take(value);
    else if (Array.isArray(value)) for (const item of value) take(item);
    else for (const name of Object.keys(value)) take((value as Record<string, unknown>)[name]);
  }
  return children;
}

/** How each schema-valued keyword holds its sub-schemas. */
const KINDS = new Map<string, "map" | "list" | "single">([
  ...SCHEMA_MAP_KEYWORDS.map((keyword) => [keyword, "map"] as const),
  ...SCHEMA_LIST_KEYWORDS.map((keyword) => [keyword, "list"] as const),
  ...SCHEMA_KEYWORDS.map((keyword) => [keyword, "single"] as const),
]);

/**
 * The shape of a node whose conversion only drops keywords and replaces
 * sub-schemas (most nodes), read from the node itself; undefined when the
 * conversion may change its own keywords too (see `convertNode`: nullable,
 * legacy bounds, `file`, type lists, `required`, patterns, empty `enum`,
 * tuple `items`, hidden properties), and `convertedShape` measures it.
 */
function plainShape(node: Record<string, unknown>, direction: SchemaDirection): Shape | undefined {
  const keys = Object.keys(node);
  if (!plainOwnKeywords(node, direction, keywordBits(keys))) return undefined;
  const children: unknown[] = [];
  let own = 2;
  let members = 0;
  for (const key of keys) {
    if (isDropped(key)) continue;
    const value = node[key];
    if (value === undefined || typeof value === "function" || typeof value === "symbol") continue;
    own += (members++ > 0 ? 1 : 0) + jsonStringLength(key) + 1;
    const kind = KINDS.get(key);
    if (kind === "map" && isObject(value)) {
      const names = Object.keys(value);
      if (key === "properties" && names.some((name) => isHiddenInDirection(value[name], direction))) return undefined;
      own += 2 + Math.max(0, names.length - 1);
      for (const name of names) {
        own += jsonStringLength(name) + 1;
        children.push(value[name]);
      }
    } else if (kind === "list" && Array.isArray(value)) {
      own += 2 + Math.max(0, value.length - 1);
      for (const item of value) children.push(item);
    } else if (kind === "single" && typeof value !== "boolean") {
      if (key === "items" && Array.isArray(value)) return undefined;
      children.push(value);
    } else own += valueLength(value);
  }
  // OpenAPI's `example` becomes `examples` (unless the node has those).
  if (node.example !== undefined && node.examples === undefined)
    own += (members > 0 ? 1 : 0) + EXAMPLES_MEMBER + valueLength(node.example);
  return { own, children };
}

/** `"examples":[]`, without the example. */
const EXAMPLES_MEMBER = '"examples":[]'.length;

/** A keyword value's JSON length: strings (most of them) without setting up a walk. */
function valueLength(value: unknown): number {
  return typeof value === "string" ? jsonStringLength(value) : jsonLengthUpTo(value, Infinity);
}

/**
 * Whether `convertNode` leaves every own keyword of `node` as it is (those it
 * keeps); `present`: its keyword bits, so that only keywords it has are read.
 */
function plainOwnKeywords(node: Record<string, unknown>, direction: SchemaDirection, present: number): boolean {
  if (present & PATTERNS) return false;
  if (present & NULLABLE && (node.nullable === true || node["x-nullable"] === true)) return false;
  if (present & EXCLUSIVE && (typeof node.exclusiveMinimum === "boolean" || typeof node.exclusiveMaximum === "boolean"))
    return false;
  if (present & TYPE && !plainType(node.type)) return false;
  if (present & ENUM && Array.isArray(node.enum) && node.enum.length === 0) return false;
  return (present & REQUIRED) === 0 || plainRequired(node.required, node.properties, direction);
}

/** A `type` kept as it is: a name other than Swagger's `file`, or a list of such names without repeats. */
function plainType(type: unknown): boolean {
  if (typeof type === "string") return type !== "file";
  if (!Array.isArray(type) || hasRepeats(type)) return false;
  for (const name of type) if (typeof name !== "string" || name === "file") return false;
  return true;
}

/** A `required` list the conversion keeps as it is: names, none repeated, none of a hidden property. */
function plainRequired(required: unknown, properties: unknown, direction: SchemaDirection): boolean {
  if (!Array.isArray(required) || required.length === 0 || hasRepeats(required)) return false;
  for (const name of required) {
    if (typeof name !== "string") return false;
    if (isObject(properties) && isHiddenInDirection(properties[name], direction)) return false;
  }
  return true;
}
