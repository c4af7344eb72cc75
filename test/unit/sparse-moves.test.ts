import { describe, expect, it } from "vitest";
import { scanSkeleton, type Skeleton, type SkeletonEdit } from "../../src/cache/sparse-document.js";
import { moveSkeletonBy } from "../../src/cache/sparse-moves.js";

const document = {
  openapi: "3.1.0",
  info: { title: "Moves", version: "1" },
  paths: {
    "/a": { get: { summary: "a" }, post: { summary: "a post" } },
    "/b": { parameters: [], get: { summary: "b" } },
    "/c": { delete: { summary: "c" } },
  },
  components: { schemas: { A: { type: "string" }, B: { type: "object" } } },
};

/** The bytes of operation `method` of `path` replaced by `operation`'s JSON: the new text and the edit. */
function edited(bytes: Buffer, path: string, method: string, operation: object): [Buffer, SkeletonEdit] {
  const paths = scanSkeleton(bytes)!.find(([key]) => key === "paths")![1] as Skeleton;
  const item = paths.find(([key]) => key === path)![1] as Skeleton;
  const [, start, end] = item.find(([key]) => key === method) as [string, number, number];
  const replacement = Buffer.from(JSON.stringify(operation));
  return [
    Buffer.concat([bytes.subarray(0, start), replacement, bytes.subarray(end)]),
    [start, end, replacement.length],
  ];
}

/** `edits` made one after another from `document`'s compact text: each text, and the edits. */
function editsOf(steps: Array<[path: string, method: string, operation: object]>) {
  let bytes = Buffer.from(JSON.stringify(document));
  const first = bytes;
  const edits: SkeletonEdit[] = [];
  for (const [path, method, operation] of steps) {
    const [next, edit] = edited(bytes, path, method, operation);
    edits.push(edit);
    bytes = next;
  }
  return { first, last: bytes, edits };
}

describe("moveSkeletonBy", () => {
  const cases: Array<[string, Array<[string, string, object]>]> = [
    [
      "the same operation edited again and again, longer, shorter and to the same length",
      [
        ["/a", "post", { summary: "a post (e1)" }],
        ["/a", "post", { summary: "a post (e2)" }],
        ["/a", "post", { summary: "a post (e10)" }],
        ["/a", "post", { summary: "p" }],
        ["/a", "post", { summary: "a post, described", description: "longer" }],
      ],
    ],
    [
      "edits of different operations, before and after each other, and back",
      [
        ["/b", "get", { summary: "b (e1)" }],
        ["/a", "get", { summary: "a, longer" }],
        ["/b", "get", { summary: "b" }],
        ["/b", "get", { summary: "b again, longer" }],
        ["/c", "delete", { summary: "" }],
        ["/a", "get", { summary: "a" }],
      ],
    ],
    ["one edit that keeps the length", [["/c", "delete", { summary: "d" }]]],
  ];
  for (const [name, steps] of cases)
    it(`moves the members as one edit at a time does, and where a scan finds them: ${name}`, () => {
      const { first, last, edits } = editsOf(steps);
      const oneByOne = scanSkeleton(first)!;
      for (const edit of edits) moveSkeletonBy(oneByOne, [edit]);
      const together = moveSkeletonBy(scanSkeleton(first)!, edits);
      expect(together).toEqual(oneByOne);
      expect(together).toEqual(scanSkeleton(last));
    });

  it("leaves the caller's edits as they were", () => {
    const { first, edits } = editsOf(cases[0]![1]);
    const copy = structuredClone(edits);
    moveSkeletonBy(scanSkeleton(first)!, edits);
    expect(edits).toEqual(copy);
  });
});
