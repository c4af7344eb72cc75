import { describe, expect, it } from "vitest";
import { detectPagination, findItemsPointer } from "../../src/guidance/pagination.js";
import type { JsonSchema } from "../../src/model/ir.js";
import { makeTool, type ToolSpec } from "./fixtures.js";

const int: JsonSchema = { type: "integer" };
const str: JsonSchema = { type: "string" };
const items = { type: "array", items: { type: "object", properties: { id: str } } };

describe("findItemsPointer", () => {
  it.each<[string, JsonSchema | undefined, string | undefined]>([
    ["root array", { type: "array", items: {} }, ""],
    ["data", { type: "object", properties: { data: items, has_more: { type: "boolean" } } }, "/data"],
    ["value (OData)", { type: "object", properties: { value: items, "@odata.nextLink": str } }, "/value"],
    ["results among several arrays", { type: "object", properties: { warnings: items, results: items } }, "/results"],
    ["small envelope", { type: "object", properties: { total_count: int, repositories: items } }, "/repositories"],
    [
      "nested data.items",
      { type: "object", properties: { data: { type: "object", properties: { items } } } },
      "/data/items",
    ],
    [
      "a resource with a list field is not a list",
      { type: "object", properties: { id: int, title: str, body: str, state: str, user: str, labels: items } },
      undefined,
    ],
    ["no schema", undefined, undefined],
  ])("%s", (_n, schema, expected) => {
    expect(findItemsPointer(schema)).toBe(expected);
  });
});

describe("detectPagination", () => {
  const cases: Array<[string, ToolSpec, ReturnType<typeof detectPagination>]> = [
    [
      "limit/offset",
      { name: "t", path: "/pets", query: { limit: int, offset: int }, responseSchema: { type: "array", items: {} } },
      { kind: "offset", limitArg: "limit", offsetArg: "offset", itemsPointer: "" },
    ],
    [
      "top/skip (OData)",
      {
        name: "t",
        path: "/users",
        query: { $top: int, $skip: int },
        argNames: { $top: "top", $skip: "skip" },
        responseSchema: { type: "object", properties: { value: items } },
      },
      { kind: "offset", limitArg: "top", offsetArg: "skip", itemsPointer: "/value" },
    ],
    [
      "limit/start",
      { name: "t", path: "/x", query: { limit: int, start: int } },
      { kind: "offset", limitArg: "limit", offsetArg: "start" },
    ],
    [
      "page/page_size",
      {
        name: "t",
        path: "/x",
        query: { page: int, page_size: int },
        responseSchema: { type: "object", properties: { results: items, count: int } },
      },
      { kind: "page", pageArg: "page", perPageArg: "page_size", itemsPointer: "/results" },
    ],
    [
      "page/pageSize",
      { name: "t", path: "/x", query: { page: int, pageSize: int } },
      { kind: "page", pageArg: "page", perPageArg: "pageSize" },
    ],
    ["page alone", { name: "t", path: "/x", query: { page: int } }, { kind: "page", pageArg: "page" }],
    ["a string `page` is not a page number", { name: "t", path: "/wiki", query: { page: str } }, undefined],
    [
      "a date `from` is not an offset",
      { name: "t", path: "/x", query: { limit: int, from: { type: "string", format: "date" } } },
      undefined,
    ],
    [
      "cursor + next_cursor",
      {
        name: "t",
        path: "/x",
        query: { cursor: str, limit: int },
        responseSchema: { type: "object", properties: { items, next_cursor: str } },
      },
      {
        kind: "cursor",
        cursorArg: "cursor",
        limitArg: "limit",
        nextCursorPointer: "/next_cursor",
        itemsPointer: "/items",
      },
    ],
    [
      "Slack response_metadata",
      {
        name: "t",
        path: "/conversations.list",
        query: { cursor: str },
        responseSchema: {
          type: "object",
          properties: { channels: items, response_metadata: { type: "object", properties: { next_cursor: str } } },
        },
      },
      {
        kind: "cursor",
        cursorArg: "cursor",
        nextCursorPointer: "/response_metadata/next_cursor",
        itemsPointer: "/channels",
      },
    ],
    [
      "pageToken + nextPageToken",
      {
        name: "t",
        path: "/x",
        query: { pageToken: str, maxResults: int },
        responseSchema: { type: "object", properties: { items, nextPageToken: str } },
      },
      {
        kind: "cursor",
        cursorArg: "pageToken",
        limitArg: "maxResults",
        nextCursorPointer: "/nextPageToken",
        itemsPointer: "/items",
      },
    ],
    [
      "after + next object",
      {
        name: "t",
        path: "/x",
        query: { after: str },
        responseSchema: {
          type: "object",
          properties: {
            results: items,
            paging: { type: "object", properties: { next: { type: "object", properties: { after: str } } } },
          },
        },
      },
      { kind: "cursor", cursorArg: "after", nextCursorPointer: "/paging/next/after", itemsPointer: "/results" },
    ],
    [
      "weak `after` without a next field is not a cursor",
      { name: "t", path: "/x", query: { after: { type: "string", format: "date-time" } } },
      undefined,
    ],
    [
      "Stripe starting_after + has_more",
      {
        name: "t",
        path: "/v1/customers",
        query: { starting_after: str, ending_before: str, limit: int },
        responseSchema: {
          type: "object",
          properties: { object: str, data: items, has_more: { type: "boolean" }, url: str },
        },
      },
      {
        kind: "cursor",
        cursorArg: "starting_after",
        limitArg: "limit",
        hasMorePointer: "/has_more",
        lastItemCursorField: "id",
        itemsPointer: "/data",
      },
    ],
    [
      "declared Link header",
      {
        name: "t",
        path: "/x",
        query: { per_page: int, page: int },
        responseHeaders: ["link"],
        responseSchema: { type: "object", properties: { total_count: int, items } },
      },
      { kind: "link-header", pageArg: "page", perPageArg: "per_page", itemsPointer: "/items" },
    ],
    [
      "GitHub-style per_page/page over an array",
      { name: "t", path: "/repos", query: { per_page: int, page: int }, responseSchema: { type: "array", items: {} } },
      { kind: "link-header", pageArg: "page", perPageArg: "per_page", itemsPointer: "" },
    ],
    [
      "no pagination",
      { name: "t", path: "/pets/{id}", responseSchema: { type: "object", properties: { id: int } } },
      undefined,
    ],
    ["limit alone is not pagination", { name: "t", path: "/x", query: { limit: int } }, undefined],
    [
      "JSON Schema input (no operation)",
      { name: "t", inputSchema: { type: "object", properties: { page: int, per_page: int } } },
      { kind: "page", pageArg: "page", perPageArg: "per_page" },
    ],
  ];
  it.each(cases)("%s", (_n, spec, expected) => {
    expect(detectPagination(makeTool(spec))).toEqual(expected);
  });
});
