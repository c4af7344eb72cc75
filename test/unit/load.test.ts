import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { GeneratorError } from "../../src/diagnostics.js";
import { loadSpec, parseSpecText } from "../../src/load/index.js";
import { hashContent } from "../../src/write/hash.js";

describe("load", () => {
  it("parses YAML and JSON", () => {
    expect(parseSpecText("openapi: 3.0.0\ninfo: {title: t}", "a.yaml")).toEqual({
      openapi: "3.0.0",
      info: { title: "t" },
    });
    expect(parseSpecText('{"openapi":"3.1.0"}', "a.json")).toEqual({ openapi: "3.1.0" });
  });

  it.each([
    ["YAML", "openapi: 3.0.0\ninfo:\n  title: [unclosed\n", "bad.yaml:", /bad\.yaml:\d+:\d+: invalid YAML/],
    ["JSON", '{\n  "openapi": "3.0.0",\n  "info": {\n}}\n,', "bad.json", /bad\.json:5:1: invalid JSON/],
  ])("names file, line and column for malformed %s", (_kind, text, source, pattern) => {
    try {
      parseSpecText(text, source.replace(/:$/, ""));
      expect.unreachable("should have thrown");
    } catch (error) {
      expect(error).toBeInstanceOf(GeneratorError);
      expect((error as Error).message).toMatch(pattern);
      expect((error as Error).message).toContain("—");
    }
  });

  it("reports a missing file clearly", async () => {
    await expect(loadSpec("/definitely/not/here.yaml")).rejects.toThrow(/here\.yaml: file not found — /);
  });

  it("reads a local file into a document with its file URL", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cgm-load-"));
    const path = join(dir, "spec.yaml");
    writeFileSync(path, "openapi: 3.1.0\ninfo: {title: x, version: '1'}\npaths: {}\n");
    const loaded = await loadSpec(path);
    expect(loaded.location).toBe(`file://${path}`);
    expect(loaded.document).toMatchObject({ openapi: "3.1.0" });
  });

  it("fetches a spec over HTTP", async () => {
    const { createServer } = await import("node:http");
    const server = createServer((_req, res) =>
      res.end('{"openapi":"3.1.0","info":{"title":"remote","version":"1"},"paths":{}}'),
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const loaded = await loadSpec(`http://127.0.0.1:${port}/openapi.json`);
      expect(loaded.document).toMatchObject({ info: { title: "remote" } });
    } finally {
      server.close();
    }
  });
});

describe("load: the spec's hash taken from its bytes", () => {
  const write = (bytes: Buffer) => {
    const path = join(mkdtempSync(join(tmpdir(), "cgm-load-hash-")), "spec.json");
    writeFileSync(path, bytes);
    return path;
  };

  it("equals the hash of the decoded text for valid UTF-8 (BOM and non-ASCII included)", async () => {
    const text = '\ufeff{"openapi":"3.1.0","info":{"title":"Café 🚀","version":"1"},"paths":{}}';
    const loaded = await loadSpec(write(Buffer.from(text, "utf8")));
    expect(loaded.textHash).toBe(hashContent(loaded.text));
  });

  it("is left to the text for invalid UTF-8, whose decoding is not the bytes", async () => {
    const bytes = Buffer.concat([
      Buffer.from('{"openapi":"3.1.0","info":{"title":"'),
      Buffer.from([0xc3]),
      Buffer.from('","version":"1"},"paths":{}}'),
    ]);
    const loaded = await loadSpec(write(bytes));
    expect(loaded.textHash).toBeUndefined();
    expect(hashContent(loaded.text)).not.toBe(hashContent(bytes));
  });
});
