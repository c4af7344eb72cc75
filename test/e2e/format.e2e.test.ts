/**
 * A generated project reads like hand-written code: it ships its own
 * formatter, its sources pass `npm run format:check` as generated, and
 * few lines of the whole project (data included) are over 140 characters.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { generateAndBuild, type BuiltProject } from "../helpers/generated.js";
import { SAMPLES } from "../helpers/pipeline.js";

function projectFiles(dir: string, root = dir): string[] {
  return readdirSync(dir).flatMap((entry) => {
    // .guided-mcp/ is the generator's bookkeeping (gzipped merge bases, caches), not code anyone reads.
    if (["node_modules", "dist", "package-lock.json", ".guided-mcp"].includes(entry)) return [];
    const full = join(dir, entry);
    return statSync(full).isDirectory() ? projectFiles(full, root) : [relative(root, full)];
  });
}

/**
 * Issue 10: at most 20. What remains over 140 is the README's configuration table rows, tools.json's
 * pretty-printed long strings, the Dockerfile's ENTRYPOINT and two lines in guidance/envelope.ts.
 */
const MAX_LONG_LINES = 20;

// petstore: an OpenAPI API; notes-tools: JSON Schema tools with handler stubs and the handler registry.
describe.each(["petstore.yaml", "notes-tools.schema.json"])("generated from %s", (sample) => {
  let project: BuiltProject;
  beforeAll(async () => {
    project = await generateAndBuild(join(SAMPLES, sample));
  }, 600_000);

  it("ships a formatter configuration and a format script", () => {
    const pkg = JSON.parse(readFileSync(join(project.dir, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    expect(pkg.scripts["format"]).toMatch(/prettier --write/);
    // `prettier --write --check` writes and passes, so checking needs its own script.
    expect(pkg.scripts["format:check"]).toMatch(/prettier --check/);
    expect(pkg.devDependencies["prettier"]).toBeDefined();
    expect(JSON.parse(readFileSync(join(project.dir, ".prettierrc.json"), "utf8")).printWidth).toBeLessThanOrEqual(120);
  });

  it("passes npm run format:check", () => {
    let unformatted = "";
    try {
      execFileSync("npm", ["run", "format:check"], { cwd: project.dir, encoding: "utf8", stdio: "pipe" });
    } catch (error) {
      const { stdout, stderr } = error as { stdout?: string; stderr?: string };
      unformatted = `${stdout ?? ""}${stderr ?? ""}` || String(error);
    }
    expect(unformatted).toBe("");
  });

  it(`has at most ${MAX_LONG_LINES} lines over 140 characters`, () => {
    const long = projectFiles(project.dir).flatMap((file) =>
      readFileSync(join(project.dir, file), "utf8")
        .split("\n")
        .filter((line) => line.length > 140)
        .map((line) => `${file}: ${line.slice(0, 80)}…`),
    );
    expect(long.length, long.join("\n")).toBeLessThanOrEqual(MAX_LONG_LINES);
  });
});
