/**
 * An operation outcome in the model cache keeps its tool's response schema as text until something reads it
 * (src/cache/lazy-outcome.ts, src/model/lazy-schema.ts): read back, it serialises as it was stored, stays lazy
 * through the model's assembly and the guidance stage (where a cached draft becomes its tool and guided tool in
 * place), and a damaged schema is found when read.
 */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DamagedCacheError } from "../../src/cache/damaged.js";
import { outcomeText, parseOutcome } from "../../src/cache/lazy-outcome.js";
import { MODEL_CACHE_FILE } from "../../src/cache/model-cache.js";
import { generate } from "../../src/generate.js";
import { addGuidance } from "../../src/guidance/guide.js";
import { hasLazySchema, LazySchema, schemaRef } from "../../src/model/lazy-schema.js";
import type { ToolGuidance } from "../../src/model/ir.js";
import { assembleOpenApiModel, type OpenApiPrelude, type OperationOutcome } from "../../src/model/openapi.js";
import { modelFrom, SAMPLES } from "../helpers/pipeline.js";
import { projectFiles } from "../helpers/project.js";

const FILE = "model.json";

/** The catalogue's tools as the outcomes the model was assembled from (a draft is a tool before its unique name). */
async function outcomes(): Promise<OperationOutcome[]> {
  const model = await modelFrom(join(SAMPLES, "catalogue.yaml"));
  return model.tools.map(({ name, ...tool }) => ({
    draft: { baseName: name, identity: `op ${name}`, ...tool },
    diagnostics: [],
    credentialNotes: [],
    addedSchemes: 0,
  }));
}

const prelude = { api: { name: "x" }, diagnostics: [] } as unknown as OpenApiPrelude;

/** The outcomes, the model assembled from plain copies of them, and the outcomes as a cache read gives them back. */
async function plainAndRead() {
  const all = await outcomes();
  const plain = assembleOpenApiModel(
    prelude,
    structuredClone(all).map((outcome) => ({ outcome })),
  );
  return { all, plain, read: all.map((outcome) => parseOutcome(outcomeText(outcome, JSON.stringify), FILE)) };
}

describe("a cached operation outcome", () => {
  it("reads back as stored, its schemas parsed only when read", async () => {
    const all = await outcomes();
    const withResponse = all.filter((outcome) => outcome.draft?.responseSchema !== undefined);
    expect(withResponse.length).toBeGreaterThan(3);
    expect(withResponse.length).toBeLessThan(all.length); // some without one: only the input schema follows
    for (const outcome of all) {
      const text = outcomeText(outcome, JSON.stringify);
      expect(text.split("\t")).toHaveLength(outcome.draft?.responseSchema === undefined ? 2 : 3);
      const read = parseOutcome(text, FILE);
      expect(hasLazySchema(read.draft!)).toBe(true);
      // Same keys in the same order, same values: the same JSON.
      expect(JSON.stringify(read)).toBe(JSON.stringify(outcome));
      expect(read).toEqual(outcome);
    }
    // Without a draft (a hidden operation): plain JSON.
    const hidden: OperationOutcome = { diagnostics: [], credentialNotes: [], addedSchemes: 0 };
    expect(outcomeText(hidden, JSON.stringify)).toBe(JSON.stringify(hidden));
    expect(parseOutcome(JSON.stringify(hidden), FILE)).toEqual(hidden);
  });

  it("stays lazy through the model's assembly and shares one parse with its tool", async () => {
    const { plain, read } = await plainAndRead();
    const lazy = assembleOpenApiModel(
      prelude,
      read.map((outcome) => ({ outcome })),
    );
    const index = lazy.tools.findIndex((tool) => tool.responseSchema !== undefined);
    expect(index).toBeGreaterThanOrEqual(0);
    const tool = lazy.tools[index]!;
    expect(Object.keys(tool)).toEqual(Object.keys(plain.tools[index]!));
    const draft = read.filter((outcome) => outcome.draft)[index]!.draft!;
    // One parse, seen from both.
    expect(tool.responseSchema).toBe(draft.responseSchema);
    expect(tool.responseSchema).toEqual(plain.tools[index]!.responseSchema);
    expect(JSON.stringify(lazy)).toBe(JSON.stringify(plain));
    // Assigning replaces it, for both.
    tool.responseSchema = { type: "string" };
    expect(draft.responseSchema).toEqual({ type: "string" });
  });

  it("becomes its tool in place, and its tool its guided tool, with what copies would hold, schemas unread", async () => {
    const { all, plain, read } = await plainAndRead();
    const drafts = read.map((outcome) => outcome.draft!);
    const lazy = assembleOpenApiModel(
      prelude,
      read.map((outcome) => ({ outcome })),
    );
    lazy.tools.forEach((tool, index) => {
      // The draft itself, without its naming members, its name last: the members and order of the plain tool.
      expect(tool).toBe(drafts[index]);
      expect(Object.keys(tool)).toEqual(Object.keys(plain.tools[index]!));
      expect(hasLazySchema(tool)).toBe(true);
    });
    // Cached guidance, given as it is and as a function that reads it: the guided tools are the tools themselves.
    const guidanceOf = (index: number) => ({ hints: { minimal: `tool ${index}` } }) as unknown as ToolGuidance;
    const cache = (asFunction: boolean) => ({
      lookup: (index: number) => ({
        guidance: asFunction ? () => guidanceOf(index) : guidanceOf(index),
        diagnostics: [],
      }),
      store: () => {
        throw new Error("nothing to store: every tool's guidance is cached");
      },
    });
    const expected = JSON.stringify(addGuidance(plain, { guidanceCache: cache(false) }));
    for (const asFunction of [false, true]) {
      const again = all.map((outcome) => parseOutcome(outcomeText(outcome, JSON.stringify), FILE));
      const model = assembleOpenApiModel(
        prelude,
        again.map((outcome) => ({ outcome })),
      );
      const guided = addGuidance(model, { guidanceCache: cache(asFunction) });
      guided.tools.forEach((tool, index) => expect(tool).toBe(model.tools[index]));
      // Nothing read the schemas meanwhile: still text.
      const cells = model.tools.map((tool) => schemaRef(tool, "inputSchema"));
      expect(cells.every((cell) => cell instanceof LazySchema)).toBe(true);
      expect(JSON.stringify(guided)).toBe(expected);
    }
  });

  it("with a damaged response schema fails when read, naming the file; a damaged rest fails at once", async () => {
    const outcome = (await outcomes()).find((candidate) => candidate.draft?.responseSchema !== undefined)!;
    const text = outcomeText(outcome, JSON.stringify);
    const damaged = parseOutcome(`${text.slice(0, -1)} oops`, FILE);
    expect(damaged.draft!.name).toBeUndefined();
    expect(() => damaged.draft!.responseSchema).toThrow(DamagedCacheError);
    expect(() => damaged.draft!.responseSchema).toThrow(/model\.json: an operation's cached responseSchema/);
    expect(damaged.draft!.inputSchema).toEqual(outcome.draft!.inputSchema);
    expect(() => parseOutcome(`{${text}`, FILE)).toThrow(SyntaxError);
    // A tab but no placeholder where the schema belongs: not this writer's text.
    expect(() => parseOutcome(`${JSON.stringify(outcome)}\t{}`, FILE)).toThrow(SyntaxError);
    expect(() => parseOutcome(`${text}\t{}`, FILE)).toThrow(SyntaxError);
    expect(() => parseOutcome(text.slice(0, text.lastIndexOf("\t")), FILE)).toThrow(SyntaxError);
  });

  it("damaged in the cache file: a run that reads it starts again without the caches and writes what a cold run writes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cgm-lazy-outcome-"));
    cpSync(SAMPLES, join(dir, "samples"), { recursive: true });
    const spec = join(dir, "samples", "catalogue.yaml");
    const out = join(dir, "out");
    const lines: string[] = [];
    await generate({ from: spec, out });
    const modelFile = join(out, MODEL_CACHE_FILE);
    // Every input schema's text broken, the lines otherwise whole (as a hand edit leaves them).
    const damaged = readFileSync(modelFile, "latin1").replace(/^(operations\t\w+\t[^\t\n]*\t)\{/gm, "$1{ oops ");
    expect(damaged).not.toBe(readFileSync(modelFile, "latin1"));
    writeFileSync(modelFile, damaged);
    // A new operation: every tool's guidance is computed again, reading every tool's response schema.
    const text = readFileSync(spec, "utf8").replace(
      /^paths:\n/m,
      "paths:\n  /health:\n    get:\n      operationId: health\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              schema:\n                type: object\n                properties:\n                  status:\n                    type: string\n",
    );
    expect(text).toContain("/health:");
    writeFileSync(spec, text);
    const warm = await generate({ from: spec, out, onProgress: (line) => lines.push(line) });
    expect(lines.join("\n")).toMatch(/model\.json: an operation's cached inputSchema does not parse/);
    expect(warm.modelCache).toEqual({ hits: 0, misses: warm.model.tools.length });
    const cold = join(dir, "cold");
    await generate({ from: spec, out: cold });
    const except = [".guided-mcp/cache", ".guided-mcp/manifest.json", "CHANGELOG.md"];
    expect(projectFiles(out, except)).toEqual(projectFiles(cold, except));
  });
});
