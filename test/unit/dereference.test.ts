import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { dereferenceSpec, hasExternalRef } from "../../src/dereference/index.js";
import type { NormalisedSpec } from "../../src/normalise/index.js";

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
