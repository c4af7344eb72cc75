/**
 * Incremental regeneration through the per-operation model cache and the
 * per-tool guidance cache (src/cache/): a warm regeneration writes exactly what
 * a cold generation writes, recomputes only what an edit reaches, and a
 * corrupt cache or --check never changes the outcome.
 */
import { isAscii } from "node:buffer";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { guidanceCacheFor, guidanceKeys } from "../../src/cache/guidance-keys.js";
import { compactToolsFile } from "../../src/emit/tools-file.js";
import { CACHE_DIR } from "../../src/cache/index.js";
import { MODEL_CACHE_FILE, openModelCache } from "../../src/cache/model-cache.js";
import { documentKeys } from "../../src/cache/refs.js";
import { generate, generatorVersion } from "../../src/generate.js";
import { addGuidance } from "../../src/guidance/index.js";
import type { ApiModel } from "../../src/model/ir.js";
import { modelFrom, SAMPLES } from "../helpers/pipeline.js";
import { projectFiles, withoutSaveIds as withoutId } from "../helpers/project.js";

/** Compared files leave out the cache. and what records the run (the manifest holds the spec hash, the changelog the edit). */
const PROJECT_EXCEPT = [CACHE_DIR, ".guided-mcp/manifest.json", "CHANGELOG.md"];

/** A copy of the samples folder (external `$ref`s resolve inside it). */
function samplesCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), "cgm-model-cache-"));
  cpSync(SAMPLES, join(dir, "samples"), { recursive: true });
  return join(dir, "samples");
}

type Document = { paths: Record<string, Record<string, Record<string, unknown>>> } & Record<string, unknown>;

/** Rewrites a spec (as JSON, which the loader reads whatever the file is called) after `edit`. */
function editSpec(spec: string, edit: (document: Document) => void): void {
  const text = readFileSync(spec, "utf8");
  const document = (spec.endsWith(".json") ? JSON.parse(text) : parseYaml(text)) as Document;
  edit(document);
  writeFileSync(spec, JSON.stringify(document, null, 2));
}

/** Appends to the first operation's summary (or description). */
function editFirstSummary(document: Document): void {
  for (const item of Object.values(document.paths))
    for (const operation of Object.values(item)) {
      if (typeof operation !== "object" || operation === null) continue;
      const field = typeof operation["summary"] === "string" ? "summary" : "description";
      // Non-ASCII on purpose: the cache file escapes it (see asciiText in src/cache/model-cache.ts).
      operation[field] = `${String(operation[field] ?? "")} (edited — café 🚀)`;
      return;
    }
}

/** Generates `spec` warm into `warmOut` (already generated from the unedited spec) and cold into a new folder; returns both. */
async function warmAndCold(spec: string, warmOut: string) {
  const warm = await generate({ from: spec, out: warmOut });
  const coldOut = `${warmOut}-cold`;
  const cold = await generate({ from: spec, out: coldOut });
  return {
    warm,
    cold,
    warmFiles: projectFiles(warmOut, PROJECT_EXCEPT),
    coldFiles: projectFiles(coldOut, PROJECT_EXCEPT),
  };
}

describe("model and guidance cache", () => {
  const samples: Array<[string, { keyed: boolean }]> = [
    ["petstore.yaml", { keyed: true }],
    ["catalogue.yaml", { keyed: true }],
    ["inventory-swagger2.json", { keyed: true }],
    // External file $refs: the model always takes the full pipeline (the referenced file is not keyed); guidance is still cached.
    ["library-openapi31.yaml", { keyed: false }],
  ];

  it.each(samples)("%s: a warm regeneration after a summary edit equals a cold generation", async (name, { keyed }) => {
    const dir = samplesCopy();
    const spec = join(dir, name);
    const out = join(dir, "..", "out");
    const first = await generate({ from: spec, out });
    const tools = first.model.tools.length;
    expect(first.modelCache).toEqual({ hits: 0, misses: keyed ? tools : 0 });

    const unchanged = await generate({ from: spec, out });
    expect(unchanged.modelCache).toEqual({ hits: keyed ? tools : 0, misses: 0 });
    expect(unchanged.write.plan.every((file) => file.action === "unchanged" || file.action === "keep-user")).toBe(true);

    editSpec(spec, editFirstSummary);
    const { warm, cold, warmFiles, coldFiles } = await warmAndCold(spec, out);
    expect(warm.modelCache).toEqual({ hits: keyed ? tools - 1 : 0, misses: keyed ? 1 : 0 });
    // Guidance does not depend on texts: a summary edit reuses every tool's.
    expect(warm.guidanceCache).toEqual({ hits: tools, misses: 0 });
    expect(warm.report?.changes.length).toBe(1);
    expect(warmFiles).toEqual(coldFiles);
    expect(warm.diagnostics).toEqual(cold.diagnostics);

    // The edited operation's entry, written with its non-ASCII text escaped, reads back to the same output.
    expect(isAscii(readFileSync(join(out, MODEL_CACHE_FILE)))).toBe(true);
    const again = await generate({ from: spec, out });
    expect(again.modelCache).toEqual({ hits: keyed ? tools : 0, misses: 0 });
    expect(again.write.plan.every((file) => file.action === "unchanged" || file.action === "keep-user")).toBe(true);
  });

  it("keys guidance from cached tool shapes exactly as from the models, a renamed tool's shape anew", async () => {
    const dir = samplesCopy();
    const spec = join(dir, "petstore.yaml");
    const out = join(dir, "..", "out");
    await generate({ from: spec, out });
    /** Whether every tool's guidance was saved under the key its model gives (computed here without the cache). */
    const keyedAsModels = (result: Awaited<ReturnType<typeof generate>>) => {
      const cache = openModelCache(out, generatorVersion());
      const tools = result.model.tools.map(({ guidance: _guidance, ...tool }) => tool);
      return guidanceKeys(tools, 1, cache.code).keys.every((key) => cache.get("guidance", key) !== undefined);
    };
    // An operation whose name takes `list_pets` from the first one (explicit names: the first by identity keeps it):
    // the first's entry is reused, but its tool is now `list_pets_…`, so its shape is not the cached one.
    editSpec(spec, (document) => {
      document.paths["/a-pets"] = { get: { ...document.paths["/pets"]!["get"], operationId: "listPets" } };
    });
    const { warm, warmFiles, coldFiles } = await warmAndCold(spec, out);
    expect(warm.model.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["list_pets", "list_pets_6b01"]));
    expect(warm.model.tools[0]!.name).toBe("list_pets_6b01");
    expect(warm.modelCache?.misses).toBe(1);
    expect(warmFiles).toEqual(coldFiles);
    expect(keyedAsModels(warm)).toBe(true);
    expect(readFileSync(join(out, MODEL_CACHE_FILE), "utf8")).toMatch(/^shapes\t/m);

    // The shapes are read: a wrong one gives a wrong key, so that tool's guidance is computed (and keyed) anew.
    const file = join(out, MODEL_CACHE_FILE);
    const lines = readFileSync(file, "utf8").split("\n");
    const shape = lines.findIndex((line) => line.startsWith("shapes\t"));
    lines[shape] = lines[shape]!.replace(/\t"[0-9a-f]+"$/, `\t"${"0".repeat(128)}"`);
    writeFileSync(file, lines.join("\n"));
    const tampered = await generate({ from: spec, out });
    expect(tampered.guidanceCache?.misses).toBeGreaterThan(0);
    expect(keyedAsModels(tampered)).toBe(false);
  });

  it("hashes a tool's shape as the JSON of its model without texts, whatever its members hold", async () => {
    const { createHash } = await import("node:crypto");
    const sha = (text: string) => createHash("sha256").update(text).digest("hex");
    const tools = [
      { name: "a", description: "d", title: "t", annotations: { title: "x", readOnlyHint: true }, inputSchema: {} },
      { name: "b ü 🚀", description: "", annotations: {}, inputSchema: { type: "object" }, handler: undefined },
      { name: "c", description: "", annotations: { title: "only" }, responseSchema: { items: [1, "é"] }, f: () => 1 },
      {
        name: "d",
        annotations: {},
        inputSchema: {
          type: "object",
          description: "not read by others",
          properties: { owner_id: { type: "string", description: "x" }, q: { type: ["string", "null"] } },
          required: ["owner_id"],
        },
        operation: {
          path: "/d/{owner_id}",
          method: "get",
          parameters: [{ in: "path", name: "owner_id", arg: "owner_id" }],
        },
      },
    ];
    // The keys as the module comment defines them: the rest of each model's JSON without its texts, then its input
    // schema's JSON (its own hash) or what other tools read of it (names and types, required names, identifiers).
    const shapes = tools.map(({ description: _d, title: _t, annotations: { title: _a, ...flags }, ...members }) => {
      const { inputSchema, ...rest } = members as { inputSchema?: Record<string, unknown> };
      const restHash = sha(JSON.stringify({ ...rest, annotations: flags }));
      const properties = (inputSchema?.["properties"] ?? {}) as Record<string, { type?: string | string[] }>;
      const types = (type: string | string[] | undefined) => (type === undefined ? [] : [type].flat());
      const read = [
        Object.entries(properties).map(([name, schema]) => [name, types(schema.type)]),
        inputSchema?.["required"] ?? [],
        Object.keys(properties).filter((name) => name.endsWith("_id")),
      ];
      if (inputSchema === undefined) return sha(restHash) + sha(restHash);
      return sha(restHash + JSON.stringify(inputSchema)) + sha(restHash + JSON.stringify(read));
    });
    const readByOthers = sha(`code\0${7}\0${shapes.map((shape) => shape.slice(64)).join("")}`);
    const expected = shapes.map((shape) => sha(readByOthers + shape).slice(0, 40));
    const keys = guidanceKeys(tools as never, 7, "code");
    expect(keys.keys).toEqual(expected);
    expect(keys.context).toBe(sha(`code\0${7}\0${shapes.join("")}`));
  });

  it("keys example outcomes by the schema key recorded for the tool's operation entry", async () => {
    const dir = samplesCopy();
    const spec = join(dir, "petstore.yaml");
    const out = join(dir, "..", "out");
    const first = await generate({ from: spec, out });
    const tools = first.model.tools.length;
    const file = join(out, CACHE_DIR, "examples.json");
    // The header line holds the origins; one line per entry follows.
    const [headerLine, ...entryLines] = readFileSync(file, "utf8").split("\n");
    const recorded = JSON.parse(headerLine!) as { origins: Record<string, string> };
    expect(Object.keys(recorded.origins)).toHaveLength(tools);
    editSpec(spec, editFirstSummary);
    const { warm, warmFiles, coldFiles } = await warmAndCold(spec, out);
    expect(warm.exampleCache).toEqual({ hits: tools, misses: 0 });
    expect(warmFiles).toEqual(coldFiles);

    // The recorded keys are read: a wrong one misses that tool's example, computed anew (the guidance cache removed,
    // so that every tool's guidance asks for its example; the first operation's entry changed with the edit).
    const [, origin] = Object.keys(recorded.origins);
    recorded.origins[origin!] = "0".repeat(40);
    writeFileSync(file, [JSON.stringify(recorded), ...entryLines].join("\n"));
    rmSync(join(out, MODEL_CACHE_FILE));
    const tampered = await generate({ from: spec, out });
    expect(tampered.exampleCache).toEqual({ hits: tools - 1, misses: 1 });
    expect(projectFiles(out, PROJECT_EXCEPT)).toEqual(warmFiles);
  });

  it("recomputes the operations a changed component reaches, and only those (webhooks never count)", async () => {
    const dir = samplesCopy();
    const spec = join(dir, "petstore.yaml");
    const out = join(dir, "..", "out");
    // Webhooks that use every schema, as GitHub's do: they are not tools, so they must not widen what an edit reaches.
    editSpec(spec, (document) => {
      const schemas = Object.keys((document["components"] as { schemas: Record<string, unknown> }).schemas);
      document["x-webhooks"] = Object.fromEntries(
        schemas.map((name) => [
          `${name}-event`,
          {
            post: {
              requestBody: { content: { "application/json": { schema: { $ref: `#/components/schemas/${name}` } } } },
            },
          },
        ]),
      );
    });
    const first = await generate({ from: spec, out });
    const tools = first.model.tools.length;
    let reaching = 0;
    editSpec(spec, (document) => {
      const schemas = (document["components"] as { schemas: Record<string, Record<string, unknown>> }).schemas;
      const [schemaName, schema] = Object.entries(schemas)[0]!;
      schema["description"] = `${String(schema["description"] ?? "")} (edited)`;
      reaching = JSON.stringify(document.paths).split(`"#/components/schemas/${schemaName}"`).length - 1;
    });
    expect(reaching).toBeGreaterThan(0);
    const { warm, warmFiles, coldFiles } = await warmAndCold(spec, out);
    expect(warm.modelCache!.misses).toBeGreaterThan(0);
    expect(warm.modelCache!.misses).toBeLessThan(tools);
    expect(warm.modelCache!.hits + warm.modelCache!.misses).toBe(tools);
    expect(warmFiles).toEqual(coldFiles);
  });

  it("ignores a corrupt or foreign cache file, and --check leaves it as it is", async () => {
    const dir = samplesCopy();
    const spec = join(dir, "petstore.yaml");
    const out = join(dir, "..", "out");
    await generate({ from: spec, out });
    const cacheFile = join(out, MODEL_CACHE_FILE);
    const whole = readFileSync(cacheFile, "utf8");
    const cutShort = whole.slice(0, whole.lastIndexOf("operations\t") + 80);
    const allHits = (await generate({ from: spec, out, check: true })).modelCache!.hits;
    const damaged = [
      // Empty lines are no entries, and nothing else.
      { content: whole.replace("\n", "\n\n\n").replace(/\n$/, "\n\n"), hits: allHits },
      // A line that is not `section <tab> key <tab> JSON`: the whole file is ignored.
      { content: `${whole}operations key {}\n`, hits: 0 },
      { content: `${whole}operations\tkey {}\n`, hits: 0 },
      { content: `${whole}nothing\tkey\t{}\n`, hits: 0 },
      { content: "{ not json", hits: 0 },
      { content: JSON.stringify({ format: 3, code: "someone else" }) + "\n", hits: 0 },
      // The writer escapes every non-ASCII character, so a raw one is damage: the whole file is ignored.
      { content: `${whole}operations\tkey\t"caf\u00e9"\n`, hits: 0 },
      // The last operation's entry is cut in the middle of its JSON: that one operation misses.
      { content: cutShort, hits: allHits - 1 },
    ];
    for (const { content, hits } of damaged) {
      writeFileSync(cacheFile, content);
      const again = await generate({ from: spec, out });
      expect(again.modelCache!.hits).toBe(hits);
      expect(again.write.plan.every((file) => file.action === "unchanged" || file.action === "keep-user")).toBe(true);
    }

    const before = readFileSync(cacheFile, "utf8");
    editSpec(spec, editFirstSummary);
    const check = await generate({ from: spec, out, check: true });
    expect(check.stale).toContain("data/tools.json");
    expect(check.modelCache!.hits).toBeGreaterThan(0);
    expect(readFileSync(cacheFile, "utf8")).toBe(before);
  });

  it("stores nothing for an API where an operation adds a security scheme (later operations depend on it)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cgm-model-cache-google-"));
    const spec = join(dir, "api.json");
    const operation = (id: string) => ({
      operationId: id,
      summary: id,
      parameters: ["key", "access_token"].map((name) => ({ name, in: "query", schema: { type: "string" } })),
      responses: { "200": { description: "ok" } },
    });
    const document = {
      openapi: "3.1.0",
      info: { title: "Google-style", version: "1" },
      components: { securitySchemes: { oauth: { type: "http", scheme: "bearer" } } },
      security: [{ oauth: [] }],
      paths: { "/a": { get: operation("listA") }, "/b": { get: operation("listB") } },
    };
    writeFileSync(spec, JSON.stringify(document));
    const out = join(dir, "out");
    const first = await generate({ from: spec, out });
    expect(first.model.api.securitySchemes.map((scheme) => scheme.name)).toContain("api_key");
    expect(first.modelCache).toEqual({ hits: 0, misses: 0 });
    editSpec(spec, editFirstSummary);
    const { warm, warmFiles, coldFiles } = await warmAndCold(spec, out);
    expect(warm.modelCache).toEqual({ hits: 0, misses: 0 });
    expect(warmFiles).toEqual(coldFiles);
  });

  it.each(["petstore.yaml", "catalogue.yaml", "inventory-swagger2.json"])(
    "%s: guidance never reads a tool's description or title (the guidance cache's keys leave them out)",
    async (name) => {
      const model = await modelFrom(join(SAMPLES, name));
      const retitled = {
        ...model,
        tools: model.tools.map((tool, index) => ({
          ...tool,
          description: `Something else entirely ${index}`,
          title: `Other title ${index}`,
          annotations: { ...tool.annotations, title: `Other title ${index}` },
        })),
      };
      const guidance = (input: ApiModel) => addGuidance(input).tools.map((tool) => tool.guidance);
      expect(guidance(retitled)).toEqual(guidance(model));
    },
  );

  it.each(["petstore.yaml", "inventory-swagger2.json"])(
    "%s: a release (new info.version, description, servers) reuses every operation's model",
    async (name) => {
      const dir = samplesCopy();
      const spec = join(dir, name);
      const out = join(dir, "..", "out");
      const first = await generate({ from: spec, out });
      editSpec(spec, (document) => {
        const info = document["info"] as Record<string, unknown>;
        info["version"] = "99.0.0";
        info["description"] = "A new release.";
        if (Array.isArray(document["servers"])) document["servers"] = [{ url: "https://api.example.com/v99" }];
        else document["basePath"] = "/v99";
      });
      const { warm, cold, warmFiles, coldFiles } = await warmAndCold(spec, out);
      // Swagger 2.0's basePath is read by the upgrade of every operation, so there everything is recomputed.
      const keptAll = name.endsWith(".yaml");
      expect(warm.modelCache).toEqual(
        keptAll ? { hits: first.modelCache!.misses, misses: 0 } : { hits: 0, misses: first.modelCache!.misses },
      );
      expect(warm.model.api.version).toBe("99.0.0");
      expect(warmFiles).toEqual(coldFiles);
      expect(warm.diagnostics).toEqual(cold.diagnostics);
    },
  );

  it("still hits when the same spec is read from another local path", async () => {
    const dir = samplesCopy();
    const out = join(dir, "..", "out");
    const first = await generate({ from: join(dir, "petstore.yaml"), out });
    const elsewhere = join(dir, "..", "moved.yaml");
    cpSync(join(dir, "petstore.yaml"), elsewhere);
    const moved = await generate({ from: elsewhere, out });
    expect(moved.modelCache).toEqual({ hits: first.modelCache!.misses, misses: 0 });
  });

  describe("a large API's data/tools.json", () => {
    /** An API with `count` operations (over 200: the compact tools file), sharing components. */
    function largeSpec(count: number): string {
      const dir = mkdtempSync(join(tmpdir(), "cgm-model-cache-large-"));
      const paths = Object.fromEntries(
        Array.from({ length: count }, (_, index) => [
          `/items${index}/{id}`,
          {
            get: {
              operationId: `getItem${index}`,
              summary: `Item ${index} — café`,
              parameters: [{ $ref: "#/components/parameters/Id" }],
              responses: {
                "200": {
                  description: "ok",
                  content: { "application/json": { schema: { $ref: "#/components/schemas/Item" } } },
                },
              },
            },
          },
        ]),
      );
      const document = {
        openapi: "3.0.3",
        info: { title: "Large", version: "1" },
        paths,
        components: {
          parameters: { Id: { name: "id", in: "path", required: true, schema: { type: "string" } } },
          schemas: { Item: { type: "object", properties: { id: { type: "string" }, tags: { type: "array" } } } },
        },
      };
      const spec = join(dir, "api.json");
      writeFileSync(spec, JSON.stringify(document));
      return spec;
    }

    it("takes each unchanged tool's JSON from the last generation's file, and equals a cold generation", async () => {
      const spec = largeSpec(210);
      const out = join(dirname(spec), "out");
      const first = await generate({ from: spec, out });
      expect(first.toolTexts).toEqual({ hits: 0, misses: 210 });
      editSpec(spec, editFirstSummary);
      const { warm, warmFiles, coldFiles } = await warmAndCold(spec, out);
      expect(warm.toolTexts).toEqual({ hits: 209, misses: 1 });
      expect(warm.report?.changes.map((change) => change.tool)).toEqual(["get_item0"]);
      expect(warmFiles).toEqual(coldFiles);

      // An index made for another file (here: any other hash) reuses nothing, and the output is the same.
      const index = join(out, CACHE_DIR, "tools-index.json");
      const made = JSON.parse(readFileSync(index, "utf8")) as { file: string; tools: Array<[string, number, number]> };
      // Every tool was made from a model cache entry: its text key is the two keys, nothing hashed (tool-texts.ts).
      expect(made.tools.every(([key]) => /^[0-9a-f]{40}:[0-9a-f]+$/.test(key))).toBe(true);
      writeFileSync(index, JSON.stringify({ ...made, file: "0".repeat(64) }));
      editSpec(spec, editFirstSummary);
      const again = await warmAndCold(spec, out);
      expect(again.warm.toolTexts).toEqual({ hits: 0, misses: 210 });
      expect(again.warmFiles).toEqual(again.coldFiles);
    });

    it("merges a user's edit of data/tools.json exactly as without the reuse", async () => {
      const spec = largeSpec(205);
      const out = join(dirname(spec), "out");
      await generate({ from: spec, out });
      const data = join(out, "data", "tools.json");
      writeFileSync(data, readFileSync(data, "utf8").replace('"Item 3 — café"', '"Item 3, as we call it"'));
      editSpec(spec, editFirstSummary);
      const without = `${out}-without`;
      cpSync(out, without, { recursive: true });
      rmSync(join(without, CACHE_DIR, "tools-index.json"));
      const reused = await generate({ from: spec, out });
      const fresh = await generate({ from: spec, out: without });
      expect(reused.toolTexts).toEqual({ hits: 204, misses: 1 });
      expect(fresh.toolTexts).toEqual({ hits: 0, misses: 205 });
      expect(readFileSync(data, "utf8")).toContain('"Item 3, as we call it"');
      expect(projectFiles(out, [CACHE_DIR])).toEqual(projectFiles(without, [CACHE_DIR]));
    });
  });

  it("keys a document the same whether or not the references no operation reaches are checked", async () => {
    const document = parseYaml(readFileSync(join(SAMPLES, "petstore.yaml"), "utf8")) as Record<string, unknown>;
    const full = documentKeys(document, "salt")!;
    expect(documentKeys(document, "salt", { checkAll: false })).toMatchObject({
      prelude: full.prelude,
      operations: full.operations,
    });
    // A broken `$ref` in a component no operation uses: a run that may reuse entries must take the full pipeline
    // (which fails on it), so no keys; a cold run fails on it anyway, so it need not look.
    const components = document["components"] as { schemas: Record<string, unknown> };
    components.schemas["Unused"] = { $ref: "#/components/schemas/Missing" };
    expect(documentKeys(document, "salt")).toBeUndefined();
    expect(documentKeys(document, "salt", { checkAll: false })?.operations).toEqual(full.operations);
  });

  describe("saving", () => {
    const version = generatorVersion();
    const guidance = (name: string) => ({ guidance: { hints: [name] } as never, diagnostics: [] });
    /** Opens the cache in `dir`, keeps the named guidance entries (read back when there), saves, and returns the file. */
    async function saveWith(dir: string, names: string[]): Promise<string> {
      const cache = openModelCache(dir, version);
      for (const name of names) cache.keep("guidance", name, cache.get("guidance", name) ?? guidance(name));
      await cache.save();
      return withoutId(readFileSync(join(dir, MODEL_CACHE_FILE), "latin1"));
    }
    const entryLines = (file: string) => file.split("\n").filter((line) => line.startsWith("guidance\t"));

    it("appends only what a run computed, and rewrites once more than a fifth of the lines are stale", async () => {
      const dir = mkdtempSync(join(tmpdir(), "cgm-model-cache-append-"));
      const names = Array.from({ length: 10 }, (_, index) => `tool-${index}`);
      const first = await saveWith(dir, names);
      expect(entryLines(first)).toHaveLength(10);
      // One entry replaced (as after a one-operation edit): the file is the previous one plus one line.
      const second = await saveWith(dir, [...names.slice(1), "tool-new"]);
      expect(second.startsWith(first)).toBe(true);
      expect(entryLines(second)).toHaveLength(11);
      expect(openModelCache(dir, version).get("guidance", "tool-new")).toEqual(guidance("tool-new"));
      // Nothing computed and one more entry dropped (2 stale of 11): the file stays as it is.
      expect(await saveWith(dir, [...names.slice(2), "tool-new"])).toBe(second);
      // Three stale of 11: rewritten with exactly the kept entries.
      const rewritten = await saveWith(dir, [...names.slice(3), "tool-new"]);
      expect(entryLines(rewritten).map((line) => line.split("\t")[1])).toEqual([...names.slice(3), "tool-new"]);
    });

    it("writes one line per entry, ASCII only, across buffer-sized chunks and entries larger than one", async () => {
      const dir = mkdtempSync(join(tmpdir(), "cgm-model-cache-lines-"));
      const cache = openModelCache(dir, version);
      const hints = (name: string, size: number) => [`${name} — café 𝒳 “${"x".repeat(size)}”`];
      const sizes = { small: 10, medium: 400_000, large: 1_500_000, huge: 2_500_000, last: 3 };
      for (const [name, size] of Object.entries(sizes))
        cache.keep("guidance", name, { guidance: { hints: hints(name, size) } as never, diagnostics: [] });
      await cache.save();
      const file = readFileSync(join(dir, MODEL_CACHE_FILE));
      expect(file.every((byte) => byte < 0x80)).toBe(true);
      const lines = file.toString("latin1").split("\n");
      expect(lines.at(-1)).toBe("");
      expect(lines.slice(1, -1).map((line) => line.split("\t").slice(0, 2))).toEqual(
        Object.keys(sizes).map((name) => ["guidance", name]),
      );
      const reopened = openModelCache(dir, version);
      for (const [name, size] of Object.entries(sizes))
        expect(reopened.get("guidance", name)).toEqual({ guidance: { hints: hints(name, size) }, diagnostics: [] });
    });

    it("escapes exactly the entries that are not ASCII, wherever they fall in the write buffer", async () => {
      const dir = mkdtempSync(join(tmpdir(), "cgm-model-cache-escape-"));
      const cache = openModelCache(dir, version);
      // Entries of ≈ 20–400 KB, ASCII or not, so that many cross the 1 MB buffer's end, and a few are larger than a
      // third of it (written on their own).
      const entries = Array.from({ length: 60 }, (_, index) => {
        const text = `${index % 3 === 0 ? "naïve “𝒳” " : "plain "}${"y".repeat(20_000 + ((index * 7919) % 380_000))}`;
        return [`e${index}`, { guidance: { hints: [text] } as never, diagnostics: [] }] as const;
      });
      for (const [name, value] of entries) cache.keep("guidance", name, value);
      await cache.save();
      const escaped = (json: string) =>
        json.replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
      const lines = readFileSync(join(dir, MODEL_CACHE_FILE), "latin1").split("\n").slice(1, -1);
      expect(lines).toEqual(entries.map(([name, value]) => `guidance\t${name}\t${escaped(JSON.stringify(value))}`));
    });

    it("writes the operation entries encoded ahead byte for byte as it serialises them at the save", async () => {
      // Real outcomes, one with non-ASCII text (escaped in the file), as a generation computes them.
      const spec = join(samplesCopy(), "catalogue.yaml");
      editSpec(spec, editFirstSummary);
      const source = mkdtempSync(join(tmpdir(), "cgm-model-cache-ahead-src-"));
      await generate({ from: spec, out: source });
      const read = openModelCache(source, version);
      const operationLines = (file: Buffer) =>
        file
          .toString("latin1")
          .split("\n")
          .filter((line) => line.startsWith("operations\t"));
      const generated = operationLines(readFileSync(join(source, MODEL_CACHE_FILE)));
      const keys = generated.map((line) => line.split("\t")[1]!);
      expect(keys.length).toBeGreaterThan(1);
      const outcomes = keys.map((key) => [key, read.get("operations", key)!] as const);
      /** Saves the outcomes as computed, after encoding ahead while `more` says so; returns the file. */
      const saved = async (ahead?: () => boolean) => {
        const dir = mkdtempSync(join(tmpdir(), "cgm-model-cache-ahead-"));
        const cache = openModelCache(dir, version);
        for (const [key, outcome] of outcomes) cache.keep("operations", key, outcome);
        if (ahead) cache.serialiseAhead(ahead);
        await cache.save();
        return Buffer.from(withoutId(readFileSync(join(dir, MODEL_CACHE_FILE), "latin1")), "latin1");
      };
      const plain = await saved();
      expect(plain.toString("latin1")).toContain("caf\\u00e9");
      expect(await saved(() => true)).toEqual(plain);
      expect(await saved(() => false)).toEqual(plain);
      expect(operationLines(plain)).toEqual(generated);
    });

    it("writes an entry's JSON as its caller has it (escaped to ASCII), or serialises the value", async () => {
      const dir = mkdtempSync(join(tmpdir(), "cgm-model-cache-text-"));
      const cache = openModelCache(dir, version);
      const given = { guidance: { hints: ["café"] } as never, diagnostics: [] };
      // The text the caller made of the same value (here: spaced, to tell it from a serialisation made here).
      cache.keep("guidance", "given", given, () => '{"guidance": {"hints": ["café"]}, "diagnostics": []}');
      cache.keep("guidance", "none", guidance("none"), () => undefined);
      await cache.save();
      const lines = entryLines(readFileSync(join(dir, MODEL_CACHE_FILE), "latin1"));
      expect(lines).toEqual([
        'guidance\tgiven\t{"guidance": {"hints": ["caf\\u00e9"]}, "diagnostics": []}',
        `guidance\tnone\t${JSON.stringify(guidance("none"))}`,
      ]);
      expect(openModelCache(dir, version).get("guidance", "given")).toEqual(given);
    });

    it("stores each tool's guidance with its producer calls as they were before completion", async () => {
      const dir = mkdtempSync(join(tmpdir(), "cgm-model-cache-producers-"));
      const cache = openModelCache(dir, version);
      const call = () => ({ tool: "make", params: { a: 1 } as Record<string, unknown> });
      const guidances = [
        { hints: { note: "none" } }, // no producer calls
        { hints: { note: "unchanged" }, producers: { id: [call()] } },
        { producers: { id: [call()] }, links: [{ note: "é" }] }, // completed; serialised for data/tools.json below
        { producers: { id: [call()] }, links: [] }, // completed; not serialised by emit
        // Completed, and a value elsewhere reads like the completed member: found twice, so serialised anew.
        { hints: { producers: { id: [{ tool: "make", params: { a: 1, b: 2 } }] } }, producers: { id: [call()] } },
      ] as Array<{ producers?: { id: Array<ReturnType<typeof call>> } }>;
      const tools = guidances.map((_, index) => ({ name: `t${index}`, annotations: {} }));
      const stored = guidanceCacheFor(cache, tools as never, 1);
      const before = guidances.map((guidance) => JSON.stringify({ guidance, diagnostics: [] }));
      guidances.forEach((guidance, index) => stored.store(index, guidance as never, []));
      for (const guidance of guidances.slice(2)) guidance.producers!.id[0]!.params["b"] = 2;
      compactToolsFile({ api: {}, tools: [] } as never, [() => ({ name: "t2", guidance: guidances[2] }) as never]);
      await cache.save();
      const lines = entryLines(readFileSync(join(dir, MODEL_CACHE_FILE), "latin1"));
      expect(lines.map((line) => line.split("\t")[2])).toEqual(before.map((json) => json.replace("é", "\\u00e9")));
    });

    it("rewrites a file cut short, or replaced since it was read, instead of appending to it", async () => {
      const dir = mkdtempSync(join(tmpdir(), "cgm-model-cache-append-"));
      const file = join(dir, MODEL_CACHE_FILE);
      const whole = await saveWith(dir, ["a", "b", "c"]);
      writeFileSync(file, whole.slice(0, -5));
      const repaired = await saveWith(dir, ["a", "b", "d"]);
      expect(entryLines(repaired).map((line) => line.split("\t")[1])).toEqual(["a", "b", "d"]);
      expect(openModelCache(dir, version).get("guidance", "c")).toBeUndefined();

      const cache = openModelCache(dir, version);
      for (const name of ["a", "b", "d"]) cache.keep("guidance", name, cache.get("guidance", name)!);
      cache.keep("guidance", "e", guidance("e"));
      // Another run replaces the file meanwhile (with a longer one, so its size differs whatever the clock).
      writeFileSync(file, `${repaired}guidance\tz\t{}\n`);
      await cache.save();
      const saved = readFileSync(file, "latin1");
      expect(entryLines(saved).map((line) => line.split("\t")[1])).toEqual(["a", "b", "d", "e"]);
    });
  });

  it("is keyed by the generator: another version finds nothing", () => {
    const dir = mkdtempSync(join(tmpdir(), "cgm-model-cache-code-"));
    const version = generatorVersion();
    expect(openModelCache(dir, version).code).toBe(openModelCache(dir, version).code);
    expect(openModelCache(dir, `${version}-next`).code).not.toBe(openModelCache(dir, version).code);
  });
});
