import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { assembleToolsFile } from "../../src/cache/tool-texts.js";
import { toToolData } from "../../src/emit/index.js";
import { membersAhead, serialiseMembersAhead } from "../../src/emit/tool-members.js";
import { addGuidance } from "../../src/guidance/index.js";
import type { GuidedTool } from "../../src/model/ir.js";
import { emitFiles, renderAhead } from "../../src/emit-stage.js";
import { runCli } from "../helpers/cli.js";
import { modelFrom, SAMPLES } from "../helpers/pipeline.js";
import { toolSeed } from "../../src/guidance/index.js";
import { computeOutcomesInParallel, type ExampleWorker } from "../../src/parallel/index.js";
import { outcomeUnits, sharedQueue } from "../../src/parallel/units.js";
import { projectFiles, withoutSaveIds } from "../helpers/project.js";
import { CACHE_DIR } from "../../src/cache/index.js";
import { MODEL_CACHE_FILE } from "../../src/cache/model-cache.js";

/** An API of `count` operations (every other one with a body, a shared response component, a title on some). */
function specOf(count: number): string {
  const dir = mkdtempSync(join(tmpdir(), "cgm-members-"));
  const paths: Record<string, unknown> = {};
  for (let index = 0; index < count; index++) {
    const ok = {
      description: "ok",
      content: { "application/json": { schema: { $ref: "#/components/schemas/Thing" } } },
    };
    paths[`/things${index}/{id}`] = {
      parameters: [{ name: "id", in: "path", required: true, schema: { type: "string", pattern: "^t_" } }],
      get: {
        operationId: `getThing${index}`,
        summary: `Get thing ${index} — “quoted” 🚀`,
        tags: ["things"],
        parameters: [{ name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 100 } }],
        responses: { "200": ok },
      },
      ...(index % 2
        ? {
            post: {
              operationId: `updateThing${index}`,
              requestBody: {
                content: {
                  "application/json": {
                    schema: { type: "object", required: ["name"], properties: { name: { type: "string" } } },
                  },
                },
              },
              responses: { "200": ok },
            },
          }
        : {}),
    };
  }
  const spec = {
    openapi: "3.1.0",
    info: { title: "Things", version: "1" },
    paths,
    components: {
      schemas: {
        Thing: {
          type: "object",
          description: "A thing (stripped from the response schema that data/tools.json keeps).",
          properties: { id: { type: "string", example: "t_1" }, name: { type: "string" } },
        },
      },
    },
  };
  const file = join(dir, "api.json");
  writeFileSync(file, JSON.stringify(spec));
  return file;
}

const fileOf = (tools: GuidedTool[], api: object) => JSON.stringify({ api, tools: tools.map(toToolData) }) + "\n";

describe("tools' members serialised before the example worker joins", () => {
  it("make data/tools.json byte for byte, and stand only for tools whose members are the ones they were made from", async () => {
    const model = await modelFrom(specOf(160));
    expect(model.tools.length).toBeGreaterThan(200);
    serialiseMembersAhead(model.tools, model.tools.length);
    const guided = addGuidance(model);
    expect(guided.tools.every((tool) => membersAhead(tool) !== undefined)).toBe(true);
    const assembled = assembleToolsFile(guided, [], new Map());
    expect(assembled.bytes.toString("utf8")).toBe(fileOf(guided.tools, guided.api));

    // A member changed, added or taken away since: the tool is serialised anew, and the file is still exact.
    const [first, second, third, ...rest] = guided.tools;
    const changed: GuidedTool[] = [
      { ...first!, description: "Another description." },
      { ...second!, title: "A title added" },
      (({ operationId: _, ...tool }) => tool as GuidedTool)(third!),
      ...rest,
    ];
    expect(changed.slice(0, 3).map((tool) => membersAhead(tool))).toEqual([undefined, undefined, undefined]);
    const edited = { ...guided, tools: changed };
    expect(assembleToolsFile(edited, [], new Map()).bytes.toString("utf8")).toBe(fileOf(changed, guided.api));
  });

  it("are not made for an API whose data/tools.json is indented (200 tools or fewer)", async () => {
    const model = await modelFrom(specOf(20));
    serialiseMembersAhead(model.tools, model.tools.length);
    const guided = addGuidance(model);
    expect(guided.tools.some((tool) => membersAhead(tool) !== undefined)).toBe(false);
  });

  it("leave a two-thread CLI run's project byte for byte what one thread writes", () => {
    const spec = specOf(160);
    const [one, two] = ["one", "two"].map((name) => join(mkdtempSync(join(tmpdir(), "cgm-members-cli-")), name));
    expect(runCli(["--from", spec, "--out", one!], { quiet: true, env: { GUIDED_MCP_WORKERS: "0" } }).code).toBe(0);
    const threaded = runCli(["--from", spec, "--out", two!], { env: { GUIDED_MCP_WORKERS: "1" } });
    expect(threaded.code, threaded.stderr).toBe(0);
    expect(threaded.stderr).toContain("validate+examples (2 threads)");
    expect(projectFiles(two!, [CACHE_DIR])).toEqual(projectFiles(one!, [CACHE_DIR]));
    // The outcomes the worker computed are in guidance as they are, uncopied: the example cache saves them unchanged.
    const examples = [one!, two!].map((project) =>
      withoutSaveIds(readFileSync(join(project, CACHE_DIR, "examples.json"), "utf8")),
    );
    expect(examples[1]).toBe(examples[0]);
    // The model cache's entries encoded ahead (src/cache/model-cache.ts `serialiseAhead`) are those it writes.
    const models = [one!, two!].map((project) =>
      withoutSaveIds(readFileSync(join(project, MODEL_CACHE_FILE), "latin1")),
    );
    expect(models[1]).toBe(models[0]);
    expect(readFileSync(join(two!, "data", "tools.json"), "utf8")).toMatch(/^\{"api":/);
  });
});

describe("the templates rendered before the example worker joins", () => {
  const options = (outDir: string) => ({ outDir, generatorVersion: "0.0.0-test" });
  const contents = (files: Array<{ path: string; content: string }>) =>
    Object.fromEntries(files.map((file) => [file.path, file.content]));

  it("are the files emit renders, used only for a guided model made of the model they were rendered from", async () => {
    const model = await modelFrom(specOf(30));
    const outDir = join(mkdtempSync(join(tmpdir(), "cgm-render-ahead-")), "out");
    const ahead = renderAhead(model, options(outDir))!;
    expect(ahead).toBeDefined();
    const guided = addGuidance(model);
    const plain = emitFiles(guided, options(outDir), undefined, undefined);
    const early = emitFiles(guided, options(outDir), undefined, undefined, ahead);
    expect(contents(early.files)).toEqual(contents(plain.files));
    // The very files rendered ahead (not rendered again).
    expect(early.files).toContain(ahead.rendered.files[0]);

    // A tool's summary changed since (the README lists it), another API object, a tool more: rendered anew.
    const [first, ...rest] = guided.tools;
    const changes = [
      { ...guided, tools: [{ ...first!, title: "A title the README shows" }, ...rest] },
      { ...guided, api: { ...guided.api } },
      { ...guided, tools: [...guided.tools, first!] },
    ];
    for (const changed of changes) {
      const emitted = emitFiles(changed, options(outDir), undefined, undefined, ahead);
      expect(emitted.files).not.toContain(ahead.rendered.files[0]);
      expect(contents(emitted.files)).toEqual(
        contents(emitFiles(changed, options(outDir), undefined, undefined).files),
      );
    }
    expect(contents(emitFiles(changes[0]!, options(outDir), undefined, undefined).files)["README.md"]).toContain(
      "A title the README shows",
    );
  });
});

describe("what the main thread is told while the worker computes", () => {
  it("says the worker is busy until it has computed every unit it took, and never without a worker", async () => {
    const model = await modelFrom(join(SAMPLES, "petstore.yaml"));
    const tasks = model.tools.map((tool, index) => ({ index, schema: tool.inputSchema, seed: toolSeed(1, tool.name) }));
    const count = outcomeUnits(tasks).length;
    expect(count).toBeGreaterThan(2);
    // A stand-in for the worker that takes `taken` units, says it is done or not, then answers with nothing (its
    // units are then recomputed).
    const worker = (taken: number, done: boolean): ExampleWorker => ({
      run(units, slots) {
        const queue = sharedQueue(slots);
        for (let unit = 0; unit < taken; unit++) queue.take();
        if (done) queue.finishWorker();
        return { shared: units, results: Promise.reject(new Error("no answer")) };
      },
      release: () => {},
      restoring: (timed) => timed,
    });
    const seen = async (taken: number, done: boolean) =>
      (await computeOutcomesInParallel(tasks, worker(taken, done), (busy) => busy())).meanwhile;
    expect(await seen(2, false)).toBe(true);
    // Every unit taken, the last one still being computed: still busy.
    expect(await seen(count, false)).toBe(true);
    expect(await seen(count, true)).toBe(false);
    // One unit: no worker, so nothing is busy.
    const one = [tasks[0]!];
    expect((await computeOutcomesInParallel(one, undefined, (busy) => busy())).meanwhile).toBe(false);
  });
});
