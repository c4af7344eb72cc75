/**
 * Golden snapshots of what each sample generates: its data/tools.json and the
 * list of generated files with their owners. Any change fails here until it
 * is reviewed and accepted with `npx vitest run test/unit/snapshots.test.ts -u`
 * (then commit the updated files under test/snapshots/).
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, extname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { generate } from "../../src/generate.js";
import { SAMPLES } from "../helpers/pipeline.js";

const scratch = mkdtempSync(join(tmpdir(), "cgm-snapshots-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Referenced by library-openapi31.yaml (external `$ref`s); not a spec of its own. */
const REFERENCED_ONLY = new Set(["library-components.yaml"]);
const samples = readdirSync(SAMPLES)
  .filter((file) => /\.(ya?ml|json)$/.test(file) && !REFERENCED_ONLY.has(file))
  .sort();

describe("golden snapshots of the samples", () => {
  it("covers every sample", () => {
    expect(samples.length).toBeGreaterThanOrEqual(4);
  });

  it.each(samples)("%s", async (sample) => {
    const name = basename(sample, extname(sample));
    const result = await generate({ from: join(SAMPLES, sample), out: join(scratch, name), dryRun: true });
    const toolsFile = result.files.find((file) => file.path === "data/tools.json");
    expect(toolsFile, "data/tools.json is generated").toBeDefined();
    await expect(toolsFile!.content).toMatchFileSnapshot(`../snapshots/${name}/tools.json`);
    const listing =
      result.files
        .map((file) => `${file.owner.padEnd(9)} ${file.path}`)
        .sort()
        .join("\n") + "\n";
    await expect(listing).toMatchFileSnapshot(`../snapshots/${name}/files.txt`);
  });
});
