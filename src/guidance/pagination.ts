/**
 * Detects how a list operation pages through results, from its argument names,
 * its response schema and its declared response headers.
 *
 * Kinds, in order of precedence:
 *  - cursor:      a cursor argument (`cursor`, `after`, `starting_after`,
 *                 `page_token`, `next_token`, `continuation`, `marker`...)
 *                 with a next-cursor field in the response (`next_cursor`,
 *                 `nextPageToken`, `next`...) or Stripe's `has_more` + last id;
 *  - link-header: a declared `Link` response header, or GitHub-style
 *                 `per_page`+`page` over a bare array response;
 *  - offset:      `limit`/`top` + `offset`/`skip`/`start`;
 *  - page:        `page` (+ `per_page`/`page_size`/`pageSize`/`size`/`limit`).
 */
import type { JsonSchema, PaginationData, ToolModel } from "../model/ir.js";
import {
  asSchema,
  declaredTypes,
  escapePointerToken,
  isArraySchema,
  normName,
  schemaProperties,
} from "./schema-util.js";

const LIMIT = ["limit", "top", "maxresults", "maxitems", "max", "pagelimit"];
const OFFSET = ["offset", "skip", "start", "startindex", "startat", "from"];
const PAGE = ["page", "pagenumber", "pageno", "pagenum", "pageindex"];
const PER_PAGE = ["perpage", "pagesize", "size", "limit", "pagelimit", "count", "top", "maxresults"];
/** Page sizes named as such, when there is no page number. */
const PER_PAGE_ONLY = ["perpage", "pagesize"];
/** A cursor's page size. */
const CURSOR_LIMIT = [...LIMIT, "perpage", "pagesize", "size", "count"];
const CURSOR_STRONG = [
  "cursor",
  "pagetoken",
  "nextpagetoken",
  "nexttoken",
  "continuation",
  "continuationtoken",
  "startingafter",
  "startcursor",
  "pagecursor",
  "marker",
  "nextcursor",
  "skiptoken",
];
const CURSOR_WEAK = ["after", "next", "startafter", "since"];
const NEXT_CURSOR_FIELDS = [
  "nextcursor",
  "nextpagetoken",
  "nexttoken",
  "nextpagecursor",
  "continuationtoken",
  "continuation",
  "nextmarker",
  "endcursor",
  "cursor",
  "next",
  "odatanextlink",
  "nextlink",
  "nextpage",
];
const ITEM_ARRAY_NAMES = [
  "data",
  "items",
  "results",
  "value",
  "records",
  "entries",
  "elements",
  "list",
  "content",
  "hits",
  "nodes",
  "edges",
  "rows",
  "objects",
  "resources",
];
const ITEM_ARRAY_SET: ReadonlySet<string> = new Set(ITEM_ARRAY_NAMES);
/** Wrapper objects that often hold the cursor: Slack's response_metadata, `meta`, `pagination`, `paging`... */
const CURSOR_CONTAINERS = [
  "responsemetadata",
  "meta",
  "metadata",
  "pagination",
  "paging",
  "pageinfo",
  "links",
  "cursor",
];

interface ArgName {
  arg: string;
  names: string[];
  /** Could hold a number: integer/number type, untyped, or a digits-only string. */
  numeric: boolean;
}

function couldBeNumber(schema: JsonSchema | undefined): boolean {
  if (!schema) return true;
  const types = declaredTypes(schema);
  if (types.length === 0) return true;
  if (types.includes("integer") || types.includes("number")) return true;
  return types.includes("string") && typeof schema["pattern"] === "string" && /\\d|\[0-9\]/.test(schema["pattern"]);
}

/** Every argument with the names it is known by (arg name, and wire name for parameters). */
function argNames(tool: ToolModel): ArgName[] {
  const out = new Map<string, Set<string>>();
  const props = schemaProperties(tool.inputSchema);
  for (const arg of Object.keys(props)) out.set(arg, new Set([normName(arg)]));
  for (const p of tool.operation?.parameters ?? []) {
    if (p.in !== "query" && p.in !== "header") continue;
    const set = out.get(p.arg) ?? new Set<string>();
    set.add(normName(p.arg));
    set.add(normName(p.name));
    out.set(p.arg, set);
  }
  return [...out.entries()].map(([arg, names]) => ({ arg, names: [...names], numeric: couldBeNumber(props[arg]) }));
}

/** The first argument (in candidate order, then argument order) known by a candidate name, other than `exclude`. */
function findArg(
  args: ArgName[],
  candidates: readonly string[],
  exclude?: string,
  numericOnly = false,
): string | undefined {
  for (const c of candidates) {
    for (const a of args) if (a.arg !== exclude && a.names.includes(c) && (!numericOnly || a.numeric)) return a.arg;
  }
  return undefined;
}

/**
 * JSON pointer to the array of items in a list response: "" when the body is
 * an array, `/data`, `/items`, `/value`... when an object holds one (also one
 * level deeper, e.g. `/data/items`). Undefined when there is no such array.
 */
export function findItemsPointer(schema: JsonSchema | undefined, depth = 0): string | undefined {
  if (!schema || depth > 2) return undefined;
  if (depth > 0 || typeof schema !== "object") return itemsPointerOf(schema, depth);
  // Asked of the same response schema by pagination, links and producers, for every tool that reaches it.
  if (itemsPointers.has(schema)) return itemsPointers.get(schema);
  const found = itemsPointerOf(schema, 0);
  itemsPointers.set(schema, found);
  return found;
}

const itemsPointers = new WeakMap<JsonSchema, string | undefined>();

function itemsPointerOf(schema: JsonSchema, depth: number): string | undefined {
  if (isArraySchema(schema)) return "";
  for (const key of ["oneOf", "anyOf"] as const) {
    const branches = schema[key];
    if (Array.isArray(branches)) {
      for (const b of branches) {
        const p = findItemsPointer(asSchema(b), depth);
        if (p !== undefined) return p;
      }
    }
  }
  const props = schemaProperties(schema);
  const names = Object.keys(props);
  // Only properties named like an item list are looked at by name: the first of each name, and the first array.
  const named = new Map<string, { first: string; array?: string }>();
  for (const name of names) {
    const norm = normName(name);
    if (!ITEM_ARRAY_SET.has(norm)) continue;
    let seen = named.get(norm);
    if (!seen) named.set(norm, (seen = { first: name }));
    if (seen.array === undefined && isArraySchema(props[name])) seen.array = name;
  }
  for (const name of ITEM_ARRAY_NAMES) {
    const hit = named.get(name)?.array;
    if (hit !== undefined) return "/" + escapePointerToken(hit);
  }
  // Any other single array counts only in a small envelope ({total_count, repositories}),
  // not in a resource that happens to have a list field (an issue's `labels`).
  if (names.length <= 5) {
    const arrays = names.filter((name) => isArraySchema(props[name]));
    if (arrays.length === 1) return "/" + escapePointerToken(arrays[0]!);
  }
  // One level deeper: { data: { items: [...] } }.
  for (const name of ITEM_ARRAY_NAMES) {
    const hit = named.get(name)?.first;
    if (hit === undefined) continue;
    const inner = findItemsPointer(props[hit], depth + 1);
    if (inner !== undefined && inner !== "") return "/" + escapePointerToken(hit) + inner;
  }
  return undefined;
}

/** The schema of one item of the list the response holds. */
export function findItemSchema(schema: JsonSchema | undefined, pointer: string | undefined): JsonSchema | undefined {
  if (!schema || pointer === undefined) return undefined;
  let cur: JsonSchema | undefined = schema;
  for (const token of pointer.split("/").slice(1)) {
    const name = token.replace(/~1/g, "/").replace(/~0/g, "~");
    cur = schemaProperties(cur)[name];
    if (!cur) return undefined;
  }
  if (!cur) return undefined;
  let arraySchema: JsonSchema = cur;
  if (!isArraySchema(cur)) {
    for (const key of ["oneOf", "anyOf"] as const) {
      const branches: unknown = cur[key];
      if (Array.isArray(branches)) {
        const arr: JsonSchema | undefined = branches.map(asSchema).find((b) => isArraySchema(b));
        if (arr) arraySchema = arr;
      }
    }
  }
  return asSchema(arraySchema["items"]);
}

/** Pointer to a next-cursor field in the response (top level, or inside meta/pagination wrappers). */
function findNextCursor(schema: JsonSchema | undefined, depth = 0): string | undefined {
  if (!schema || depth > 2) return undefined;
  const entries = Object.entries(schemaProperties(schema));
  for (const name of NEXT_CURSOR_FIELDS) {
    const hit = entries.find(
      ([k, s]) => normName(k) === name && !isArraySchema(s) && !declaredTypes(s).includes("boolean"),
    );
    if (hit) {
      // `next`/`cursor` may be an object holding the actual token.
      const inner = schemaProperties(hit[1]);
      if (Object.keys(inner).length > 0) {
        const nested = findNextCursor(hit[1], depth + 1);
        if (nested) return "/" + escapePointerToken(hit[0]) + nested;
        const tokenField = Object.keys(inner).find((k) =>
          ["cursor", "token", "pagetoken", "after"].includes(normName(k)),
        );
        if (tokenField) return "/" + escapePointerToken(hit[0]) + "/" + escapePointerToken(tokenField);
        continue;
      }
      return "/" + escapePointerToken(hit[0]);
    }
  }
  for (const name of CURSOR_CONTAINERS) {
    const hit = entries.find(([k]) => normName(k) === name);
    if (!hit) continue;
    const nested = depth < 2 ? findNextCursor(hit[1], depth + 1) : undefined;
    if (nested) return "/" + escapePointerToken(hit[0]) + nested;
  }
  return undefined;
}

function hasMoreField(schema: JsonSchema | undefined): string | undefined {
  const props = schemaProperties(schema);
  const hit = Object.keys(props).find((k) =>
    ["hasmore", "hasnextpage", "morepages", "hasmoreitems"].includes(normName(k)),
  );
  return hit === undefined ? undefined : "/" + escapePointerToken(hit);
}

/** Names one of which an argument must have for any kind of paging to be found (a page size alone needs `per_page`). */
const PAGING_NAMES: ReadonlySet<string> = new Set([
  ...CURSOR_STRONG,
  ...CURSOR_WEAK,
  ...PAGE,
  ...PER_PAGE_ONLY,
  ...OFFSET,
]);

/** Whether an argument is known by one of `PAGING_NAMES` (as `argNames` lists them): most tools' are not. */
function mayPage(tool: ToolModel): boolean {
  for (const arg of Object.keys(schemaProperties(tool.inputSchema))) if (PAGING_NAMES.has(normName(arg))) return true;
  for (const p of tool.operation?.parameters ?? []) {
    if (p.in !== "query" && p.in !== "header") continue;
    if (PAGING_NAMES.has(normName(p.arg)) || PAGING_NAMES.has(normName(p.name))) return true;
  }
  return false;
}

export function detectPagination(tool: ToolModel): PaginationData | undefined {
  if (!mayPage(tool)) return undefined;
  const args = argNames(tool);
  if (args.length === 0) return undefined;
  const response = tool.responseSchema;
  const itemsPointer = findItemsPointer(response);
  const withItems = (p: PaginationData): PaginationData => (itemsPointer === undefined ? p : { ...p, itemsPointer });

  // Cursor.
  const strongCursor = findArg(args, CURSOR_STRONG);
  const cursorArg = strongCursor ?? findArg(args, CURSOR_WEAK);
  if (cursorArg) {
    const nextCursorPointer = findNextCursor(response);
    const hasMore = hasMoreField(response);
    const itemSchema = findItemSchema(response, itemsPointer);
    const lastIdField =
      hasMore && itemSchema ? Object.keys(schemaProperties(itemSchema)).find((k) => normName(k) === "id") : undefined;
    if (nextCursorPointer || strongCursor || (hasMore && lastIdField)) {
      const p: PaginationData = { kind: "cursor", cursorArg };
      const limitArg = findArg(args, CURSOR_LIMIT, cursorArg, true);
      if (limitArg) p.limitArg = limitArg;
      if (nextCursorPointer) p.nextCursorPointer = nextCursorPointer;
      else if (hasMore && lastIdField) {
        // Stripe: pass the last item's id as `starting_after` while `has_more` is true.
        p.hasMorePointer = hasMore;
        p.lastItemCursorField = lastIdField;
      }
      return withItems(p);
    }
  }

  const pageArg = findArg(args, PAGE, undefined, true);
  const perPageArg = pageArg ? findArg(args, PER_PAGE, pageArg, true) : findArg(args, PER_PAGE_ONLY, undefined, true);

  // Link header (RFC 8288), declared or GitHub-style.
  const declaresLink = tool.responseHeaders.some((h) => h.toLowerCase() === "link");
  const githubStyle =
    pageArg !== undefined &&
    perPageArg !== undefined &&
    args.some((a) => a.arg === perPageArg && a.names.includes("perpage")) &&
    itemsPointer === "";
  if ((declaresLink && (pageArg || perPageArg || cursorArg)) || githubStyle) {
    const p: PaginationData = { kind: "link-header" };
    if (pageArg) p.pageArg = pageArg;
    if (perPageArg) p.perPageArg = perPageArg;
    return withItems(p);
  }

  // limit/offset.
  const offsetArg = findArg(args, OFFSET, undefined, true);
  if (offsetArg) {
    const limitArg = findArg(args, LIMIT, offsetArg, true);
    if (limitArg) return withItems({ kind: "offset", limitArg, offsetArg });
  }

  // page/per_page.
  if (pageArg) {
    const p: PaginationData = { kind: "page", pageArg };
    if (perPageArg) p.perPageArg = perPageArg;
    return withItems(p);
  }
  return undefined;
}
