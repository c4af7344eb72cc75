/**
 * The generated project's own vitest suite: in a freshly generated project,
 * `npm test` builds and runs it offline, and it passes — for a real sample, for
 * handler-backed tools, and (sampled, saying so) for a large API. A broken
 * request builder makes it fail: the expectations are not the runtime's own output.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generate } from "../../src/generate.js";
import { SAMPLES } from "../helpers/pipeline.js";
import { installDeps } from "../helpers/project.js";

const scratch = () => mkdtempSync(join(tmpdir(), "cgm-suite-"));

async function generated(from: string): Promise<string> {
  const out = join(scratch(), "project");
  await generate({ from, out });
  await installDeps(out);
  return out;
}

function npmTest(dir: string) {
  const run = spawnSync("npm", ["test", "--silent"], {
    cwd: dir,
    encoding: "utf8",
    env: { ...process.env, CI: "true", npm_config_offline: "true" },
  });
  // eslint-disable-next-line no-control-regex
  return { code: run.status, output: `${run.stdout}\n${run.stderr}`.replace(/\u001b\[[0-9;]*m/g, "") };
}

describe("the generated test suite", () => {
  it("passes offline in a fresh Petstore project, checking every tool", async () => {
    const dir = await generated(join(SAMPLES, "petstore.yaml"));
    const { code, output } = npmTest(dir);
    expect(code, output).toBe(0);
    expect(output).toMatch(/examples \(all 9 tools with an example\)/);
    expect(output).toMatch(/list_pets: the example builds the expected HTTP request/);
    expect(output).toMatch(/Tests\s+\d+ passed/);
    expect(output).not.toMatch(/failed/);
  });

  it("keeps the generated suite in src/runtime/test/ (out of the build) and runs the user's own tests under test/, which a regeneration leaves alone", async () => {
    const spec = join(SAMPLES, "petstore.yaml");
    const dir = await generated(spec);
    expect(existsSync(join(dir, "src", "runtime", "test", "tools.test.ts"))).toBe(true);
    expect(existsSync(join(dir, "src", "runtime", "test", "expectations.json"))).toBe(true);
    expect(existsSync(join(dir, "test"))).toBe(false);
    const mine = join(dir, "test", "mine.test.ts");
    const own = [
      'import { readFileSync } from "node:fs";',
      'import { expect, it } from "vitest";',
      'it("my own check: the data file names the API", () => {',
      '  const data = JSON.parse(readFileSync(new URL("../data/tools.json", import.meta.url), "utf8"));',
      '  expect(data.api.envPrefix).toBe("PETSTORE");',
      "});",
      "",
    ].join("\n");
    mkdirSync(join(dir, "test"));
    writeFileSync(mine, own);
    const { code, output } = npmTest(dir);
    expect(code, output).toBe(0);
    expect(output).toMatch(/✓ .*my own check: the data file names the API/);
    expect(output).toMatch(/✓ .*list_pets: the example builds the expected HTTP request/);
    expect(existsSync(join(dir, "dist", "runtime", "test"))).toBe(false);
    await generate({ from: spec, out: dir });
    expect(readFileSync(mine, "utf8")).toBe(own);
    const manifest = readFileSync(join(dir, ".guided-mcp", "manifest.json"), "utf8");
    expect(manifest).toContain("src/runtime/test/tools.test.ts");
    expect(manifest).not.toContain("test/mine.test.ts");
  });

  it("fails when the runtime builds a different request than the one derived at generation time", async () => {
    const dir = await generated(join(SAMPLES, "petstore.yaml"));
    const requestTs = join(dir, "src", "runtime", "upstream", "request.ts");
    // A plausible regression: query parameters silently dropped.
    writeFileSync(
      requestTs,
      readFileSync(requestTs, "utf8").replace(
        'if (parameter.in === "query") queryPairs.push',
        'if (parameter.in === "query") void queryPairs.push; else if (false) queryPairs.push',
      ),
    );
    const { code, output } = npmTest(dir);
    expect(code).not.toBe(0);
    expect(output).toMatch(/× .*list_pets: the example builds the expected HTTP request/);
    expect(output).toMatch(/✓ .*list_pets: the example passes the tool's validator/);
  });

  // notes-tools.schema.json: handler-backed tools (JSON Schema input).
  it.each(["inventory-swagger2.json", "library-openapi31.yaml", "notes-tools.schema.json"])(
    "passes offline for the %s sample",
    async (sample) => {
      const dir = await generated(join(SAMPLES, sample));
      const { code, output } = npmTest(dir);
      expect(code, output).toBe(0);
    },
  );

  it("samples a large API and says so", async () => {
    const paths = Object.fromEntries(
      Array.from({ length: 300 }, (_, i) => [
        `/things${i}/{id}`,
        {
          get: {
            operationId: `getThing${i}`,
            parameters: [
              { name: "id", in: "path", required: true, schema: { type: "string" } },
              { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 50 } },
            ],
            responses: {
              "200": { description: "ok", content: { "application/json": { schema: { type: "object" } } } },
            },
          },
        },
      ]),
    );
    const spec = join(scratch(), "big.json");
    writeFileSync(
      spec,
      JSON.stringify({
        openapi: "3.1.0",
        info: { title: "Big", version: "1" },
        servers: [{ url: "https://big.example.com/api" }],
        paths,
      }),
    );
    const dir = await generated(spec);
    const { code, output } = npmTest(dir);
    expect(code, output).toBe(0);
    expect(output).toMatch(/examples \(a sample of 25 of the 300 tools\)/);
  });
});
