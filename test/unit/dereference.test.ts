import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { dereferenceSpec, dereferenceWithParser, hasExternalRef } from "../../src/dereference/index.js";
import { dereferenceInternal } from "../../src/dereference/internal.js";
import { loadSpec } from "../../src/load/index.js";
import { normaliseSpec, type NormalisedSpec } from "../../src/normalise/index.js";
import { sampleDirectorySpecs, specLabel } from "../helpers/corpus.js";
import { SAMPLES } from "../helpers/pipeline.js";

/**
 * The object graph as a list: objects numbered in first-visit order, each
 * with its keys, primitive values and the numbers of the objects it holds.
 * Equal lists mean equal content, equal sharing and equal cycles.
 */
function graphShape(root: unknown): string {
  const numbers = new Map<object, number>();
  const lines: string[] = [];
  const pending: object[] = [];
  const numberOf = (node: object) => {
    if (!numbers.has(node)) {
      numbers.set(node, numbers.size);
      pending.push(node);
    }
    return numbers.get(node)!;
  };
  numberOf(root as object);
  while (pending.length > 0) {
    const node = pending.shift()!;
    const fields = Object.keys(node).map((key) => {
      const value = (node as Record<string, unknown>)[key];
      return `${JSON.stringify(key)}:${typeof value === "object" && value !== null ? `#${numberOf(value)}` : JSON.stringify(value)}`;
    });
    lines.push(`${numbers.get(node)} ${Array.isArray(node) ? "[" : "{"}${fields.join(",")}`);
  }
  return lines.join("\n");
}

async function bothWays(spec: NormalisedSpec) {
  const mine = structuredClone(spec.document);
  const result = dereferenceInternal(mine);
  const theirs = await dereferenceWithParser({ ...spec, document: structuredClone(spec.document) });
  return {
    simple: result !== undefined,
    internal: `${graphShape(mine)}\ncircular: ${result?.circular}`,
    parser: `${graphShape(theirs.document)}\ncircular: ${theirs.circular}`,
  };
}

describe("hasExternalRef (whether the parser must look for other files)", () => {
  it.each([
    ["internal refs only", { a: { $ref: "#/b" }, b: [{ $ref: "#/a" }] }, false],
    ["a file ref deep in a list", { a: [{ b: [{ c: { $ref: "other.yaml#/X" } }] }] }, true],
    ["a URL ref", { a: { $ref: "https://example.com/s.json" } }, true],
    ["a $ref that is not a string is no ref", { a: { $ref: { $ref: "#/x" } } }, false],
    ["an empty $ref counts (the parser decides)", { a: { $ref: "" } }, true],
  ])("%s", (_name, document, expected) => {
    expect(hasExternalRef(document)).toBe(expected);
  });

  it("ends on shared and cyclic objects", () => {
    const node: Record<string, unknown> = { type: "object" };
    node.self = node;
    expect(hasExternalRef({ a: node, b: node, c: [node, node] })).toBe(false);
  });

  it("a document with a file ref still has it resolved", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cgm-deref-"));
    writeFileSync(join(dir, "pet.json"), JSON.stringify({ type: "object", properties: { name: { type: "string" } } }));
    const document = {
      openapi: "3.1.0",
      info: { title: "t", version: "1" },
      components: { schemas: { Pet: { $ref: "pet.json" } } },
    };
    const spec = { kind: "openapi", document, location: pathToFileURL(join(dir, "api.json")).href, source: "api.json" };
    const { document: dereferenced } = await dereferenceSpec(spec as unknown as NormalisedSpec);
    expect((dereferenced as { components: { schemas: { Pet: unknown } } }).components.schemas.Pet).toEqual({
      type: "object",
      properties: { name: { type: "string" } },
    });
  });
});

describe("dereferenceInternal (the parser's result for documents with plain internal references)", () => {
  it("gives the parser's object graph for the samples and a sample of real specs, or leaves the document alone", async () => {
    const sources = [
      ...["petstore.yaml", "catalogue.yaml", "inventory-swagger2.json", "library-openapi31.yaml"].map(
        (name) => SAMPLES + name,
      ),
      ...sampleDirectorySpecs(40, { maxBytes: 600_000 }),
    ];
    let simple = 0;
    for (const source of sources) {
      const spec = normaliseSpec(await loadSpec(source));
      const before = `${graphShape(spec.document)}\ncircular: undefined`;
      const result = await bothWays(spec);
      if (result.simple) {
        simple++;
        expect(result.internal, specLabel(source)).toBe(result.parser);
      } else expect(result.internal, specLabel(source)).toBe(before);
    }
    expect(simple).toBeGreaterThan(sources.length / 2);
  });

  it.each([
    ["a cycle and a shared target", { a: { p: { $ref: "#/b" } }, b: { q: { $ref: "#/a" }, r: { $ref: "#/b" } } }, true],
    ["escaped tokens and array indexes", { "x/y": { "t~n": [{ v: 1 }] }, z: { $ref: "#/x~1y/t~0n/0" } }, true],
    ["the whole document", { a: { $ref: "#" }, b: 1 }, true],
    ["a reference with siblings", { a: { $ref: "#/b", description: "d" }, b: { c: 1 } }, false],
    ["a chain of references", { a: { $ref: "#/b" }, b: { $ref: "#/c" }, c: { d: 1 } }, false],
    ["a missing target", { a: { $ref: "#/nowhere" } }, false],
    ["an encoded pointer", { "a b": { c: 1 }, d: { $ref: "#/a%20b" } }, false],
    ["a schema identifier", { $id: "https://example.com/root", a: { $ref: "#/b" }, b: { c: 1 } }, false],
    ["an anchor is no reference", { a: { $ref: "#anchor" }, b: { $anchor: "anchor" } }, true],
    ["references to a list and into it", { a: [1, { b: 2 }], c: { $ref: "#/a" }, d: [{ $ref: "#/a/1" }] }, true],
    [
      "a target holding references",
      { s: { p: { $ref: "#/t" } }, t: { q: [{ $ref: "#/s" }] }, u: { $ref: "#/s/p" } },
      false,
    ],
    [
      "a property named $ref is no reference",
      { s: { properties: { $ref: { type: "string" } } }, u: { $ref: "#/s" } },
      true,
    ],
  ])("%s", async (_name, document, expectedSimple) => {
    const spec = {
      kind: "openapi",
      document,
      location: "file:///tmp/api.json",
      source: "api.json",
      sourceVersion: "3.1.0",
    };
    const before = graphShape(document);
    const mine = structuredClone(document);
    const result = dereferenceInternal(mine);
    const simple = result !== undefined;
    expect(simple).toBe(expectedSimple);
    if (!simple) {
      expect(graphShape(mine)).toBe(before);
      return;
    }
    const theirs = await dereferenceWithParser({
      ...(spec as unknown as NormalisedSpec),
      document: structuredClone(document),
    });
    expect(graphShape(mine)).toBe(graphShape(theirs.document));
    expect(result!.circular).toBe(theirs.circular);
  });
});

describe("the direct walk's depth limit", () => {
  /** `levels` objects nested under the root's `a`, the innermost holding `leaf`. */
  const nested = (levels: number, leaf: unknown) => {
    const root: Record<string, unknown> = { openapi: "3.1.0" };
    let holder = root;
    for (let level = 1; level <= levels; level++) holder = (holder[level === 1 ? "a" : "x"] = {}) as typeof root;
    holder["v"] = leaf;
    return root;
  };

  it.each([
    ["a plain value", 1],
    ["an object", {}],
  ])("leaves %s nested past the parser's limit less 10 (391 levels) to the parser", (_name, leaf) => {
    expect(dereferenceInternal(nested(389, leaf))).toEqual({ circular: false });
    expect(dereferenceInternal(nested(390, leaf))).toBeUndefined();
  });
});
