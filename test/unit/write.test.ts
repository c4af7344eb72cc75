import {
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import type { EmittedFile } from "../../src/emit/index.js";
import { BaseCompressor, prepareWrite } from "../../src/write/bases.js";
import { packBases, readPack } from "../../src/write/known-bases.js";
import { precompressedBases } from "../../src/emit/precompile.js";
import { emitProject } from "../../src/emit/index.js";
import { staticOutput } from "../../src/emit/static-files.js";
import { readTemplates } from "../../src/emit/template-files.js";
import { addGuidance } from "../../src/guidance/index.js";
import { hashContent } from "../../src/write/hash.js";
import { settleAll } from "../../src/cache/replace-file.js";
import { modelFrom, SAMPLES } from "../helpers/pipeline.js";
import { BASE_DIR, unresolvedConflicts, writeProject } from "../../src/write/index.js";

const base = {
  generator: { name: "create-guided-mcp", version: "test" },
  spec: { source: "spec.yaml", hash: "h" },
  options: {},
};
const files = (version: string): EmittedFile[] => [
  { path: "src/server.ts", content: `// server ${version}\n`, owner: "generator" },
  { path: "src/runtime/http.ts", content: `// http ${version}\n`, owner: "generator" },
  { path: "src/hooks.ts", content: `// hooks ${version}\n`, owner: "user" },
  ...(version === "v1" ? [{ path: "src/old.ts", content: "// old\n", owner: "generator" as const }] : []),
];

describe("write", () => {
  it("creates a fresh project atomically, then updates it without losing user work", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "cgm-write-")), "project");
    const first = await writeProject(out, files("v1"), base);
    expect(first.fresh).toBe(true);
    expect(readFileSync(join(out, "src/server.ts"), "utf8")).toBe("// server v1\n");

    writeFileSync(join(out, "src/hooks.ts"), "// my hooks\n");
    writeFileSync(join(out, "src/runtime/http.ts"), "// my edit\n");
    writeFileSync(join(out, "src/mine.ts"), "// my file\n");

    const second = await writeProject(out, files("v2"), base);
    const actions = Object.fromEntries(second.plan.map((entry) => [entry.path, entry.action]));
    // Deliberate change: an edited generated file used to be kept with the new version beside it as .new;
    // it is now merged three ways, and here both sides changed its only line, so it gets conflict markers.
    expect(actions).toEqual({
      "src/server.ts": "update",
      "src/runtime/http.ts": "conflict",
      "src/hooks.ts": "keep-user",
      "src/old.ts": "delete",
    });
    expect(readFileSync(join(out, "src/server.ts"), "utf8")).toBe("// server v2\n");
    expect(readFileSync(join(out, "src/runtime/http.ts"), "utf8")).toBe(
      "<<<<<<< yours\n// my edit\n=======\n// http v2\n>>>>>>> generated\n",
    );
    expect(existsSync(join(out, "src/runtime/http.ts.new"))).toBe(false);
    expect(readFileSync(join(out, "src/hooks.ts"), "utf8")).toBe("// my hooks\n");
    expect(readFileSync(join(out, "src/mine.ts"), "utf8")).toBe("// my file\n");
    expect(existsSync(join(out, "src/old.ts"))).toBe(false);
  });

  it("removes the staging folders a killed run left an hour ago or more, and nothing else", async () => {
    const parent = mkdtempSync(join(tmpdir(), "cgm-write-"));
    const out = join(parent, "project");
    const plant = (folder: string, hoursAgo: number) => {
      mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, "0"), "half a run");
      const time = Date.now() / 1000 - hoursAgo * 3600;
      utimesSync(folder, time, time);
    };
    // A fresh project stages beside its folder; a regeneration inside `.guided-mcp`.
    plant(join(parent, ".project.tmp-0a1b2c3d"), 2);
    plant(join(parent, ".project.tmp-1a2b3c4d"), 0);
    plant(join(parent, ".other.tmp-0a1b2c3d"), 2);
    await writeProject(out, files("v1"), base);
    expect(readdirSync(parent).sort()).toEqual([".other.tmp-0a1b2c3d", ".project.tmp-1a2b3c4d", "project"]);
    plant(join(out, ".guided-mcp", "staging-0a1b2c3d"), 2);
    plant(join(out, ".guided-mcp", "staging-1a2b3c4d"), 0.5);
    plant(join(out, ".guided-mcp", "staging-notours"), 2);
    await writeProject(out, files("v2"), base);
    const left = readdirSync(join(out, ".guided-mcp")).filter((name) => name.startsWith("staging-"));
    expect(left.sort()).toEqual(["staging-1a2b3c4d", "staging-notours"]);
  });

  it("writes nothing on a dry run", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "cgm-write-")), "project");
    const result = await writeProject(out, files("v1"), base, { dryRun: true });
    expect(result.plan.every((entry) => entry.action === "create")).toBe(true);
    expect(existsSync(out)).toBe(false);
  });

  it("replaces edited generated files with --force, but never user-owned ones", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "cgm-write-")), "project");
    await writeProject(out, files("v1"), base);
    writeFileSync(join(out, "src/runtime/http.ts"), "// my edit\n");
    writeFileSync(join(out, "src/hooks.ts"), "// my hooks\n");
    await writeProject(out, files("v2"), base, { force: true });
    expect(readFileSync(join(out, "src/runtime/http.ts"), "utf8")).toBe("// http v2\n");
    expect(readFileSync(join(out, "src/hooks.ts"), "utf8")).toBe("// my hooks\n");
  });
});

const TS_V1 = [
  "import { a } from './a.js';",
  "",
  "export function one() {",
  "  return 1;",
  "}",
  "",
  "export function two() {",
  "  return 2;",
  "}",
  "",
].join("\n");
const TS_V2 = TS_V1.replace("  return 1;", "  return 1 + 0; // generator v2");
const ts = (content: string): EmittedFile[] => [{ path: "src/runtime/config.ts", content, owner: "generator" }];

describe("regeneration merges the user's edits three ways", () => {
  it("an edit away from the generator's change survives, gets the change, and leaves no .new file", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "cgm-merge-")), "project");
    await writeProject(out, ts(TS_V1), base);
    const path = join(out, "src/runtime/config.ts");
    writeFileSync(path, TS_V1.replace("  return 2;", "  return 2 * 21; // mine"));
    const result = await writeProject(out, ts(TS_V2), base);
    expect(result.plan).toEqual([{ path: "src/runtime/config.ts", action: "merged", owner: "generator" }]);
    expect(readFileSync(path, "utf8")).toBe(TS_V2.replace("  return 2;", "  return 2 * 21; // mine"));
    expect(existsSync(`${path}.new`)).toBe(false);
    // The next run merges against this generation: nothing new, so the user's file stays exactly as it is.
    const again = await writeProject(out, ts(TS_V2), base);
    expect(again.plan[0]!.action).toBe("kept-edit");
    expect(readFileSync(path, "utf8")).toBe(TS_V2.replace("  return 2;", "  return 2 * 21; // mine"));
  });

  it("a conflicting edit gets markers only around the lines both changed, and a note", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "cgm-merge-")), "project");
    await writeProject(out, ts(TS_V1), base);
    const path = join(out, "src/runtime/config.ts");
    writeFileSync(path, TS_V1.replace("  return 1;", "  return 100; // mine"));
    const result = await writeProject(out, ts(TS_V2), base);
    expect(result.plan[0]).toMatchObject({
      action: "conflict",
      notes: [expect.stringMatching(/^1 place\(s\) where you and the generator changed the same lines/)],
    });
    const merged = readFileSync(path, "utf8");
    expect(merged).toContain(
      "export function one() {\n<<<<<<< yours\n  return 100; // mine\n=======\n  return 1 + 0; // generator v2\n>>>>>>> generated\n}",
    );
    expect(merged).toContain("export function two() {\n  return 2;\n}"); // untouched lines carry no markers
    // Unresolved markers: the next run leaves the file alone (and keeps the old base for when it is resolved).
    const TS_V3 = TS_V2.replace("import { a }", "import { a, b }");
    const blocked = await writeProject(out, ts(TS_V3), base);
    expect(blocked.plan[0]).toMatchObject({
      action: "conflict",
      notes: [expect.stringMatching(/still has conflict markers/)],
    });
    expect(readFileSync(path, "utf8")).toBe(merged);
    // Resolved against v2 (the side the markers showed): the blocked v3 change now merges in.
    writeFileSync(path, TS_V2.replace("  return 1 + 0; // generator v2", "  return 100; // resolved"));
    const clean = await writeProject(out, ts(TS_V3), base);
    expect(clean.plan[0]!.action).toBe("merged");
    expect(readFileSync(path, "utf8")).toBe(
      TS_V3.replace("  return 1 + 0; // generator v2", "  return 100; // resolved"),
    );
  });

  it("without a recorded base (an older project) keeps the edit and writes the new version as .new", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "cgm-merge-")), "project");
    await writeProject(out, ts(TS_V1), base);
    rmSync(join(out, BASE_DIR), { recursive: true });
    const path = join(out, "src/runtime/config.ts");
    writeFileSync(path, TS_V1 + "// mine\n");
    const result = await writeProject(out, ts(TS_V2), base);
    expect(result.plan[0]!.action).toBe("sidecar");
    expect(readFileSync(path, "utf8")).toBe(TS_V1 + "// mine\n");
    expect(readFileSync(`${path}.new`, "utf8")).toBe(TS_V2);
    expect(existsSync(join(out, BASE_DIR, "src/runtime/config.ts.gz"))).toBe(true); // merges work from now on
  });

  it("lists unresolved conflict markers for --check", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "cgm-merge-")), "project");
    const { manifest } = await writeProject(out, ts(TS_V1), base);
    expect(await unresolvedConflicts(out, manifest)).toEqual([]);
    writeFileSync(join(out, "src/runtime/config.ts"), "<<<<<<< yours\na\n=======\nb\n>>>>>>> generated\n");
    expect(await unresolvedConflicts(out, manifest)).toEqual(["src/runtime/config.ts"]);
  });
});

describe("data/tools.json merges structurally", () => {
  const tool = (name: string, description: string, extra: object = {}) => ({
    name,
    description,
    inputSchema: { type: "object" },
    ...extra,
  });
  const data = (tools: object[]): EmittedFile[] => [
    { path: "data/tools.json", content: JSON.stringify({ version: 1, tools }, null, 2) + "\n", owner: "generator" },
  ];

  it("keeps an edited description while the spec adds a tool and changes another", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "cgm-json-")), "project");
    await writeProject(out, data([tool("list_pets", "List pets."), tool("get_pet", "Get a pet.")]), base);
    const path = join(out, "data/tools.json");
    const edited = JSON.parse(readFileSync(path, "utf8"));
    edited.tools[0].description = "List the pets in the store, newest first.";
    writeFileSync(path, JSON.stringify(edited, null, 2) + "\n");

    const next = data([
      tool("list_pets", "List pets.", { title: "List pets" }),
      tool("get_pet", "Get a pet by id."),
      tool("get_health", "Health check."),
    ]);
    const result = await writeProject(out, next, base);
    expect(result.plan[0]).toEqual({ path: "data/tools.json", action: "merged", owner: "generator" });
    const merged = JSON.parse(readFileSync(path, "utf8"));
    expect(merged.tools).toEqual([
      tool("list_pets", "List the pets in the store, newest first.", { title: "List pets" }),
      tool("get_pet", "Get a pet by id."),
      tool("get_health", "Health check."),
    ]);
    expect(readFileSync(path, "utf8")).toMatch(/^\{\n {2}"version": 1/); // the generator's layout
  });

  it("reports a field both sides changed (keeping the user's) and an edited tool the spec removed", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "cgm-json-")), "project");
    await writeProject(out, data([tool("a", "A."), tool("b", "B.")]), base);
    const path = join(out, "data/tools.json");
    writeFileSync(
      path,
      JSON.stringify({ version: 1, tools: [tool("a", "Mine."), tool("b", "Mine too.")] }, null, 2) + "\n",
    );
    const result = await writeProject(out, data([tool("a", "Theirs.")]), base);
    expect(result.plan[0]!.notes).toEqual([
      "#/tools/0/description: you and the new generation both changed it — kept yours",
      "#/tools/1: the new generation no longer has `b`, so your edit of it was dropped",
    ]);
    expect(JSON.parse(readFileSync(path, "utf8")).tools).toEqual([tool("a", "Mine.")]);
  });
});

describe("merge bases", () => {
  // ~3 MB of tools: well above the size from which a base is kept uncompressed.
  const bigTools = (description: string) => {
    const tools = Array.from({ length: 30_000 }, (_, i) => ({ name: `tool_${i}`, description: `Tool ${i}.` }));
    tools[1]!.description = description;
    return { version: 1, tools };
  };
  const bigFile = (description: string): EmittedFile[] => [
    { path: "data/tools.json", content: JSON.stringify(bigTools(description)) + "\n", owner: "generator" },
    { path: "src/server.ts", content: `// ${description}\n`, owner: "generator" },
  ];
  const raw = join(BASE_DIR, "data/tools.json");

  it("a large one is kept as it is, a small one gzipped; merges work from either", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "cgm-bases-")), "project");
    await writeProject(out, bigFile("One."), base);
    expect(readFileSync(join(out, raw)).equals(readFileSync(join(out, "data/tools.json")))).toBe(true);
    expect(existsSync(join(out, `${raw}.gz`))).toBe(false);
    expect(gunzipSync(readFileSync(join(out, BASE_DIR, "src/server.ts.gz"))).toString()).toBe("// One.\n");
    // The user edits tool_0; the spec changes tool_1: merged structurally from the raw base.
    const edited = bigTools("One.");
    edited.tools[0]!.description = "Mine.";
    writeFileSync(join(out, "data/tools.json"), JSON.stringify(edited) + "\n");
    const result = await writeProject(out, bigFile("Two."), base);
    expect(result.plan.find((entry) => entry.path === "data/tools.json")?.action).toBe("merged");
    const merged = JSON.parse(readFileSync(join(out, "data/tools.json"), "utf8"));
    expect(merged.tools.slice(0, 2)).toEqual([
      { name: "tool_0", description: "Mine." },
      { name: "tool_1", description: "Two." },
    ]);
    expect(readFileSync(join(out, raw), "utf8")).toBe(JSON.stringify(bigTools("Two.")) + "\n");
  });

  it("one gzipped by an earlier version is still merged from, kept while unchanged, then replaced", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "cgm-bases-")), "project");
    await writeProject(out, bigFile("One."), base);
    // As an earlier version left it: every base gzipped.
    writeFileSync(join(out, `${raw}.gz`), gzipSync(readFileSync(join(out, raw))));
    rmSync(join(out, raw));
    // Unchanged: the old base stays as it is.
    await writeProject(out, bigFile("One."), base);
    expect(existsSync(join(out, raw))).toBe(false);
    expect(existsSync(join(out, `${raw}.gz`))).toBe(true);
    const edited = bigTools("One.");
    edited.tools[0]!.description = "Mine.";
    writeFileSync(join(out, "data/tools.json"), JSON.stringify(edited) + "\n");
    const result = await writeProject(out, bigFile("Two."), base);
    expect(result.plan.find((entry) => entry.path === "data/tools.json")?.action).toBe("merged");
    expect(JSON.parse(readFileSync(join(out, "data/tools.json"), "utf8")).tools[0].description).toBe("Mine.");
    // The new base replaces the old one, in the new form.
    expect(existsSync(join(out, `${raw}.gz`))).toBe(false);
    expect(readFileSync(join(out, raw), "utf8")).toBe(JSON.stringify(bigTools("Two.")) + "\n");
  });

  it("a large one is written over the old one's bytes only where that file is the base's alone", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cgm-bases-"));
    const out = join(dir, "project");
    await writeProject(out, bigFile("One."), base);
    const { ino } = statSync(join(out, raw));
    await writeProject(out, bigFile("Two."), base);
    expect(statSync(join(out, raw)).ino).toBe(ino);
    expect(readFileSync(join(out, raw)).equals(readFileSync(join(out, "data/tools.json")))).toBe(true);
    // Shorter than the old one: the file ends with the new bytes.
    await writeProject(out, bigFile("3."), base);
    expect(readFileSync(join(out, raw), "utf8")).toBe(JSON.stringify(bigTools("3.")) + "\n");
    // A hard-linked backup of the project shares the base's bytes: they stay, and the base is a new file.
    linkSync(join(out, raw), join(dir, "backup.json"));
    await writeProject(out, bigFile("Four."), base);
    expect(readFileSync(join(dir, "backup.json"), "utf8")).toBe(JSON.stringify(bigTools("3.")) + "\n");
    expect(readFileSync(join(out, raw), "utf8")).toBe(JSON.stringify(bigTools("Four.")) + "\n");
    // A base that is a symbolic link is replaced, not written through.
    renameSync(join(out, raw), join(dir, "elsewhere.json"));
    symlinkSync(join(dir, "elsewhere.json"), join(out, raw));
    await writeProject(out, bigFile("Five."), base);
    expect(readFileSync(join(dir, "elsewhere.json"), "utf8")).toBe(JSON.stringify(bigTools("Four.")) + "\n");
    expect(lstatSync(join(out, raw)).isFile()).toBe(true);
    expect(readFileSync(join(out, raw), "utf8")).toBe(JSON.stringify(bigTools("Five.")) + "\n");
    // The user's edit still merges from it.
    const edited = bigTools("Five.");
    edited.tools[0]!.description = "Mine.";
    writeFileSync(join(out, "data/tools.json"), JSON.stringify(edited) + "\n");
    const result = await writeProject(out, bigFile("Six."), base);
    expect(result.plan.find((entry) => entry.path === "data/tools.json")?.action).toBe("merged");
    expect(JSON.parse(readFileSync(join(out, "data/tools.json"), "utf8")).tools.slice(0, 2)).toEqual([
      { name: "tool_0", description: "Mine." },
      { name: "tool_1", description: "Six." },
    ]);
  });

  it("a large project file keeps the one it replaces as its spare, and is written into it the next time", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cgm-spare-"));
    const out = join(dir, "project");
    const tools = join(out, "data/tools.json");
    const spare = join(out, ".guided-mcp/cache/spare/data/tools.json");
    await writeProject(out, bigFile("One."), base);
    const first = statSync(tools).ino;
    await writeProject(out, bigFile("Two."), base);
    // The replaced file is the spare (same file, the old bytes); the project's file has the new ones.
    expect(statSync(spare).ino).toBe(first);
    expect(readFileSync(spare, "utf8")).toBe(JSON.stringify(bigTools("One.")) + "\n");
    const second = statSync(tools).ino;
    await writeProject(out, bigFile("3."), base);
    expect(statSync(tools).ino).toBe(first);
    expect(readFileSync(tools, "utf8")).toBe(JSON.stringify(bigTools("3.")) + "\n");
    expect(statSync(spare).ino).toBe(second);
    // A hard-linked backup of the project keeps its bytes: the spare it shares is not written through.
    linkSync(tools, join(dir, "backup.json"));
    await writeProject(out, bigFile("Four."), base);
    await writeProject(out, bigFile("Five."), base);
    expect(readFileSync(join(dir, "backup.json"), "utf8")).toBe(JSON.stringify(bigTools("3.")) + "\n");
    expect(readFileSync(tools, "utf8")).toBe(JSON.stringify(bigTools("Five.")) + "\n");
    // A run cut short after naming the live file a second time (in its staging folder) and after claiming the spare:
    // that name is never written through, and without a spare the new version is written afresh.
    const leftover = join(out, ".guided-mcp/staging-cut-short");
    mkdirSync(leftover);
    linkSync(tools, join(leftover, "1"));
    renameSync(spare, join(leftover, "0"));
    const edited = bigTools("Five.");
    edited.tools[0]!.description = "Mine.";
    writeFileSync(tools, JSON.stringify(edited) + "\n");
    const result = await writeProject(out, bigFile("Six."), base);
    expect(result.plan.find((entry) => entry.path === "data/tools.json")?.action).toBe("merged");
    expect(JSON.parse(readFileSync(tools, "utf8")).tools.slice(0, 2)).toEqual([
      { name: "tool_0", description: "Mine." },
      { name: "tool_1", description: "Six." },
    ]);
    expect(JSON.parse(readFileSync(join(leftover, "1"), "utf8")).tools[0].description).toBe("Mine.");
    expect(JSON.parse(readFileSync(spare, "utf8")).tools[0].description).toBe("Mine.");
    expect(statSync(spare).nlink).toBe(2); // the spare and the leftover name: not written into next time
    await writeProject(out, bigFile("Seven."), base);
    expect(JSON.parse(readFileSync(join(leftover, "1"), "utf8")).tools[0].description).toBe("Mine.");
    expect(JSON.parse(readFileSync(tools, "utf8")).tools.slice(0, 2)).toEqual([
      { name: "tool_0", description: "Mine." },
      { name: "tool_1", description: "Seven." },
    ]);
    // Each run's own names go with its staging folder.
    expect(readdirSync(join(out, ".guided-mcp")).filter((name) => name.startsWith("staging-"))).toEqual([
      "staging-cut-short",
    ]);
  });

  it("a damaged large base is no base: the edit is kept and the new version written beside it", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "cgm-bases-")), "project");
    await writeProject(out, bigFile("One."), base);
    writeFileSync(join(out, raw), readFileSync(join(out, raw)).subarray(0, 1000));
    writeFileSync(join(out, "data/tools.json"), JSON.stringify(bigTools("Mine.")) + "\n");
    const result = await writeProject(out, bigFile("Two."), base);
    expect(result.plan.find((entry) => entry.path === "data/tools.json")?.action).toBe("sidecar");
    expect(JSON.parse(readFileSync(join(out, "data/tools.json"), "utf8")).tools[1].description).toBe("Mine.");
    expect(existsSync(join(out, "data/tools.json.new"))).toBe(true);
  });
});

describe("merge bases compressed by the build", () => {
  const pack = precompressedBases();
  const bases = readPack(pack);

  it("hold every default template copied as it is, each the gzip of the bytes its key is the hash of", () => {
    const copied = [...readTemplates().values()]
      .map((template) => staticOutput(template)?.bytes)
      .filter((bytes) => bytes !== undefined);
    expect(copied.length).toBeGreaterThan(50);
    expect([...bases.keys()].sort()).toEqual([...new Set(copied.map((bytes) => hashContent(bytes)))].sort());
    for (const [hash, base] of bases) {
      const bytes = gunzipSync(base);
      expect(hashContent(bytes)).toBe(hash);
      expect(gzipSync(bytes).equals(base)).toBe(true);
    }
  });

  it("are used only with the zlib that made them, and not at all when damaged", () => {
    const end = pack.indexOf(0x0a);
    const header = JSON.parse(pack.toString("utf8", 0, end));
    const withHeader = (changed: object) =>
      Buffer.concat([Buffer.from(JSON.stringify({ ...header, ...changed })), pack.subarray(end)]);
    expect(readPack(withHeader({})).size).toBe(bases.size);
    expect(readPack(withHeader({ zlib: "1.2.11" })).size).toBe(0);
    expect(readPack(withHeader({ format: 0 })).size).toBe(0);
    expect(readPack(pack.subarray(0, pack.length - 1)).size).toBe(0); // cut short
    const damaged = Buffer.from(pack);
    damaged[end + 20] = damaged[end + 20]! ^ 0xff; // inside the first base: the check compresses that one again
    expect(readPack(damaged).size).toBe(0);
    expect(readPack(Buffer.from("not a pack")).size).toBe(0);
    // A base whose bytes this zlib would not make (another level) fails the check.
    const other = Buffer.from("export const x = 1;\n".repeat(50));
    const foreign = packBases([other]);
    const foreignEnd = foreign.indexOf(0x0a);
    const relevelled = gzipSync(other, { level: 1 });
    const foreignHeader = JSON.parse(foreign.toString("utf8", 0, foreignEnd));
    foreignHeader.entries[0][1] = relevelled.length;
    expect(readPack(Buffer.concat([Buffer.from(JSON.stringify(foreignHeader) + "\n"), relevelled])).size).toBe(0);
  });

  it("give a project the bytes compressing at run time gives", async () => {
    const model = addGuidance(await modelFrom(join(SAMPLES, "petstore.yaml")), { seed: 1 });
    const emitted = emitProject(model, { generatorVersion: "0.0.0-test" });
    const root = mkdtempSync(join(tmpdir(), "cgm-bases-"));
    let used = 0;
    const fromPack = new BaseCompressor((hash) => {
      const base = bases.get(hash);
      if (base) used++;
      return base;
    });
    await writeProject(join(root, "pack"), prepareWrite(emitted, fromPack), base);
    const compressing = new BaseCompressor(() => undefined);
    await writeProject(join(root, "zlib"), prepareWrite(emitted, compressing), base);
    expect(used).toBeGreaterThan(50);
    for (const file of emitted.filter((candidate) => candidate.owner === "generator")) {
      const path = join(BASE_DIR, `${file.path}.gz`);
      expect(readFileSync(join(root, "pack", path)).equals(readFileSync(join(root, "zlib", path))), path).toBe(true);
    }
  });

  it("are looked up only for files copied from a template", async () => {
    const looked: string[] = [];
    const bases = new BaseCompressor((hash) => {
      looked.push(hash);
      return Buffer.from("packed");
    });
    const bytes = Buffer.from("# README\n");
    expect(bases.compressed({}, bytes, "rendered").equals(gzipSync(bytes))).toBe(true);
    expect(looked).toEqual([]);
    expect(bases.compressed({ copied: true }, bytes, "copied").toString()).toBe("packed");
    expect(looked).toEqual(["copied"]);
    // Emit marks exactly the files copied as they are: the README is rendered, the runtime copied.
    const model = addGuidance(await modelFrom(join(SAMPLES, "petstore.yaml")), { seed: 1 });
    const emitted = emitProject(model, { generatorVersion: "0.0.0-test" });
    expect(emitted.find((file) => file.path === "README.md")?.copied).toBeUndefined();
    expect(emitted.find((file) => file.path === "src/index.ts")?.copied).toBe(true);
  });
});

describe("writing alongside the project (the caches)", () => {
  const alongFile = ".guided-mcp/cache/along.txt";

  it("a fresh project gets them in its staging folder, renamed into place with the rest", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "cgm-along-")), "project");
    const roots: string[] = [];
    await writeProject(out, files("v1"), base, {
      alongside: async (root) => {
        roots.push(root);
        expect(existsSync(out)).toBe(false);
        mkdirSync(join(root, ".guided-mcp/cache"), { recursive: true });
        writeFileSync(join(root, alongFile), "saved");
      },
    });
    expect(roots).toHaveLength(1);
    expect(roots[0]).not.toBe(out);
    expect(readFileSync(join(out, alongFile), "utf8")).toBe("saved");
    expect(readdirSync(dirname(out))).toEqual(["project"]); // no staging folder left
    // An update writes them into the project itself.
    await writeProject(out, files("v2"), base, { alongside: async (root) => void roots.push(root) });
    expect(roots[1]).toBe(out);
  });

  it("their failure fails a fresh write, which leaves nothing behind", async () => {
    const parent = mkdtempSync(join(tmpdir(), "cgm-along-"));
    const out = join(parent, "project");
    const failing = async (root: string) => {
      writeFileSync(join(root, "partial"), "x");
      throw new Error("disk full");
    };
    await expect(writeProject(out, files("v1"), base, { alongside: failing })).rejects.toThrow("disk full");
    expect(readdirSync(parent)).toEqual([]);
  });

  it("a failure waits for the other cache writes before the staging folder goes", async () => {
    const parent = mkdtempSync(join(tmpdir(), "cgm-along-"));
    const out = join(parent, "project");
    const late = (root: string) =>
      new Promise<void>((done) => setTimeout(() => (writeFileSync(join(root, "late"), "x"), done()), 30));
    const alongside = (root: string) => settleAll([late(root), Promise.reject(new Error("cache failed"))]);
    await expect(writeProject(out, files("v1"), base, { alongside })).rejects.toThrow("cache failed");
    expect(readdirSync(parent)).toEqual([]);
  });

  it("the write's own failure is the one reported", async () => {
    const parent = mkdtempSync(join(tmpdir(), "cgm-along-"));
    const out = join(parent, "project");
    class Failing extends BaseCompressor {
      override compressed(): Buffer {
        throw new Error("compression failed");
      }
    }
    const prepared = prepareWrite(files("v1"), new Failing());
    const failing = () => Promise.reject(new Error("cache failed"));
    await expect(writeProject(out, prepared, base, { alongside: failing })).rejects.toThrow("compression failed");
    expect(readdirSync(parent)).toEqual([]);
    // Updating: the same.
    await writeProject(out, files("v1"), base);
    const update = prepareWrite(files("v2"), new Failing());
    await expect(writeProject(out, update, base, { alongside: failing })).rejects.toThrow("compression failed");
    expect(readFileSync(join(out, "src/server.ts"), "utf8")).toContain("server v1");
  });
});
