import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Diagnostic } from "../../src/model/ir.js";
import { SchemaMemo, toJsonSchema, type SchemaDirection } from "../../src/model/schema.js";
import { convertedLengthUpTo } from "../../src/model/schema-fit.js";

/**
 * Own keywords that the conversion keeps, drops or rewrites (schema-node.ts): the length walk reads the plain ones
 * from the node itself and must measure every other one as the conversion writes it.
 */
const OWN_KEYWORDS: Record<string, fc.Arbitrary<unknown>> = {
  type: fc.constantFrom<unknown>("string", "object", "file", ["string", "null"], ["string", "string"], ["file"], [1]),
  description: fc.constantFrom("d", 'with "quotes" and \\ and \u0001', "é ü", "\ud800 lone"),
  nullable: fc.boolean(),
  "x-nullable": fc.boolean(),
  example: fc.constantFrom<unknown>("e", 3, null, { nested: [1, "x"] }),
  examples: fc.constantFrom<unknown>(["a"], []),
  enum: fc.constantFrom<unknown>([], ["a", "b"], [null]),
  minimum: fc.constantFrom(1, 2.5, 1e21),
  exclusiveMinimum: fc.constantFrom<unknown>(true, false, 3),
  exclusiveMaximum: fc.constantFrom<unknown>(true, false),
  maximum: fc.constant(10),
  pattern: fc.constantFrom<unknown>("^a+$", "(?<", 5, "^(a+)+$"),
  required: fc.constantFrom<unknown>(["p0"], ["p0", "p0"], ["p1", 3], [], "p0", ["ghost"]),
  readOnly: fc.boolean(),
  writeOnly: fc.boolean(),
  xml: fc.constant({ name: "x" }),
  "x-extension": fc.constant(1),
  $ref: fc.constant("#/elsewhere"),
  default: fc.constantFrom<unknown>("x", { a: 1 }, [true]),
};

/** A few own keywords per node, so that many nodes are plain and others have one rewrite or another. */
const ownKeywords = fc
  .array(fc.oneof(...Object.entries(OWN_KEYWORDS).map(([key, value]) => value.map((v) => [key, v] as const))), {
    maxLength: 4,
  })
  .map((pairs) => Object.fromEntries(pairs) as Record<string, unknown>);

type Edge = {
  keyword: "properties" | "items" | "tuple" | "allOf" | "additionalProperties" | "patternProperties";
  name: string;
  target: number;
};

const edge = fc.record({
  keyword: fc.constantFrom(
    "properties" as const,
    "items" as const,
    "tuple" as const,
    "allOf" as const,
    "additionalProperties" as const,
    "patternProperties" as const,
  ),
  name: fc.constantFrom("p0", "p1", "__proto__", "(?<", "é"),
  target: fc.nat(20),
});

/** Sub-schemas that are not objects: the conversion turns them into `{}` or `{"not":{}}`, or keeps booleans. */
const LEAVES: unknown[] = [true, false, "text", null, 7, ["list"]];

/** Schema objects sharing each other (and in cycles), with leaves that are not schema objects. */
function buildGraph(specs: Array<{ own: Record<string, unknown>; edges: Edge[] }>): Array<Record<string, unknown>> {
  const nodes = specs.map(({ own }) => ({ ...own }));
  specs.forEach(({ edges }, index) => {
    const node = nodes[index]!;
    for (const { keyword, name, target } of edges) {
      const child = target < nodes.length * 2 ? nodes[target % nodes.length] : LEAVES[target % LEAVES.length];
      if (keyword === "properties" || keyword === "patternProperties") {
        const map = (node[keyword] ??= {}) as Record<string, unknown>;
        Object.defineProperty(map, name, { value: child, enumerable: true, writable: true, configurable: true });
      } else if (keyword === "allOf") node.allOf = [...((node.allOf as unknown[]) ?? []), child];
      else if (keyword === "tuple") node.items = [...(Array.isArray(node.items) ? node.items : []), child];
      else node[keyword] = child;
    }
  });
  return nodes;
}

const graph = fc.array(fc.record({ own: ownKeywords, edges: fc.array(edge, { maxLength: 4 }) }), {
  minLength: 1,
  maxLength: 8,
});

describe("convertedLengthUpTo (the depth of a bounded schema, found without building the tries)", () => {
  it("is the converted schema's JSON length up to the limit, and above the limit past it", () => {
    fc.assert(
      fc.property(
        graph,
        fc.array(
          fc.record({
            entry: fc.nat(20),
            direction: fc.constantFrom<SchemaDirection>("input", "output"),
            maxDepth: fc.integer({ min: 0, max: 6 }),
            limit: fc.integer({ min: 0, max: 4000 }),
            rising: fc.boolean(),
          }),
          { minLength: 1, maxLength: 10 },
        ),
        (specs, steps) => {
          const nodes = buildGraph(specs);
          // One memo for all steps: what earlier walks learnt (exact lengths, lower bounds) must not change a later one.
          const memo = new SchemaMemo();
          for (const { entry, direction, maxDepth, limit, rising } of steps) {
            const source = nodes[entry % nodes.length];
            // Depths in both orders: a node's length learnt at one depth must not stand in for another.
            for (let step = 0; step <= maxDepth; step++) {
              const depth = rising ? step : maxDepth - step;
              const diagnostics: Diagnostic[] = [];
              const converted = toJsonSchema(source, "#/s", { direction, maxDepth: depth, diagnostics });
              const expected = JSON.stringify(converted).length;
              const measured = convertedLengthUpTo(source, direction, depth, limit, memo);
              if (expected <= limit) expect(measured).toBe(expected);
              else expect(measured).toBeGreaterThan(limit);
            }
          }
        },
      ),
      { numRuns: 600 },
    );
  });
});
