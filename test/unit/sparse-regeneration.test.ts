/**
 * A regeneration that parses only what it reads (src/cache/sparse-document.ts, `loadSpecCached` in
 * src/cache/incremental.ts): the sparse document reads as `JSON.parse` of the same text, and a regeneration that
 * takes it writes what a regeneration parsing the whole spec writes, and what a cold generation writes.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { CACHE_DIR } from "../../src/cache/index.js";
import { loadSpecCached } from "../../src/cache/sparse-load.js";
import { openModelCache } from "../../src/cache/model-cache.js";
import {
  fitsSkeleton,
  holdsObject,
  isSparseDocument,
  scanSkeleton,
  sparseDocument,
  sparseJsonDocument,
} from "../../src/cache/sparse-document.js";
import { moveSkeletonBy } from "../../src/cache/sparse-moves.js";
import { readPreviousKeys, specEdit } from "../../src/cache/key-table.js";
import { generate, generatorVersion } from "../../src/generate.js";
import { GeneratorError } from "../../src/diagnostics.js";
import { projectFiles } from "../helpers/project.js";

// Counts full parses of a spec file (a sparse regeneration makes none).
const fullParses = vi.hoisted(() => ({ count: 0 }));
vi.mock("../../src/load/index.js", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../src/load/index.js")>();
  return {
    ...original,
    parseSpecFile: (...args: Parameters<typeof original.parseSpecFile>) => {
      fullParses.count++;
      return original.parseSpecFile(...args);
    },
  };
});

type Document = Record<string, unknown> & { paths: Record<string, Record<string, Record<string, unknown>>> };

const GITHUB = createRequire(import.meta.url).resolve("@octokit/openapi/generated/api.github.com.json");
const githubText = readFileSync(GITHUB, "utf8");

/** Reads every member (JSON.stringify calls each getter), in enumeration order. */
const readAll = (value: unknown) => JSON.stringify(value);

describe("a sparse JSON document", () => {
  it("reads as JSON.parse of the same text", () => {
    const texts = [
      '{"b":1,"a":{"x":[1,{"y":"}]\\"{["}],"2":true,"1":null},"b":2}',
      '\uFEFF  {"paths":{"/a":{"get":{"summary":"s"},"get":{"summary":"later"},"parameters":[],"x-mcp":{"k":1}},"/b":null},' +
        '"components":{"schemas":{"10":{"type":"string"},"Pet":{"$ref":"#/components/schemas/10"},"__proto__":{"a":1}},"x":3},' +
        '"definitions":{"a\\"b\\\\c\\u00e9":{"type":"integer"}},"parameters":[],"responses":{}}\n',
      '{"paths":[],"components":"none","info":{"title":"t \\ud83d\\ude80"},"__proto__":{"polluted":true}}',
      '{ "openapi" : "3.0.0" , "paths" : { "/x" : { "get" : { } , "put" : [ ] , "post" : 12 } } }',
    ];
    for (const text of texts) {
      const sparse = sparseJsonDocument(Buffer.from(text));
      expect(sparse, text).toBeDefined();
      expect(isSparseDocument(sparse)).toBe(true);
      expect(readAll(sparse)).toBe(readAll(JSON.parse(text.replace(/^\uFEFF/, ""))));
      expect(Object.getPrototypeOf(sparse)).toBe(Object.prototype);
    }
    expect(readAll(sparseJsonDocument(Buffer.from(githubText)))).toBe(readAll(JSON.parse(githubText)));
    const compact = JSON.stringify(JSON.parse(githubText));
    expect(readAll(sparseJsonDocument(Buffer.from(compact)))).toBe(compact);
  });

  it("says which members hold objects before reading them, and parses a member once, when read", () => {
    const parse = vi.spyOn(JSON, "parse");
    try {
      const sparse = sparseJsonDocument(
        Buffer.from(
          '{"paths":{"/x":{"get":{"a":1},"put":[],"post":null,"parameters":[{"in":"query"}]}},' +
            '"components":{"schemas":{"A":{"type":"string"},"B":{"type":"integer"}}},"info":{"title":"t"}}',
        ),
      ) as Document & { components: { schemas: Record<string, unknown> }; info: unknown };
      // A path item's own fields are parsed at once; nothing else until read, not even by listing keys.
      expect(parse).toHaveBeenCalledTimes(1);
      const item = sparse.paths["/x"]!;
      expect(Object.keys(item)).toEqual(["get", "put", "post", "parameters"]);
      expect(Object.keys(sparse)).toEqual(["paths", "components", "info"]);
      const schemas = sparse.components.schemas;
      expect(Object.keys(schemas)).toEqual(["A", "B"]);
      expect(Object.hasOwn(schemas, "A") && "B" in schemas).toBe(true);
      expect(item["parameters"]).toEqual([{ in: "query" }]);
      expect(["get", "put", "post", "delete"].map((method) => holdsObject(item, method))).toEqual([
        true,
        false,
        false,
        false,
      ]);
      expect(parse).toHaveBeenCalledTimes(1);
      const get = item["get"];
      expect(get).toEqual({ a: 1 });
      expect(item["get"]).toBe(get);
      expect(schemas["B"]).toEqual({ type: "integer" });
      expect(schemas["B"]).toBe(schemas["B"]);
      expect(parse).toHaveBeenCalledTimes(3);
      // A member written, defined or deleted before it is read is never read from the text.
      item["put"] = { replaced: true };
      expect(item["put"]).toEqual({ replaced: true });
      expect(holdsObject(item, "put")).toBe(true);
      schemas["A"] = 7;
      expect(schemas["A"]).toBe(7);
      Object.defineProperty(sparse, "info", { value: 8, writable: true, enumerable: true, configurable: true });
      expect(sparse.info).toBe(8);
      expect(parse).toHaveBeenCalledTimes(3);
      expect(JSON.stringify(sparse)).toBe(
        '{"paths":{"/x":{"get":{"a":1},"put":{"replaced":true},"post":null,"parameters":[{"in":"query"}]}},' +
          '"components":{"schemas":{"A":7,"B":{"type":"integer"}}},"info":8}',
      );
    } finally {
      parse.mockRestore();
    }
    const other = sparseJsonDocument(Buffer.from('{"a":{"b":1},"c":2}')) as Record<string, unknown>;
    delete other["a"];
    expect(other["a"]).toBeUndefined();
    expect(JSON.stringify(other)).toBe('{"c":2}');
    expect({ ...other }).toEqual({ c: 2 });
  });

  it("refuses text that is not one JSON object", () => {
    for (const text of ["[1]", '{"a":1} {}', '{"a" 1}', '{"a":1,}', '{"a":"unclosed}', "", '{"a":{"b":1}'])
      expect(sparseJsonDocument(Buffer.from(text)), text).toBeUndefined();
  });
});

describe("a skeleton moved past an edit", () => {
  const github = JSON.parse(githubText) as Document;
  const operationAt = (document: Document, index: number) =>
    Object.values(document.paths).flatMap((item) => Object.values(item))[index] as Record<string, unknown>;

  it.each([undefined, 2])("equals the scan of the edited text (GitHub, indent %s)", (indent) => {
    const before = Buffer.from(JSON.stringify(github, null, indent));
    const skeleton = scanSkeleton(before)!;
    const edits: Array<(document: Document) => void> = [
      (document) => (operationAt(document, 0)["summary"] += " (edited — café 🚀)"),
      (document) => (operationAt(document, 700)["description"] = 'a "quoted" } ] { [ text\\'),
      (document) => delete operationAt(document, 1222)["parameters"],
      (document) => (operationAt(document, 5)["x-extra"] = { $ref: "#/components/schemas/repository" }),
    ];
    for (const edit of edits) {
      const copy = structuredClone(github);
      edit(copy);
      const after = Buffer.from(JSON.stringify(copy, null, indent));
      const found = specEdit(before, after, skeleton);
      expect(found).toEqual(specEdit(before, after));
      if (typeof found !== "object") throw new Error("no operation edit found");
      const oldEnd = found.end - (after.length - before.length);
      const moved = moveSkeletonBy(structuredClone(skeleton), [[found.start, oldEnd, found.end - found.start]]);
      expect(moved).toEqual(scanSkeleton(after));
      expect(fitsSkeleton(after, moved)).toBe(true);
      expect(fitsSkeleton(after, skeleton)).toBe(false);
      expect(readAll(sparseDocument(after, moved))).toBe(readAll(copy));
    }
  });
});

describe("a regeneration that parses only the edited operation", () => {
  const github = JSON.parse(githubText) as Document;
  const operation = (document: Document, path: string, method: string) => document.paths[path]![method]!;
  // One operation edited each time: its summary, one of its parameters, the schema its response refers to.
  const edits: Array<[string, (document: Document) => void]> = [
    ["summary", (document) => (operation(document, "/repos/{owner}/{repo}", "get")["summary"] += " (edited)")],
    [
      "parameter",
      (document) =>
        (operation(document, "/repos/{owner}/{repo}/issues", "get")["parameters"] as unknown[]).push({
          name: "x-extra",
          in: "query",
          description: "An added filter.",
          schema: { type: "string", enum: ["a", "b"] },
        }),
    ],
    [
      "response $ref",
      (document) => {
        const json = (operation(document, "/user", "get")["responses"] as Record<string, Record<string, unknown>>)[
          "200"
        ]!["content"] as Record<string, { schema: unknown }>;
        json["application/json"]!.schema = { $ref: "#/components/schemas/simple-user" };
      },
    ],
    // A `__proto__` member stops the in-place upgrade of the pruned document; the library upgrades its text instead.
    [
      "__proto__ member",
      (document) => {
        const edited = operation(document, "/user", "get");
        edited["summary"] += " (with a note)";
        edited["x-note"] = JSON.parse('{"__proto__":{"example":1}}');
      },
    ],
  ];

  it("writes what a full parse writes (report, changelog, merged user edits, --check) and what a cold run writes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cgm-sparse-"));
    const spec = join(dir, "github.json");
    writeFileSync(spec, JSON.stringify(github));
    const project = join(dir, "project");
    await generate({ from: spec, out: project });
    // A user's edit to a generated file, merged by every regeneration.
    const readme = join(project, "README.md");
    writeFileSync(readme, readFileSync(readme, "utf8").replace(/\n/, "\nNotes of our own.\n"));
    await generate({ from: spec, out: project });
    const except = [CACHE_DIR];
    let edited = structuredClone(github);
    for (const [name, edit] of edits) {
      edited = structuredClone(edited);
      edit(edited);
      writeFileSync(spec, JSON.stringify(edited));
      const cache = openModelCache(project, generatorVersion());
      // The first edit's run scans the spec; it records where the members lie, so the later ones need no scan.
      expect(readPreviousKeys(project, `${cache.code}\0file\0`)?.skeleton !== undefined, name).toBe(name !== "summary");
      expect(isSparseDocument((await loadSpecCached(spec, {}, cache)).document), name).toBe(true);
      // The same regeneration, parsing the whole spec: without the record, the keys are computed in full.
      const full = join(dir, `full-${name}`);
      cpSync(project, full, { recursive: true });
      rmSync(join(full, CACHE_DIR, "keys.json"));
      const fullCheck = await generate({ from: spec, out: full, check: true });
      const sparseCheck = await generate({ from: spec, out: project, check: true });
      expect(sparseCheck.stale, name).toEqual(fullCheck.stale);
      expect(sparseCheck.stale!.length).toBeGreaterThan(0);
      fullParses.count = 0;
      const fullRun = await generate({ from: spec, out: full });
      expect(fullParses.count).toBe(1);
      fullParses.count = 0;
      const sparseRun = await generate({ from: spec, out: project });
      expect(fullParses.count, name).toBe(0);
      expect(sparseRun.reportText, name).toBe(fullRun.reportText);
      expect(sparseRun.modelCache, name).toEqual({ hits: 1222, misses: 1 });
      expect(projectFiles(project, except), name).toEqual(projectFiles(full, except));
      expect(readFileSync(readme, "utf8")).toContain("Notes of our own.");
      expect((await generate({ from: spec, out: project, check: true })).stale).toEqual([]);
    }
    const cold = join(dir, "cold");
    await generate({ from: spec, out: cold });
    const generated = [CACHE_DIR, ".guided-mcp/manifest.json", "CHANGELOG.md", "README.md"];
    expect(projectFiles(project, generated)).toEqual(projectFiles(cold, generated));
  }, 120_000);

  it("parses in full what it cannot prove one operation's edit, and reports a too-deep operation as a cold run does", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cgm-sparse-refused-"));
    const spec = join(dir, "github.json");
    writeFileSync(spec, JSON.stringify(github));
    const project = join(dir, "project");
    await generate({ from: spec, out: project });
    await generate({ from: spec, out: project });
    const cache = () => openModelCache(project, generatorVersion());
    const twoEdits = structuredClone(github);
    operation(twoEdits, "/repos/{owner}/{repo}", "get")["summary"] += "!";
    operation(twoEdits, "/user", "get")["summary"] += "!";
    writeFileSync(spec, JSON.stringify(twoEdits));
    expect(isSparseDocument((await loadSpecCached(spec, {}, cache())).document)).toBe(false);
    writeFileSync(spec, JSON.stringify(github));
    expect(isSparseDocument((await loadSpecCached(spec, {}, cache())).document)).toBe(true);
    // The spec the record names (by its hash) needs no copy; an edited one does, and a damaged copy is refused.
    const copy = join(project, CACHE_DIR, "spec.copy");
    const copyBytes = readFileSync(copy);
    writeFileSync(copy, "{}");
    expect(isSparseDocument((await loadSpecCached(spec, {}, cache())).document)).toBe(true);
    writeFileSync(
      spec,
      JSON.stringify(twoEdits).replace('"/user":{"get":{"summary":"', '"/user":{"get":{"summary":"!'),
    );
    expect(readFileSync(spec, "utf8")).toContain('"summary":"!');
    expect(isSparseDocument((await loadSpecCached(spec, {}, cache())).document)).toBe(false);
    writeFileSync(copy, copyBytes);
    // Nesting inside the edited operation: up to the limit it is parsed sparsely; past it, the whole spec is
    // parsed, and fails where a cold run fails (the document counts as level 1, the operation as level 4).
    const nestedSpec = (levels: number) => {
      const deep = structuredClone(github);
      let nested: unknown[] = [];
      operation(deep, "/user", "get")["x-deep"] = nested;
      for (let level = 0; level < levels; level++) nested.push((nested = []));
      writeFileSync(spec, JSON.stringify(deep));
    };
    nestedSpec(295);
    expect(isSparseDocument((await loadSpecCached(spec, {}, cache())).document)).toBe(true);
    nestedSpec(296);
    await expect(loadSpecCached(spec, {}, cache())).rejects.toThrow(/nested more than 300 levels deep/);
    const failure = await generate({ from: spec, out: project }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(GeneratorError);
    const coldFailure = await generate({ from: spec, out: join(dir, "cold") }).catch((error: unknown) => error);
    expect((failure as Error).message).toBe((coldFailure as Error).message);
  }, 120_000);
});
