/**
 * Templates copied as they are reach the write as the bytes read (src/emit/index.ts `copiedFile`): the same bytes as
 * their text decoded, given its header and encoded again, which is what a project got before.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { emitProject } from "../../src/emit/index.js";
import { staticOutput, withOwnershipHeader, withOwnershipHeaderBytes } from "../../src/emit/static-files.js";
import { readTemplates } from "../../src/emit/template-files.js";
import { addGuidance } from "../../src/guidance/index.js";
import { modelFrom, SAMPLES } from "../helpers/pipeline.js";

describe("templates copied as they are", () => {
  it("are emitted as the bytes their text gives, the header added", async () => {
    const model = addGuidance(await modelFrom(join(SAMPLES, "petstore.yaml")), { seed: 1 });
    const files = emitProject(model, { generatorVersion: "0.0.0-test" });
    const expected = new Map<string, Buffer>();
    for (const template of readTemplates().values()) {
      const output = staticOutput(template);
      if (output) expected.set(output.path, output.bytes);
    }
    const copied = files.filter((file) => file.copied && file.owner === "generator");
    expect(copied.length).toBeGreaterThan(50);
    for (const file of copied) {
      expect(file.bytes?.equals(expected.get(file.path)!), file.path).toBe(true);
      expect(Buffer.from(file.content, "utf8").equals(file.bytes!), file.path).toBe(true);
    }
  });

  it("give the header in bytes as in text, after a shebang line too", () => {
    for (const [path, text] of [
      ["src/a.ts", "export const a = 1;\n"],
      ["bin/x.mjs", "#!/usr/bin/env node\nconsole.log('é');\n"],
      ["bin/y.js", "#!no newline"],
      ["README.md", "# é\n"],
    ] as const) {
      const bytes = withOwnershipHeaderBytes(path, Buffer.from(text, "utf8"));
      expect(bytes.toString("utf8"), path).toBe(withOwnershipHeader(path, text));
    }
  });

  it("are decoded at once when not UTF-8, and a text set replaces the bytes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cgm-copied-"));
    mkdirSync(join(dir, "server", "src"), { recursive: true });
    writeFileSync(join(dir, "server", "src", "latin.ts"), Buffer.from([0x2f, 0x2f, 0x20, 0xe9, 0x0a]));
    const model = addGuidance(await modelFrom(join(SAMPLES, "petstore.yaml")), { seed: 1 });
    const files = emitProject(model, { generatorVersion: "0.0.0-test", templatesDir: dir });
    const latin = files.find((file) => file.path === "src/latin.ts")!;
    expect(latin.bytes).toBeUndefined();
    expect(latin.content.endsWith("// \uFFFD\n")).toBe(true);
    const index = files.find((file) => file.path === "src/index.ts")!;
    expect(index.bytes).toBeDefined();
    index.content = "changed\n";
    expect(index.bytes).toBeUndefined();
    expect(index.content).toBe("changed\n");
  });
});
