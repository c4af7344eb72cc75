import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { dereferenceSpec, dereferenceWithParser } from "../../src/dereference/index.js";
import { dereferenceInternal } from "../../src/dereference/internal.js";
import { sharedObjectsOf } from "../../src/dereference/shared.js";
import { buildModel } from "../../src/model/index.js";
import type { NormalisedSpec } from "../../src/normalise/index.js";

/**
 * Unshared schemas (reached by their one parent only) are converted without the memo (`SchemaMemo.unshared`).
 * The `$ref` parser's documents carry no such knowledge, so every schema of theirs goes through the memo: the
 * two must give the same model, on documents whose references form cycles, whose inline schemas sit below
 * components and operations, and where one inline object sits in two places (as a YAML alias puts it).
 */
describe("shared objects of a dereferenced document (src/dereference/shared.ts)", () => {
  it("are the targets of references and objects reached along a second edge; nothing when a list is shared", () => {
    const inline = { type: "string" };
    const target = { type: "object", properties: { name: inline } };
    const once = { type: "integer" };
    const document = {
      paths: { "/a": { post: { requestBody: { content: { "application/json": { schema: { $ref: "#/T" } } } } } } },
      T: target,
      twice: [inline],
      single: once,
    };
    expect(dereferenceInternal(document)).toEqual({ circular: false });
    const shared = sharedObjectsOf(document)!;
    expect(shared.has(target)).toBe(true);
    expect(shared.has(inline)).toBe(true);
    expect(shared.has(once)).toBe(false);

    const list = [{ type: "string" }];
    const withList = { a: { allOf: list }, b: { anyOf: list } };
    expect(dereferenceInternal(withList)).toEqual({ circular: false });
    expect(sharedObjectsOf(withList)).toBeUndefined();
  });

  it("convert as through the memo: the model equals the one from the $ref parser's document", async () => {
    await fc.assert(
      fc.asyncProperty(documentSpec, async (spec) => {
        const document = buildDocument(spec);
        const normalised = (copy: unknown): NormalisedSpec => ({
          kind: "openapi",
          sourceVersion: "3.1.0",
          document: copy as NormalisedSpec["document"],
          location: "memory:spec.json",
          source: "spec.json",
        });
        // structuredClone keeps an object held in two places one object.
        const direct = await dereferenceSpec(normalised(structuredClone(document)));
        expect(sharedObjectsOf(direct.document)).toBeDefined();
        const parsed = await dereferenceWithParser(normalised(structuredClone(document)));
        expect(sharedObjectsOf(parsed.document)).toBeUndefined();
        const options = { outputSchemaChars: spec.outputChars, outputDepth: spec.outputDepth };
        const mine = buildModel(direct, options);
        const theirs = buildModel(parsed, options);
        expect(JSON.stringify(mine.tools)).toBe(JSON.stringify(theirs.tools));
        expect(mine.diagnostics).toEqual(theirs.diagnostics);
      }),
      { numRuns: 150 },
    );
  });
});

/** A sub-schema: a reference to a component, an inline schema (by its number), or the alias object. */
type Child = { ref: number } | { inline: number } | { alias: true };
type Keyword = "properties" | "items" | "allOf" | "additionalProperties";
interface SchemaSpec {
  type: "object" | "array" | "string";
  children: Array<{ keyword: Keyword; child: Child }>;
  badPattern: boolean;
  readOnly: boolean;
  writeOnly: boolean;
}

const child: fc.Arbitrary<Child> = fc.oneof(
  fc.record({ ref: fc.nat(5) }),
  fc.record({ inline: fc.nat(5) }),
  fc.constant({ alias: true as const }),
);
const schemaSpec: fc.Arbitrary<SchemaSpec> = fc.record({
  type: fc.constantFrom("object" as const, "array" as const, "string" as const),
  children: fc.array(
    fc.record({
      keyword: fc.constantFrom<Keyword>("properties", "items", "allOf", "additionalProperties"),
      child,
    }),
    { maxLength: 3 },
  ),
  badPattern: fc.boolean(),
  readOnly: fc.boolean(),
  writeOnly: fc.boolean(),
});
const documentSpec = fc.record({
  components: fc.array(schemaSpec, { minLength: 1, maxLength: 6 }),
  inline: fc.array(schemaSpec, { minLength: 1, maxLength: 6 }),
  operations: fc.array(
    fc.record({ body: child, response: child, sharedResponse: fc.boolean(), parameter: child, pathParameter: child }),
    { minLength: 1, maxLength: 4 },
  ),
  outputChars: fc.integer({ min: 60, max: 2000 }),
  outputDepth: fc.integer({ min: 1, max: 6 }),
});

/**
 * The document: components (`C<n>`) referring to each other and to inline schemas; inline schema `n` refers
 * to components and to inline schemas after it only (a tree but for the alias), so cycles pass through a
 * component, as in a real document. One inline object, the alias, sits in several places.
 */
function buildDocument(spec: fc.Infer<typeof documentSpec>): Record<string, unknown> {
  const alias: Record<string, unknown> = { type: "string", description: "held in two places" };
  const schema = (node: SchemaSpec, index: number, inlineFrom: number): Record<string, unknown> => {
    const out: Record<string, unknown> = { type: node.type, title: `S${index}` };
    if (node.badPattern) out.pattern = "(?<";
    if (node.readOnly) out.readOnly = true;
    if (node.writeOnly) out.writeOnly = true;
    node.children.forEach(({ keyword, child }, position) => {
      const value = childOf(child, inlineFrom);
      if (value === undefined) return;
      if (keyword === "properties") {
        out.properties = { ...(out.properties as object), [`p${position}`]: value };
        out.required = [...((out.required as string[]) ?? []), `p${position}`];
      } else if (keyword === "allOf") out.allOf = [...((out.allOf as unknown[]) ?? []), value];
      else out[keyword] = value;
    });
    return out;
  };
  // A fresh inline schema per place: only the alias is one object in several.
  const childOf = (child: Child, inlineFrom: number): unknown => {
    if ("alias" in child) return alias;
    if ("ref" in child) return { $ref: `#/components/schemas/C${child.ref % spec.components.length}` };
    const index = inlineFrom + child.inline;
    return index < spec.inline.length ? schema(spec.inline[index]!, 100 + index, index + 1) : { type: "integer" };
  };
  const schemas = Object.fromEntries(spec.components.map((node, index) => [`C${index}`, schema(node, index, 0)]));
  const media = (child: Child) => ({ "application/json": { schema: childOf(child, 0) } });
  const responses: Record<string, unknown> = {};
  const firstResponse = spec.operations[0]!.sharedResponse
    ? "#/components/responses/R0"
    : "#/paths/~1op0/post/responses/200";
  const paths: Record<string, unknown> = {};
  spec.operations.forEach((operation, index) => {
    const response = { description: "ok", content: media(operation.response) };
    if (operation.sharedResponse) responses[`R${index}`] = response;
    paths[`/op${index}`] = {
      // A path item's parameter is reached once per method; an operation's own, once; a component's, from several.
      parameters: [{ name: "h", in: "header", schema: childOf(operation.pathParameter, 0) }],
      post: {
        operationId: `op${index}`,
        parameters: [
          { name: "q", in: "query", schema: childOf(operation.parameter, 0) },
          { $ref: "#/components/parameters/P" },
        ],
        requestBody: { content: media(operation.body) },
        responses: { "200": operation.sharedResponse ? { $ref: `#/components/responses/R${index}` } : response },
      },
      // A response object reached from two operations, through a reference into another operation.
      get: { operationId: `get${index}`, responses: { "200": { $ref: firstResponse } } },
    };
  });
  return {
    openapi: "3.1.0",
    info: { title: "Shared", version: "1" },
    paths,
    components: {
      schemas,
      responses,
      parameters: { P: { name: "p", in: "query", schema: childOf({ inline: 0 }, 0) } },
    },
  };
}
