/**
 * Where a real identifier comes from. For every required identifier argument
 * of a tool, the operations whose answers hold a value for it:
 *   - declared OpenAPI links, read in reverse (`get_book` links `authorId` =
 *     `$response.body#/author_id`, so `get_book` produces `get_author`'s `authorId`);
 *   - the resource's own collection: its list (`/items/0/id`) and its create
 *     (`/id`), for path parameters at any depth (`/app_packages/{appPkgId}/package_content`);
 *   - response fields named after the argument, in any operation:
 *     `authorId` ↔ `author_id` ↔ `author.id`, top level or in a list's items.
 * Producers needing one more identifier of their own get a first call (`via`),
 * so chains reach two hops. Arguments the caller already sent that the
 * producer also takes are carried (`$caller.<arg>`). Ranked: safe (GET)
 * calls first, then fewer hops, then declared links, own lists, fields, creates.
 */
import type { IdentifierProducer, JsonSchema, ProducerCall, ToolModel } from "../model/ir.js";
import { keepBest, outranked, type RankedEntry } from "./best.js";
import { identifierArgs, identifierStem } from "./identifiers.js";
import { candidates, noteOf, targetOf, type Candidate, type ProducerIndex } from "./producer-sources.js";
import { declaredTypes, normName, schemaProperties, schemaRequired } from "./schema-util.js";
import { perObject } from "./per-object.js";

export { buildProducerIndex, type ProducerIndex } from "./producer-sources.js";

/** Producers kept per argument. */
export const MAX_PRODUCERS = 3;

/** Unsafe, hops, kind, minus shared path segments, arguments to pass: lower is better. */
type Rank = [number, number, number, number, number];

/** Leading path segments two operations share: a producer near the target is likelier the right one. */
function sharedSegments(x: readonly string[], y: readonly string[]): number {
  let n = 0;
  while (n < x.length && n < y.length && x[n] === y[n]) n++;
  return n;
}

/** A tool's path split at `/`, once per tool (every candidate producer is compared with its target). */
const pathSegments = perObject((tool: ToolModel): readonly string[] => (tool.operation?.path ?? "").split("/"));

// ------------------------------------------------------------------ params

const isSafe = (tool: ToolModel): boolean =>
  tool.annotations.readOnlyHint || tool.operation?.method === "get" || tool.operation?.method === "head";

/**
 * Arguments for a producer: every argument the caller may already have sent
 * that the producer also takes is carried; a required identifier the caller
 * cannot have is produced by a first call (one hop only). Undefined when the
 * producer needs the very identifier being looked for, or an identifier no call yields
 * (most candidates: that is settled first, before the carried arguments are gathered).
 */
function producerParams(
  targetProps: Readonly<Record<string, JsonSchema>>,
  arg: string,
  keys: Set<string>,
  producer: ToolModel,
  index: ProducerIndex,
  hops: number,
): { params: Record<string, unknown>; via?: ProducerCall } | undefined {
  const sides: Sides = { arg, target: targetProps, producer: inputProperties(producer) };
  const first = firstCall(producer, keys, index, hops, sides);
  if (first === null) return undefined;
  const params: Record<string, unknown> = {};
  for (const name of inputNames(producer)) if (carried(sides, name)) params[name] = callerValue(index, name);
  if (!first) return { params };
  params[first.name] = "$via";
  return { params, via: first.via };
}

/** The argument looked for, and the input properties of the tool that needs it and of a producer. */
interface Sides {
  arg: string;
  target: Readonly<Record<string, JsonSchema>>;
  producer: Readonly<Record<string, JsonSchema>>;
}

/** A producer's argument is carried from the caller's when the caller's value can fit (a string `status` is no array `status`). */
function carried(sides: Sides, name: string): boolean {
  return name in sides.target && name !== sides.arg && sameTypes(sides.target[name], sides.producer[name]);
}

/**
 * The first call a producer needs for the one required identifier the caller cannot have sent, undefined when it
 * needs none, null when it cannot be called: it needs the argument looked for, an identifier of the same kind, a
 * second first call, or one no call yields.
 */
function firstCall(
  producer: ToolModel,
  keys: Set<string>,
  index: ProducerIndex,
  hops: number,
  sides: Sides,
): { name: string; via: ProducerCall } | undefined | null {
  const needed = identifierArgs(producer);
  let found: { name: string; via: ProducerCall } | undefined;
  for (const name of schemaRequired(producer.inputSchema)) {
    // A name like `constructor` counts as given, as it would in a plain object of the carried arguments.
    if (name === sides.arg) {
      if (name in Object.prototype) continue;
      return null;
    }
    if (!needed.has(name)) continue; // an ordinary required value: the producer's own example and corrections cover it
    // Carried (`arg` never is), or given as above: nothing to find.
    if ((Object.hasOwn(sides.producer, name) && carried(sides, name)) || name in Object.prototype) continue;
    // Needing the same kind of id to get it back is no way to get it.
    if (keys.has(normName(name)) || keys.has(stemIdKey(index, name))) return null;
    if (hops > 0 || found) return null;
    const first = rankedProducers(producer, name, index, 1)[0];
    if (!first) return null;
    found = { name, via: { tool: first.tool, params: first.params, take: first.take, note: first.note } };
  }
  return found;
}

function rankedProducers(target: ToolModel, arg: string, index: ProducerIndex, hops: number): IdentifierProducer[] {
  const byTool = index.memo[hops === 0 ? 0 : 1];
  let memo = byTool.get(target.name);
  if (!memo) byTool.set(target.name, (memo = new Map()));
  const hit = memo.get(arg);
  if (hit) return hit;
  memo.set(arg, []); // cycles end here
  const best: Found[] = [];
  const seen: Offered = new Map();
  const wanted = targetOf(target, arg, index);
  const here = pathSegments(target);
  const targetProps = inputProperties(target);
  // The best rank a candidate could have: no first call and no argument (positions 1 and 4 stay 0).
  const bound: Rank = [0, 0, 0, 0, 0];
  for (const c of candidates(target, arg, wanted, index)) {
    if (offeredBefore(seen, c)) continue;
    const unsafe = isSafe(c.tool) ? 0 : 1;
    const shared = -sharedSegments(here, pathSegments(c.tool));
    // When even that ranks below the three kept, the parameters need not be worked out (a first call's search
    // has no side effects).
    bound[0] = unsafe;
    bound[2] = c.kind;
    bound[3] = shared;
    if (outranked(best, bound, MAX_PRODUCERS)) continue;
    const filled = producerParams(targetProps, arg, wanted.keys, c.tool, index, hops);
    if (!filled) continue;
    const rank: Rank = [unsafe, filled.via ? 1 : 0, c.kind, shared, Object.keys(filled.params).length];
    keepBest(best, { candidate: c, filled, rank, name: c.tool.name }, MAX_PRODUCERS);
  }
  const kept = best.map(({ candidate, filled }) => {
    const p: IdentifierProducer = {
      tool: candidate.tool.name,
      params: filled.params,
      take: candidate.take,
      note: noteOf(candidate),
    };
    if (filled.via) p.via = filled.via;
    return p;
  });
  memo.set(arg, kept);
  return kept;
}

/** Takes already offered, by tool name (most tools offer one): a field can reach the same producer under several names. */
type Offered = Map<string, string | Set<string>>;

/** Whether the candidate's producer and take were offered before; notes them. */
function offeredBefore(seen: Offered, c: Candidate): boolean {
  const takes = seen.get(c.tool.name);
  if (takes === undefined) seen.set(c.tool.name, c.take);
  else if (typeof takes === "string") {
    if (takes === c.take) return true;
    seen.set(c.tool.name, new Set([takes, c.take]));
  } else {
    if (takes.has(c.take)) return true;
    takes.add(c.take);
  }
  return false;
}

interface Found extends RankedEntry {
  candidate: Candidate;
  filled: NonNullable<ReturnType<typeof producerParams>>;
  rank: Rank;
}

/** A tool's top-level input properties, read once per tool (every candidate producer asks for them). */
function inputProperties(tool: ToolModel): Readonly<Record<string, JsonSchema>> {
  return schemaProperties(tool.inputSchema);
}

/** Their names, listed once per tool. */
const inputNames = perObject((tool: ToolModel): readonly string[] => Object.keys(inputProperties(tool)));

/** `$caller.<name>`, made once per name (thousands of candidate producers carry the same few arguments). */
function callerValue(index: ProducerIndex, name: string): string {
  let known = index.names.caller.get(name);
  if (known === undefined) index.names.caller.set(name, (known = `$caller.${name}`));
  return known;
}

/** The key an identifier's stem gives (`author_id` → `authorid`; `id` → `id`), once per name. */
function stemIdKey(index: ProducerIndex, name: string): string {
  let known = index.names.stemId.get(name);
  if (known === undefined) index.names.stemId.set(name, (known = normName(identifierStem(name) ?? "") + "id"));
  return known;
}

/** Producers for each required identifier argument of a tool; undefined when none is known. */
export function findProducers(tool: ToolModel, index: ProducerIndex): Record<string, IdentifierProducer[]> | undefined {
  const required = new Set(schemaRequired(tool.inputSchema));
  const out: Record<string, IdentifierProducer[]> = {};
  for (const arg of identifierArgs(tool)) {
    if (!required.has(arg)) continue;
    // A tool's own search (no hops) is asked once: what it found is the tool's.
    const found = rankedProducers(tool, arg, index, 0);
    if (found.length > 0) out[arg] = found;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Both declare the same JSON types, or at least one declares none. */
function sameTypes(a: JsonSchema | undefined, b: JsonSchema | undefined): boolean {
  const x = declaredTypes(a);
  const y = declaredTypes(b);
  return x.length === 0 || y.length === 0 || (x.length === y.length && x.every((t) => y.includes(t)));
}
