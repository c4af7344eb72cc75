import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Diagnostic, JsonSchema } from "../../src/model/ir.js";
import {
  SchemaMemo,
  toBoundedJsonSchema,
  toJsonSchema,
  toSharedBoundedJsonSchema,
  type SchemaContext,
} from "../../src/model/schema.js";
import { withoutRepeats } from "../../src/model/schema-memo.js";

type Edge = { keyword: "properties" | "items" | "allOf" | "additionalProperties"; target: number };
interface NodeSpec {
  type: "object" | "array" | "string";
  edges: Edge[];
  badPattern: boolean;
  readOnly: boolean;
  writeOnly: boolean;
}

/** Schema objects that refer to each other as a dereferenced document's do: shared, and in cycles. */
function buildGraph(specs: NodeSpec[]): Array<Record<string, unknown>> {
  const nodes = specs.map((spec, index) => {
    const node: Record<string, unknown> = { type: spec.type, title: `N${index}`, description: `node ${index}` };
    if (spec.badPattern) node.pattern = "(?<";
    if (spec.readOnly) node.readOnly = true;
    if (spec.writeOnly) node.writeOnly = true;
    return node;
  });
  specs.forEach((spec, index) => {
    const node = nodes[index]!;
    spec.edges.forEach(({ keyword, target }, position) => {
      const child = nodes[target % nodes.length]!;
      if (keyword === "properties") {
        node.properties = { ...(node.properties as object), [`p${position}`]: child };
        node.required = [...((node.required as string[]) ?? []), `p${position}`];
      } else if (keyword === "allOf") node.allOf = [...((node.allOf as unknown[]) ?? []), child];
      else node[keyword] = child;
    });
  });
  return nodes;
}

const nodeSpec = fc.record({
  type: fc.constantFrom("object" as const, "array" as const, "string" as const),
  edges: fc.array(
    fc.record({
      keyword: fc.constantFrom(
        "properties" as const,
        "items" as const,
        "allOf" as const,
        "additionalProperties" as const,
      ),
      target: fc.nat(20),
    }),
    { maxLength: 4 },
  ),
  badPattern: fc.boolean(),
  readOnly: fc.boolean(),
  writeOnly: fc.boolean(),
});
const conversion = fc.record({
  entry: fc.nat(20),
  direction: fc.constantFrom("input" as const, "output" as const),
  maxDepth: fc.integer({ min: 1, max: 7 }),
  maxChars: fc.option(fc.integer({ min: 50, max: 3000 }), { nil: undefined }),
});

interface Converted {
  schema: JsonSchema;
  diagnostics: Diagnostic[];
  reduced?: number;
}

function run(
  nodes: Array<Record<string, unknown>>,
  step: fc.Infer<typeof conversion>,
  index: number,
  memo: SchemaMemo | undefined,
): Converted {
  const diagnostics: Diagnostic[] = [];
  const context: SchemaContext = { direction: step.direction, maxDepth: step.maxDepth, diagnostics, memo };
  const source = nodes[step.entry % nodes.length];
  const pointer = `#/paths/op${index}/schema`;
  if (step.maxChars === undefined) return { schema: toJsonSchema(source, pointer, context), diagnostics };
  let reduced: number | undefined;
  const schema = toBoundedJsonSchema(source, pointer, context, step.maxChars, (depth) => (reduced = depth));
  return { schema, diagnostics, ...(reduced === undefined ? {} : { reduced }) };
}

/** Runs `check` on every conversion step of random schema graphs, each run with one fresh memo. */
function forEveryStep(
  maxSteps: number,
  numRuns: number,
  check: (
    nodes: Array<Record<string, unknown>>,
    memo: SchemaMemo,
    step: fc.Infer<typeof conversion>,
    index: number,
  ) => void,
): void {
  fc.assert(
    fc.property(
      fc.array(nodeSpec, { minLength: 1, maxLength: 8 }),
      fc.array(conversion, { minLength: 1, maxLength: maxSteps }),
      (specs, steps) => {
        const nodes = buildGraph(specs);
        const memo = new SchemaMemo();
        steps.forEach((step, index) => check(nodes, memo, step, index));
      },
    ),
    { numRuns },
  );
}

/** The same JSON, the same diagnostics (pointers included) and the same reduced depth. */
function expectSameConversion(actual: Converted, expected: Converted): void {
  expect(JSON.stringify(actual.schema)).toBe(JSON.stringify(expected.schema));
  expect(actual.diagnostics).toEqual(expected.diagnostics);
  expect(actual.reduced).toBe(expected.reduced);
}

describe("SchemaMemo (conversions shared by the tools of one model run)", () => {
  it("converts every schema exactly as a fresh conversion does, diagnostics and their pointers included", () => {
    forEveryStep(12, 400, (nodes, memo, step, index) => {
      expectSameConversion(run(nodes, step, index, memo), run(nodes, step, index, undefined));
    });
  });

  it("keeps the depth that trying every depth in full would keep, though it picks it by lengths alone", () => {
    // The reference: each depth converted in full and measured by JSON.stringify (no memo: no length walk).
    const reference = (source: unknown, step: fc.Infer<typeof conversion>, pointer: string, maxChars: number) => {
      for (let depth = step.maxDepth; ; depth--) {
        const diagnostics: Diagnostic[] = [];
        const schema = toJsonSchema(source, pointer, { direction: step.direction, maxDepth: depth, diagnostics });
        if (depth <= 1 || JSON.stringify(schema).length <= maxChars)
          return { schema, diagnostics, ...(depth < step.maxDepth ? { reduced: depth } : {}) };
      }
    };
    forEveryStep(12, 400, (nodes, memo, step, index) => {
      const bounded = { ...step, maxChars: step.maxChars ?? 400 };
      const source = nodes[step.entry % nodes.length];
      const expected = reference(source, bounded, `#/paths/op${index}/schema`, bounded.maxChars);
      for (const actual of [run(nodes, bounded, index, undefined), run(nodes, bounded, index, memo)])
        expectSameConversion(actual, expected);
    });
  });

  it("bounds a schema bounded before at the depth found then, with the same result and its own pointers", () => {
    forEveryStep(6, 300, (nodes, memo, step, index) => {
      const bounded = { ...step, maxChars: step.maxChars ?? 400 };
      // The second time round, the same schema object under the same limits, from another operation.
      for (const at of [index, index + 100])
        expectSameConversion(run(nodes, bounded, at, memo), run(nodes, bounded, at, undefined));
    });
  });

  it("shares a component's conversion between tools, and a caller's changes to its top level stay its own", () => {
    const address = { type: "object", properties: { street: { type: "string" }, zip: { type: "string" } } };
    const memo = new SchemaMemo();
    const context = (): SchemaContext => ({ direction: "input", maxDepth: 5, diagnostics: [], memo });
    const first = toJsonSchema({ type: "object", properties: { home: address } }, "#/a", context());
    const second = toJsonSchema({ type: "object", properties: { work: address } }, "#/b", context());
    const home = (first.properties as Record<string, JsonSchema>).home!;
    expect((second.properties as Record<string, JsonSchema>).work).toBe(home);
    const top = toJsonSchema(address, "#/c", context());
    top.description = "changed by a caller";
    expect(home.description).toBeUndefined();
    expect(toJsonSchema(address, "#/d", context()).description).toBeUndefined();
  });
});

const response = fc.record({
  entry: fc.nat(20),
  inline: fc.boolean(),
  maxDepth: fc.integer({ min: 1, max: 7 }),
  maxChars: fc.integer({ min: 50, max: 3000 }),
});

describe("toSharedBoundedJsonSchema (one object per response schema object and limits)", () => {
  it("bounds as a fresh conversion does, and gives every bounding of one object under one limit the same object", () => {
    fc.assert(
      fc.property(
        fc.array(nodeSpec, { minLength: 1, maxLength: 8 }),
        fc.array(response, { minLength: 1, maxLength: 12 }),
        (specs, steps) => {
          const nodes = buildGraph(specs);
          const memo = new SchemaMemo();
          const byLimits = new Map<string, JsonSchema>();
          steps.forEach((step, index) => {
            const node = nodes[step.entry % nodes.length]!;
            // An inline schema is an object of its own per operation: equal content, not shared.
            const source = step.inline ? { type: "array", items: node } : node;
            const pointer = `#/paths/op${index}/schema`;
            const limits = { direction: "output" as const, maxDepth: step.maxDepth };
            const fresh = { ...limits, diagnostics: [] as Diagnostic[] };
            const shared = { ...limits, diagnostics: [] as Diagnostic[], memo };
            const expected = toBoundedJsonSchema(source, pointer, fresh, step.maxChars);
            const actual = toSharedBoundedJsonSchema(source, pointer, shared, step.maxChars);
            expect(JSON.stringify(actual)).toBe(JSON.stringify(expected));
            expect(shared.diagnostics).toEqual(fresh.diagnostics);
            const key = `${step.entry % nodes.length} ${step.maxDepth} ${step.maxChars}`;
            if (step.inline) expect(toSharedBoundedJsonSchema(source, pointer, shared, step.maxChars)).toBe(actual);
            else if (byLimits.has(key)) expect(actual).toBe(byLimits.get(key));
            else byLimits.set(key, actual);
            // The top level is never a conversion kept inside other schemas, and never a caller's copy.
            expect(toBoundedJsonSchema(source, pointer, { ...shared, diagnostics: [] }, step.maxChars)).not.toBe(
              actual,
            );
          });
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe("withoutRepeats (one object per sub-schema inside one tool's input)", () => {
  it("copies repeats and the path down to them, leaving the shared conversions untouched", () => {
    const tag = { type: "object", properties: { name: { type: "string" } } };
    const post = { type: "object", properties: { tags: { type: "array", items: tag }, main: tag } };
    const memo = new SchemaMemo();
    const context = (): SchemaContext => ({ direction: "input", maxDepth: 6, diagnostics: [], memo });
    const body = toJsonSchema(post, "#/body", context());
    const single = toJsonSchema(tag, "#/tag", context());
    const before = JSON.stringify(body);
    const input = withoutRepeats({ type: "object", properties: { body, tag: single }, additionalProperties: false });
    expect(JSON.stringify(input)).toBe(
      JSON.stringify({ type: "object", properties: { body, tag: single }, additionalProperties: false }),
    );
    const objects: object[] = [];
    const collect = (node: unknown): void => {
      if (typeof node !== "object" || node === null) return;
      if (!Array.isArray(node)) objects.push(node);
      for (const value of Object.values(node)) collect(value);
    };
    collect(input);
    expect(new Set(objects).size).toBe(objects.length);
    expect(JSON.stringify(body)).toBe(before);
    // The tag inside `tags` and `main` were one memo entry; a fresh conversion of the body still gets it.
    const again = toJsonSchema(post, "#/again", context());
    expect((again.properties as Record<string, JsonSchema>).main).toBe(
      (body.properties as Record<string, JsonSchema>).main,
    );
  });
});
