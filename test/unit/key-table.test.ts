/**
 * A regeneration's cache keys from the last run's record (src/cache/key-table.ts): the bytes that differ must lie
 * inside one operation object, and the keys then equal a full keying of the new document; anything else, and a
 * record or spec copy that does not match, keys in full.
 */
import { cpSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { CACHE_DIR } from "../../src/cache/index.js";
import { readPreviousKeys, specEdit } from "../../src/cache/key-table.js";
import { documentKeys, keysAfterEdit, type DocumentKeys } from "../../src/cache/refs.js";
import { scanSkeleton, sparseDocument } from "../../src/cache/sparse-document.js";
import { mayEscapeRefKey, SpecBytes } from "../../src/cache/spec-bytes.js";
import { OPERATION_METHODS } from "../../src/load/methods.js";
import { HTTP_METHODS } from "../../src/model/openapi.js";
import { generate } from "../../src/generate.js";
import { SAMPLES } from "../helpers/pipeline.js";
import { projectFiles } from "../helpers/project.js";

type Document = Record<string, unknown> & { paths: Record<string, Record<string, Record<string, unknown>>> };

const GITHUB = createRequire(import.meta.url).resolve("@octokit/openapi/generated/api.github.com.json");
const githubText = readFileSync(GITHUB, "utf8");

/** The document's keys as a later run compares them. */
const keysView = (keys: DocumentKeys | undefined) =>
  keys && { prelude: keys.prelude, preludeUnits: keys.preludeUnits, operations: keys.operations };

/** The text of `document` after `edit`, in the given layout. */
function edited(document: Document, edit: (document: Document) => void, indent?: number): Buffer {
  const copy = structuredClone(document);
  edit(copy);
  return Buffer.from(JSON.stringify(copy, null, indent));
}

/** The keys of `after` from the record of `before`'s, or undefined when they must be computed in full. */
function keysFromRecord(before: Buffer, after: Buffer, checkAll = true): DocumentKeys | undefined {
  const record = documentKeys(JSON.parse(before.toString()) as Document, "salt", { checkAll: false })!.record();
  const edit = specEdit(before, after);
  if (!edit) return undefined;
  return keysAfterEdit(JSON.parse(after.toString()), record, edit === "unchanged" ? undefined : edit, checkAll);
}

const operationAt = (document: Document, index: number) =>
  Object.values(document.paths).flatMap((item) => Object.values(item))[index] as Record<string, unknown>;

describe("keys from the last run's record", () => {
  const github = JSON.parse(githubText) as Document;

  it.each([undefined, 2])("equal a full keying after one operation's edit (GitHub, indent %s)", (indent) => {
    const before = edited(github, () => {}, indent);
    const edits: Array<(document: Document) => void> = [
      (document) => (operationAt(document, 0)["summary"] += " (edited — café 🚀)"),
      (document) => (operationAt(document, 700)["description"] = 'a "quoted" } ] { [ text\\'),
      // A new reference to a component the operation did not use, and one to a component nothing used.
      (document) => (operationAt(document, 1222)["x-extra"] = { $ref: "#/components/schemas/repository" }),
      (document) => (operationAt(document, 300)["x-extra"] = { $ref: "#/components/schemas/actions-secret" }),
      (document) => delete operationAt(document, 5)["parameters"],
    ];
    for (const edit of edits) {
      const after = edited(github, edit, indent);
      const fromRecord = keysFromRecord(before, after);
      expect(fromRecord).toBeDefined();
      const full = documentKeys(JSON.parse(after.toString()) as Document, "salt")!;
      expect(keysView(fromRecord)).toEqual(keysView(full));
      expect(fromRecord!.reach(full.operations[0]!.units)).toEqual(full.reach(full.operations[0]!.units));
    }
    expect(keysView(keysFromRecord(before, before))).toEqual(keysView(documentKeys(github, "salt")));
  });

  it("keys in full whatever is not one operation's edit", () => {
    const before = edited(github, () => {}, 2);
    const refused: Array<(document: Document) => void> = [
      // A component, a path item's shared parameters, the top level, two operations.
      (document) => ((document["components"] as Document)["schemas"]!["repository"]!["title"] = "x"),
      (document) => (document.paths["/repos/{owner}/{repo}"]!["parameters"] = []),
      (document) => ((document["info"] as Record<string, unknown>)["title"] = "Edited"),
      (document) => {
        operationAt(document, 1)["summary"] += "!";
        operationAt(document, 900)["summary"] += "!";
      },
    ];
    // The same refusals when the record has the spec's skeleton (src/cache/sparse-document.ts) instead of a scan.
    const skeleton = scanSkeleton(before)!;
    for (const edit of refused) {
      const after = edited(github, edit, 2);
      expect(keysFromRecord(before, after)).toBeUndefined();
      expect(specEdit(before, after, skeleton)).toBeUndefined();
    }
    // An edit whose text breaks out of the operation object: the new bytes between its braces are no one object.
    const text = before.toString();
    const summary = text.indexOf('"summary": "', text.indexOf('"paths"'));
    const escaped = `${text.slice(0, summary)}"summary": "x"}, "put": {"summary": "y${text.slice(summary + 12)}`;
    expect(JSON.parse(escaped)).toBeDefined();
    expect(specEdit(before, Buffer.from(escaped))).toBeUndefined();
    expect(specEdit(before, Buffer.from(escaped), skeleton)).toBeUndefined();
    // A reference that does not resolve: keyed in full, which refuses it too.
    const broken = edited(github, (document) => (operationAt(document, 3)["x-extra"] = { $ref: "#/components/nope" }));
    expect(
      keysFromRecord(
        edited(github, () => {}),
        broken,
      ),
    ).toBeUndefined();
    expect(documentKeys(JSON.parse(broken.toString()), "salt")).toBeUndefined();
  });

  it("checks the references a cold run's record left unchecked, once a run may reuse entries", () => {
    const document = parseYaml(readFileSync(join(SAMPLES, "petstore.yaml"), "utf8")) as Document;
    (document["components"] as { schemas: Record<string, unknown> }).schemas["Unused"] = {
      $ref: "#/components/schemas/Missing",
    };
    const before = edited(document, () => {});
    const after = edited(document, (copy) => (operationAt(copy, 0)["summary"] = "Edited"));
    expect(keysFromRecord(before, after, false)).toBeDefined();
    expect(keysFromRecord(before, after, true)).toBeUndefined();
  });

  it("regenerates a JSON spec after summary edits exactly as a cold generation, and ignores a foreign record", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cgm-key-table-"));
    cpSync(SAMPLES, join(dir, "samples"), { recursive: true });
    const spec = join(dir, "samples", "inventory-swagger2.json");
    // In the layout the edits below write: keys come from the spec's bytes (src/cache/spec-bytes.ts).
    writeFileSync(spec, JSON.stringify(JSON.parse(readFileSync(spec, "utf8")), null, 2));
    const out = join(dir, "project");
    await generate({ from: spec, out });
    const cache = join(out, CACHE_DIR);
    const salted = () => JSON.parse(readFileSync(join(cache, "keys.json"), "utf8")).salt as string;
    expect(readPreviousKeys(out, salted())?.record.complete).toBe(false);
    for (const round of [1, 2, 3]) {
      const document = JSON.parse(readFileSync(spec, "utf8")) as Document;
      operationAt(document, round)["summary"] = `Edited ${round}`;
      writeFileSync(spec, JSON.stringify(document, null, 2));
      // From the second edit on, the copy is the last run's spec in the same layout: one operation differs.
      if (round > 1) expect(specEdit(readFileSync(join(cache, "spec.copy")), readFileSync(spec))).toBeTypeOf("object");
      if (round === 3) writeFileSync(join(cache, "spec.copy"), "{}"); // a copy that is not the recorded spec
      const warm = await generate({ from: spec, out });
      expect(warm.modelCache).toEqual({ hits: 3, misses: 1 });
      const cold = join(dir, `cold-${round}`);
      await generate({ from: spec, out: cold });
      const except = [CACHE_DIR, ".guided-mcp/manifest.json", "CHANGELOG.md"];
      expect(projectFiles(out, except)).toEqual(projectFiles(cold, except));
      expect(readPreviousKeys(out, salted())?.record.complete).toBe(true);
    }
    expect(readPreviousKeys(out, "another salt")).toBeUndefined();
    // The same document in another layout: keyed anew (every operation's bytes differ), and still a cold run's output.
    writeFileSync(spec, JSON.stringify(JSON.parse(readFileSync(spec, "utf8"))));
    expect((await generate({ from: spec, out })).modelCache).toEqual({ hits: 0, misses: 4 });
    await generate({ from: spec, out: join(dir, "cold-compact") });
    const except = [CACHE_DIR, ".guided-mcp/manifest.json", "CHANGELOG.md"];
    expect(projectFiles(out, except)).toEqual(projectFiles(join(dir, "cold-compact"), except));
    // A YAML spec is keyed in full every time: nothing is recorded for it.
    const yamlOut = join(dir, "from-yaml");
    await generate({ from: join(dir, "samples", "petstore.yaml"), out: yamlOut });
    expect(existsSync(join(yamlOut, CACHE_DIR, "model.json"))).toBe(true);
    expect(existsSync(join(yamlOut, CACHE_DIR, "keys.json"))).toBe(false);
    expect(existsSync(join(yamlOut, CACHE_DIR, "spec.copy"))).toBe(false);
  });
});

describe("keys from the spec's bytes (src/cache/spec-bytes.ts)", () => {
  const github = JSON.parse(githubText) as Document;
  const textsOf = (bytes: Buffer) => new SpecBytes(bytes, scanSkeleton(bytes)!);
  const bytesKeys = (bytes: Buffer, checkAll = true) =>
    documentKeys(JSON.parse(bytes.toString()) as Document, "salt", { checkAll, bytes: textsOf(bytes) });
  /** Which operations' keys differ between two keyings of documents with the same operations. */
  const changed = (before: DocumentKeys, after: DocumentKeys) =>
    after.operations.flatMap(({ path, method, key }, index) =>
      before.operations[index]!.key === key ? [] : [`${method} ${path}`],
    );

  it.each([undefined, 2])("change with what the keys from parsed objects change with (GitHub, indent %s)", (indent) => {
    const before = edited(github, () => {}, indent);
    const edits: Array<(document: Document) => void> = [
      (document) => ((document["components"] as Document)["schemas"]!["simple-user"]!["title"] = "Edited"),
      (document) => ((document["components"] as Document)["parameters"]!["per-page"]!["description"] = "Edited"),
      (document) => (document.paths["/repos/{owner}/{repo}"]!["parameters"] = []),
      (document) => (operationAt(document, 10)["x-extra"] = { $ref: "#/components/schemas/repository" }),
      (document) => ((document["info"] as Record<string, unknown>)["version"] = "0.0.0"),
      (document) => ((document["info"] as Record<string, unknown>)["title"] = "Edited"),
    ];
    const jsonBefore = documentKeys(JSON.parse(before.toString()) as Document, "salt")!;
    const bytesBefore = bytesKeys(before)!;
    expect(bytesBefore.operations.map(({ path, method }) => [path, method])).toEqual(
      jsonBefore.operations.map(({ path, method }) => [path, method]),
    );
    for (const edit of edits) {
      const after = edited(github, edit, indent);
      const jsonAfter = documentKeys(JSON.parse(after.toString()) as Document, "salt")!;
      const bytesAfter = bytesKeys(after)!;
      expect(changed(bytesBefore, bytesAfter)).toEqual(changed(jsonBefore, jsonAfter));
      expect(bytesAfter.prelude === bytesBefore.prelude).toBe(jsonAfter.prelude === jsonBefore.prelude);
    }
    // The two kinds of keys never meet: a record made one way is not used the other.
    expect(keysAfterEdit(github, bytesBefore.record(), undefined, false)).toBeUndefined();
    expect(keysAfterEdit(github, jsonBefore.record(), undefined, false, textsOf(before))).toBeUndefined();
    expect(bytesBefore.operations[0]!.key).not.toBe(jsonBefore.operations[0]!.key);
  });

  it("are the same from a sparse document and from the record after one operation's edit (GitHub, compact)", () => {
    const before = edited(github, () => {});
    const record = bytesKeys(before, false)!.record();
    expect(record.texts).toBe("bytes");
    const edits: Array<(document: Document) => void> = [
      (document) => (operationAt(document, 0)["summary"] += " (edited — café 🚀)"),
      (document) => (operationAt(document, 1222)["x-extra"] = { $ref: "#/components/schemas/repository" }),
      (document) => delete operationAt(document, 5)["parameters"],
    ];
    for (const edit of edits) {
      const after = edited(github, edit);
      const full = bytesKeys(after)!;
      const sparse = sparseDocument(after, scanSkeleton(after)!);
      expect(keysView(documentKeys(sparse, "salt", { bytes: textsOf(after) }))).toEqual(keysView(full));
      const found = specEdit(before, after);
      expect(found).toBeTypeOf("object");
      const fromRecord = keysAfterEdit(
        sparse,
        record,
        found as Exclude<typeof found, "unchanged" | undefined>,
        true,
        textsOf(after),
      );
      expect(keysView(fromRecord)).toEqual(keysView(full));
    }
  });

  it("walk the operations the model walks, in its order", () => {
    expect(OPERATION_METHODS).toEqual(HTTP_METHODS);
  });

  it("are not taken where a `$ref` key may be escaped, nor for a unit whose pointer does not lead back to it", () => {
    expect(mayEscapeRefKey(Buffer.from(githubText))).toBe(false);
    expect(mayEscapeRefKey(Buffer.from('{"a": {"\\u0024ref": "#/b"}}'))).toBe(true);
    expect(mayEscapeRefKey(Buffer.from('{"a": {"$re\\u0066": "#/b"}}'))).toBe(true);
    expect(mayEscapeRefKey(Buffer.from('{"a": "caf\\u00e9"}'))).toBe(false);
    // A component named with `%`: its pointer decodes to another name, so its content cannot be keyed.
    const percent = {
      openapi: "3.0.3",
      info: { title: "t", version: "1" },
      paths: { "/a": { get: { responses: { "200": { $ref: "#/components/responses/a%2525b" } } } } },
      components: { responses: { "a%25b": { description: "x" } } },
    };
    expect(documentKeys(percent, "salt")).toBeUndefined();
    const bytes = Buffer.from(JSON.stringify(percent));
    expect(documentKeys(percent, "salt", { bytes: textsOf(bytes) })).toBeUndefined();
  });
});
