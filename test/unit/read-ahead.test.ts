import { mkdirSync, mkdtempSync, readFileSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readAhead, takeAhead } from "../../src/load/read-ahead.js";
import { readSpecFile, readSpecFileAhead } from "../../src/load/index.js";
import { readRegenerationAhead } from "../../src/write/previous.js";
import { keysFilePath } from "../../src/cache/key-table.js";

function folder(): string {
  return mkdtempSync(join(tmpdir(), "cgm-read-ahead-"));
}

describe("reading ahead", () => {
  it("gives a file's bytes once, as a synchronous read gives them", async () => {
    const dir = folder();
    const file = join(dir, "big.bin");
    const bytes = Buffer.alloc(3 * 1024 * 1024 + 17, "x");
    bytes.write('{"a":1}', 1000);
    writeFileSync(file, bytes);
    readAhead([file]);
    const read = await takeAhead(file);
    expect(read?.equals(readFileSync(file))).toBe(true);
    // Taken once: a second ask reads nothing ahead.
    expect(takeAhead(file)).toBeUndefined();
  });

  it("leaves to the caller what it cannot read, and forgets what an earlier run started", async () => {
    const dir = folder();
    const empty = join(dir, "empty.json");
    writeFileSync(empty, "");
    const present = join(dir, "present.json");
    writeFileSync(present, "{}");
    readAhead([join(dir, "missing.json"), dir, empty, present]);
    expect(takeAhead(join(dir, "missing.json"))).toBeUndefined();
    expect(takeAhead(dir)).toBeUndefined();
    expect(takeAhead(empty)).toBeUndefined();
    // A later run's start forgets the earlier run's reads: it takes only its own.
    readAhead([]);
    expect(takeAhead(present)).toBeUndefined();
  });

  it("ends a file cut short meanwhile where it now ends", async () => {
    const dir = folder();
    const file = join(dir, "spec.json");
    writeFileSync(file, Buffer.alloc(1024 * 1024, "y"));
    readAhead([file]);
    truncateSync(file, 10);
    const read = await takeAhead(file);
    // Read before or after the cut: either the whole file as it was, or what is left of it.
    expect([10, 1024 * 1024]).toContain(read?.length);
  });

  it("reads a regeneration's spec, key record and tools file, which the load and the write then take", async () => {
    const dir = folder();
    mkdirSync(join(dir, ".guided-mcp", "cache"), { recursive: true });
    mkdirSync(join(dir, "data"));
    writeFileSync(join(dir, ".guided-mcp", "manifest.json"), "{}");
    writeFileSync(join(dir, ".guided-mcp", "cache", "keys.json"), '{"format":0}');
    writeFileSync(join(dir, "data", "tools.json"), '{"tools":[]}\n');
    const spec = join(dir, "spec.json");
    writeFileSync(spec, '{"openapi":"3.1.0"}');
    readRegenerationAhead(spec, dir);
    expect(await readSpecFileAhead(spec)).toEqual(readSpecFile(spec));
    expect((await takeAhead(keysFilePath(dir)))?.toString()).toBe('{"format":0}');
    const tools = await takeAhead(join(dir, "data", "tools.json"));
    expect(tools?.toString()).toBe('{"tools":[]}\n');
    // Without a generated project there, nothing is read ahead.
    const other = folder();
    readRegenerationAhead(spec, other);
    expect(takeAhead(spec)).toBeUndefined();
  });
});
