/**
 * A regeneration's cache keys from the last run's record (src/cache/key-table.ts): the bytes that differ must lie
 * inside one operation object, and the keys then equal a full keying of the new document; anything else, and a
 * record or spec copy that does not match, keys in full.
 */
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { CACHE_DIR } from "../../src/cache/index.js";
import { editSince, readPreviousKeys, specEdit } from "../../src/cache/key-table.js";
import { documentKeys, keysAfterEdit, type DocumentKeys } from "../../src/cache/refs.js";
import { scanSkeleton } from "../../src/cache/sparse-document.js";
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

  it("does not key a document with a component its pointer does not lead back to", () => {
    // `#/components/responses/a%2525b` names the response `a%25b`; the unit's own pointer, `…/a%25b`, decodes to
    // `a%b`. Its content was hashed as "undefined": editing it reused the stale model. Such a spec is not keyed.
    const spec = (description: string) => ({
      openapi: "3.0.3",
      info: { title: "t", version: "1" },
      paths: { "/a": { get: { responses: { "200": { $ref: "#/components/responses/a%2525b" } } } } },
      components: { responses: { "a%25b": { description } } },
    });
    expect(documentKeys(spec("x"), "salt")).toBeUndefined();
    expect(documentKeys(spec("x"), "salt", { checkAll: false })).toBeUndefined();
    // A name without `%` is keyed, and its content counts.
    const plain = (description: string) =>
      JSON.parse(JSON.stringify(spec(description)).replaceAll("a%2525b", "a~1b").replace('"a%25b"', '"a/b"'));
    expect(documentKeys(plain("x"), "salt")!.operations[0]!.key).not.toBe(
      documentKeys(plain("y"), "salt")!.operations[0]!.key,
    );
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
    const out = join(dir, "project");
    await generate({ from: spec, out });
    const cache = join(out, CACHE_DIR);
    const salted = () => JSON.parse(readFileSync(join(cache, "keys.json"), "utf8")).salt as string;
    expect(readPreviousKeys(out, salted())?.record.complete).toBe(false);
    for (const round of [1, 2, 3]) {
      const document = JSON.parse(readFileSync(spec, "utf8")) as Document;
      operationAt(document, round)["summary"] = `Edited ${round}`;
      writeFileSync(spec, JSON.stringify(document, null, 2));
      // From the second edit on, the record's spec is the last run's in the same layout: one operation differs.
      if (round > 1) expect(editSince(readPreviousKeys(out, salted(), "")!, readFileSync(spec))).toBeTypeOf("object");
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
    // A YAML spec is keyed in full every time: nothing is recorded for it.
    const yamlOut = join(dir, "from-yaml");
    await generate({ from: join(dir, "samples", "petstore.yaml"), out: yamlOut });
    expect(existsSync(join(yamlOut, CACHE_DIR, "model.json"))).toBe(true);
    expect(existsSync(join(yamlOut, CACHE_DIR, "keys.json"))).toBe(false);
    expect(existsSync(join(yamlOut, CACHE_DIR, "spec.copy"))).toBe(false);
  });

  it("trusts the spec copy without its hash only while it is the file the record's run wrote", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cgm-key-table-stamps-"));
    cpSync(SAMPLES, join(dir, "samples"), { recursive: true });
    const spec = join(dir, "samples", "inventory-swagger2.json");
    const out = join(dir, "project");
    await generate({ from: spec, out });
    const keysFile = join(out, CACHE_DIR, "keys.json");
    const copy = join(out, CACHE_DIR, "spec.copy");
    const recorded = JSON.parse(readFileSync(keysFile, "utf8")) as { salt: string; spec: string };
    const stats = statSync(copy);
    expect(readFileSync(`${copy}.stamps`, "latin1")).toBe(
      `${recorded.spec} ${stats.ino} ${stats.size} ${stats.mtimeMs} ${stats.ctimeMs}`,
    );
    // The copy is the bytes this run read.
    expect(readFileSync(copy)).toEqual(readFileSync(spec));
    const previous = () => readPreviousKeys(out, recorded.salt, "another spec's hash");
    // Vouched for by its stamps: not read (nor hashed) until compared.
    expect(previous()).toMatchObject({ copy: { file: copy, size: stats.size } });
    expect(previous()?.spec).toBeUndefined();
    // The stamps vouch for the bytes of one hash: keys recorded for another spec are not vouched for.
    writeFileSync(keysFile, JSON.stringify({ ...recorded, spec: "0".repeat(64) }));
    expect(previous()).toBeUndefined();
    // While they hold, the bytes are not hashed (stamps planted with a wrong hash, to show it).
    const stamps = readFileSync(`${copy}.stamps`, "latin1");
    writeFileSync(`${copy}.stamps`, "0".repeat(64) + stamps.slice(recorded.spec.length));
    expect(previous()?.copy).toBeDefined();
    writeFileSync(`${copy}.stamps`, stamps);
    // The same size and modification time after a change: its ctime moved, so the hash decides (and refuses it).
    writeFileSync(keysFile, JSON.stringify(recorded));
    const bytes = readFileSync(copy);
    bytes[bytes.indexOf("{") + 1] = 0x20;
    // (`touch`: utimes takes seconds as a double, which cannot hold every nanosecond of a time stamp.)
    const { mtimeNs } = statSync(copy, { bigint: true });
    const mtime = `@${mtimeNs / 1_000_000_000n}.${String(mtimeNs % 1_000_000_000n).padStart(9, "0")}`;
    writeFileSync(copy, bytes);
    expect(spawnSync("touch", ["-m", "-d", mtime, copy]).status).toBe(0);
    expect([statSync(copy).size, statSync(copy).mtimeMs, statSync(copy).ino]).toEqual([
      stats.size,
      stats.mtimeMs,
      stats.ino,
    ]);
    expect(previous()).toBeUndefined();
    // Put back: no longer the file the record's run wrote, but its bytes hash to the record's.
    writeFileSync(copy, readFileSync(spec));
    expect(previous()?.spec).toEqual(readFileSync(spec));
    writeFileSync(keysFile, JSON.stringify({ ...recorded, spec: "0".repeat(64) }));
    expect(previous()).toBeUndefined();
  });

  it("finds the same edit in a stamped copy, read in pieces, as in its bytes (GitHub)", () => {
    const github = JSON.parse(githubText) as Document;
    const before = edited(github, () => {});
    const project = mkdtempSync(join(tmpdir(), "cgm-key-table-copy-"));
    const copy = join(project, CACHE_DIR, "spec.copy");
    mkdirSync(dirname(copy), { recursive: true });
    writeFileSync(copy, before);
    const { ino, size, mtimeMs, ctimeMs } = statSync(copy);
    const skeleton = scanSkeleton(before);
    const edits: Array<(document: Document) => void> = [
      (document) => (operationAt(document, 0)["summary"] += " (edited)"),
      (document) => (operationAt(document, 700)["description"] = 'a "quoted" } ] { [ text\\'),
      (document) => (operationAt(document, 1222)["summary"] = ""),
      (document) => delete operationAt(document, 5)["parameters"],
      (document) => ((operationAt(document, 3)["summary"] += "!"), (operationAt(document, 900)["summary"] += "!")),
      (document) => ((document["info"] as Record<string, unknown>)["title"] = "Edited"),
      () => {},
    ];
    for (const withSkeleton of [true, false]) {
      const record = { format: 3, id: "base", salt: "salt", spec: "0".repeat(64), record: {} };
      writeFileSync(`${copy}.stamps`, `${record.spec} ${ino} ${size} ${mtimeMs} ${ctimeMs}`);
      writeFileSync(
        join(project, CACHE_DIR, "keys.json"),
        JSON.stringify(withSkeleton ? { ...record, skeleton } : record),
      );
      const previous = readPreviousKeys(project, "salt", "another spec's hash")!;
      expect(previous.copy).toBeDefined();
      for (const edit of edits) {
        const after = edited(github, edit);
        expect(editSince(previous, after)).toEqual(specEdit(before, after, withSkeleton ? skeleton : undefined));
      }
    }
    expect(edits.map((edit) => typeof specEdit(before, edited(github, edit), skeleton))).toEqual([
      "object",
      "object",
      "object",
      "object",
      "undefined",
      "undefined",
      "string",
    ]);
    // A copy replaced after the stamps were read is not compared.
    const previous = readPreviousKeys(project, "salt", "another spec's hash")!;
    writeFileSync(copy, before);
    expect(editSince(previous, edited(github, edits[0]!))).toBeUndefined();
  });
});
