/**
 * A text-only regeneration's new data/tools.json is spliced into memory a pool thread touched first (its room, see
 * src/write/previous.ts and src/emit/file-tools.ts): the bytes are the same as in a buffer of their own.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { spliced } from "../../src/emit/file-tools.js";
import type { TextEdit } from "../../src/cache/text-edit.js";
import { readPreviousTools } from "../../src/write/previous.js";
import { hashContent } from "../../src/write/hash.js";

function project(size: number): { dir: string; bytes: Buffer; manifest: Parameters<typeof readPreviousTools>[1] } {
  const dir = mkdtempSync(join(tmpdir(), "cgm-room-"));
  mkdirSync(join(dir, "data"));
  const bytes = Buffer.alloc(size, "x");
  writeFileSync(join(dir, "data", "tools.json"), bytes);
  const files = { "data/tools.json": { hash: hashContent(bytes), owner: "generator" as const } };
  const manifest = {
    generator: { name: "create-guided-mcp", version: "0" },
    spec: { source: "", hash: "" },
    options: {},
    files,
  };
  return { dir, bytes, manifest };
}

describe("the room of a text-only regeneration's tools file", () => {
  it("is prepared on request only, apart from the file's bytes, and larger than the file", async () => {
    const { dir, bytes, manifest } = project(2 << 20);
    const plain = await readPreviousTools(dir, manifest);
    expect(plain.room).toBeUndefined();
    const read = await readPreviousTools(dir, manifest, { room: true });
    expect(read.current?.equals(bytes)).toBe(true);
    expect(read.generated?.equals(bytes)).toBe(true);
    expect(read.room!.length).toBeGreaterThan(bytes.length + 32 * 1024);
    expect(read.room!.buffer).not.toBe(read.current!.buffer);
  });

  it("is not prepared for a file under 1 MB", async () => {
    const { dir, manifest } = project(100_000);
    expect((await readPreviousTools(dir, manifest, { room: true })).room).toBeUndefined();
  });

  it("takes the splice when large enough, with the same bytes and spans as a buffer of its own", () => {
    const previous = Buffer.from('{"tools":[{"a":1},{"b":22},{"c":333}]}\n');
    const edit = {
      previous,
      spans: [
        [10, 17],
        [18, 26],
        [27, 36],
      ],
      tool: 1,
      json: '{"b":"longer"}',
    } as unknown as TextEdit;
    const own = spliced(edit);
    expect(own.bytes.toString()).toBe('{"tools":[{"a":1},{"b":"longer"},{"c":333}]}\n');
    expect(own.spans).toEqual([
      [10, 17],
      [18, 32],
      [33, 42],
    ]);
    const room = Buffer.alloc(own.bytes.length + 1, 0xff);
    const inRoom = spliced(edit, room);
    expect(inRoom.bytes.buffer).toBe(room.buffer);
    expect(inRoom.bytes.equals(own.bytes)).toBe(true);
    expect(inRoom.spans).toEqual(own.spans);
    const small = Buffer.alloc(own.bytes.length - 1);
    const notInRoom = spliced(edit, small);
    expect(notInRoom.bytes.buffer).not.toBe(small.buffer);
    expect(notInRoom.bytes.equals(own.bytes)).toBe(true);
  });
});
