/**
 * The success envelope (agent-directive response):
 *
 *   { data,                 // the upstream body (absent when summarised, see below)
 *     next_actions,         // tool names worth calling next
 *     suggestion,           // one natural sentence
 *     context,              // ids, counts, cursors pulled from the response
 *     available_actions,    // [{ name, tool, params, note? }] with params RESOLVED from links
 *     resolved_inputs,      // values in effect, including schema defaults
 *     next_steps?,          // exact calls: the next page, reading the rest of a large response
 *     tips?, warnings?, corrections?,
 *     // progressive disclosure, when JSON.stringify(data) exceeds the budget:
 *     summary?,             // { item_count, field_names, first_items, ... } — never a silent cut
 *     detail_available?: true,
 *     detail?: { handle, tool: "read_response", params, total_items?, total_chars } }
 *
 * A summary is never put under `data`, because `data` must validate against
 * the tool's response schema (MCP clients check structuredContent against the
 * advertised outputSchema).
 */
import type { ToolData } from "../shared/tool-data.js";
import type { ResponseCache } from "../call/response-cache.js";
import { settingDefault } from "../config/settings.js";
import { driftWarning, renderCall, renderCallWithNote } from "./text.js";
import { argsFromUrl, parseLinkHeader, resolveLink } from "./links.js";
import { getAt } from "./pointer.js";
import { isPlainObject, parsePointer } from "../shared/json.js";
import {
  READ_RESPONSE_TOOL,
  headerValue,
  type Correction,
  type Envelope,
  type ResolvedAction,
  type ToolCall,
  type UpstreamResponse,
} from "../call/types.js";

export interface EnvelopeOptions {
  /** Arguments sent upstream. */
  args: Record<string, unknown>;
  resolvedInputs?: Record<string, unknown>;
  corrections?: Correction[];
  warnings?: string[];
  response: UpstreamResponse;
  /** Character budget for `data` (JSON); default 20 000. */
  budgetChars?: number;
  /** Final request URL, for `$url` link expressions. */
  url?: string;
  /** Where the body first departs from the response schema (a JSON pointer); it then goes under `unvalidated_data`. */
  drift?: string;
  /** Where an oversized response is kept for `read_response` (one per server). */
  cache: ResponseCache;
}

export type { Envelope } from "../call/types.js";

export type ToolLookup = ReadonlyMap<string, ToolData> | Readonly<Record<string, ToolData>>;

function lookup(tools: ToolLookup, name: string): ToolData | undefined {
  if (tools instanceof Map) return tools.get(name);
  const record = tools as Readonly<Record<string, ToolData>>;
  return Object.prototype.hasOwnProperty.call(record, name) ? record[name] : undefined;
}

const ID_KEY = /^(id|uuid|key|slug|number|name|status|state)$|_id$|[a-z]Id$|ID$/;
const COUNT_KEY =
  /^(total|total_count|totalCount|total_results|totalResults|count|has_more|hasMore|next_cursor|nextCursor|next_page_token|nextPageToken|page|per_page|total_pages|totalPages)$/;
const LIST_KEYS = ["items", "data", "results", "records", "entries", "values", "list", "content", "hits"];

/** The item array of a response: `pagination.itemsPointer`, the body itself, or a conventional list field. */
export function findItems(tool: ToolData, body: unknown): { items: unknown[]; pointer: string } | undefined {
  const pointer = tool.guidance.pagination?.itemsPointer;
  if (pointer !== undefined) {
    const v = getAt(body, parsePointer(pointer));
    if (Array.isArray(v)) return { items: v, pointer };
  }
  if (Array.isArray(body)) return { items: body, pointer: "" };
  if (isPlainObject(body)) {
    for (const key of LIST_KEYS)
      if (Array.isArray(body[key])) return { items: body[key] as unknown[], pointer: `/${key}` };
    const arrays = Object.entries(body).filter(([, v]) => Array.isArray(v));
    if (arrays.length === 1) return { items: arrays[0]![1] as unknown[], pointer: `/${arrays[0]![0]}` };
  }
  return undefined;
}

function isScalar(v: unknown): v is string | number | boolean {
  return typeof v === "string" || typeof v === "number" || typeof v === "boolean";
}

function itemId(item: unknown): unknown {
  if (!isPlainObject(item)) return isScalar(item) ? item : undefined;
  for (const key of ["id", "uuid", "key", "slug", "number", "name"]) if (isScalar(item[key])) return item[key];
  const k = Object.keys(item).find((x) => /_id$|[a-z]Id$/.test(x) && isScalar(item[x]));
  return k ? item[k] : undefined;
}

function extractContext(
  body: unknown,
  items: unknown[] | undefined,
  response: UpstreamResponse,
): Record<string, unknown> {
  const ctx: Record<string, unknown> = {};
  if (isPlainObject(body)) {
    let n = 0;
    for (const [k, v] of Object.entries(body)) {
      if (n >= 12) break;
      if (isScalar(v) && (ID_KEY.test(k) || COUNT_KEY.test(k)) && !(typeof v === "string" && v.length > 200)) {
        ctx[k] = v;
        n++;
      }
    }
  }
  if (items) {
    ctx["count"] = items.length;
    const ids = items
      .slice(0, 20)
      .map(itemId)
      .filter((v) => v !== undefined);
    if (ids.length) ctx["ids"] = ids;
  }
  const location = headerValue(response.headers, "location");
  if (location) ctx["location"] = location;
  return ctx;
}

function num(v: unknown): number | undefined {
  if (typeof v === "number" && Number.isFinite(v)) return v;
  if (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v))) return Number(v);
  return undefined;
}

function totalOf(body: unknown): number | undefined {
  if (!isPlainObject(body)) return undefined;
  for (const key of ["total", "total_count", "totalCount", "total_results", "totalResults"]) {
    const n = num(body[key]);
    if (n !== undefined) return n;
  }
  return undefined;
}

/**
 * The exact call for the next page, when the response shows more data exists:
 * a `Link: <...>; rel="next"` header, a next cursor, a true has-more flag, a
 * total beyond this page, or a full page.
 */
export function nextPageCall(
  tool: ToolData,
  args: Record<string, unknown>,
  resolved: Record<string, unknown>,
  response: UpstreamResponse,
  items: unknown[] | undefined,
): ToolCall | undefined {
  const body = response.body;
  const links = parseLinkHeader(headerValue(response.headers, "link"));
  if (links["next"]) {
    const mapped = argsFromUrl(tool, links["next"]);
    if (Object.keys(mapped).length)
      return { tool: tool.name, params: { ...args, ...mapped }, note: "Next page (from the Link header)" };
  }
  const p = tool.guidance.pagination;
  if (!p) return undefined;
  const flag = p.hasMorePointer
    ? getAt(body, parsePointer(p.hasMorePointer))
    : isPlainObject(body)
      ? (body["has_more"] ?? body["hasMore"])
      : undefined;
  if (flag === false) return undefined;
  const count = items?.length;
  if (count === 0) return undefined;
  const value = (arg: string | undefined) => (arg ? num(args[arg] ?? resolved[arg]) : undefined);
  const total = totalOf(body);
  const note = "Next page";

  if (p.kind === "cursor" && p.cursorArg) {
    let cursor: unknown;
    if (p.nextCursorPointer) cursor = getAt(body, parsePointer(p.nextCursorPointer));
    else if (
      p.lastItemCursorField &&
      items &&
      items.length &&
      (flag === true || (value(p.limitArg) !== undefined && items.length >= value(p.limitArg)!))
    ) {
      const last = items[items.length - 1];
      cursor = isPlainObject(last) ? last[p.lastItemCursorField] : undefined;
    }
    if ((typeof cursor === "string" && cursor !== "") || typeof cursor === "number")
      return { tool: tool.name, params: { ...args, [p.cursorArg]: cursor }, note };
    return undefined;
  }
  if (p.kind === "offset" && p.offsetArg && count !== undefined) {
    const limit = value(p.limitArg);
    const offset = value(p.offsetArg) ?? 0;
    const more =
      flag === true || (total !== undefined ? offset + count < total : limit !== undefined && count >= limit);
    if (more) return { tool: tool.name, params: { ...args, [p.offsetArg]: offset + count }, note };
    return undefined;
  }
  if (p.kind === "page" && p.pageArg && count !== undefined) {
    const perPage = value(p.perPageArg ?? p.limitArg);
    const page = value(p.pageArg) ?? 1;
    const more =
      flag === true ||
      (total !== undefined && perPage !== undefined
        ? page * perPage < total
        : perPage !== undefined && count >= perPage);
    if (more) return { tool: tool.name, params: { ...args, [p.pageArg]: page + 1 }, note };
  }
  return undefined;
}

function fieldNames(items: readonly unknown[]): string[] {
  const names = new Set<string>();
  for (const item of items.slice(0, 50))
    if (isPlainObject(item)) for (const k of Object.keys(item)) if (names.size < 60) names.add(k);
  return [...names];
}

function shallow(value: unknown): unknown {
  if (!isPlainObject(value))
    return isScalar(value) && typeof value === "string" && value.length > 200 ? value.slice(0, 200) + "…" : value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === null || typeof v === "number" || typeof v === "boolean") out[k] = v;
    else if (typeof v === "string") out[k] = v.length > 200 ? v.slice(0, 200) + "…" : v;
    else if (Array.isArray(v)) out[k] = `(array of ${v.length})`;
    else out[k] = "(object)";
  }
  return out;
}

function summarise(
  body: unknown,
  found: { items: unknown[]; pointer: string } | undefined,
  budget: number,
  totalChars: number,
): { summary: Record<string, unknown>; shown: number } {
  const summary: Record<string, unknown> = { total_chars: totalChars };
  if (found) {
    const { items, pointer } = found;
    summary["item_count"] = items.length;
    if (pointer) summary["items_at"] = pointer;
    summary["field_names"] = fieldNames(items);
    const first: unknown[] = [];
    let used = 0;
    for (const item of items.slice(0, 10)) {
      const chars = (JSON.stringify(item) ?? "").length;
      if (used + chars > budget / 3) break;
      first.push(item);
      used += chars;
    }
    if (first.length === 0 && items.length) summary["first_item_preview"] = shallow(items[0]);
    summary["first_items"] = first;
    if (isPlainObject(body) && pointer) {
      const rest = shallow(body) as Record<string, unknown>;
      delete rest[pointer.slice(1)];
      summary["other_fields"] = rest;
    }
    return { summary, shown: first.length };
  }
  summary["type"] = Array.isArray(body) ? "array" : typeof body;
  if (isPlainObject(body)) {
    summary["field_names"] = Object.keys(body).slice(0, 100);
    summary["preview"] = shallow(body);
  }
  return { summary, shown: 0 };
}

function sentence(
  tool: ToolData,
  items: unknown[] | undefined,
  context: Record<string, unknown>,
  actions: ResolvedAction[],
  next: ToolCall | undefined,
  disclosed: boolean,
): string {
  const parts: string[] = [];
  const label = tool.title ?? tool.name;
  if (items) {
    if (items.length === 0) {
      parts.push(`${label} returned no results; broaden or remove filters and try again`);
    } else {
      const total = context["total"] ?? context["total_count"] ?? context["totalCount"];
      parts.push(
        `${label} returned ${items.length} item${items.length === 1 ? "" : "s"}${typeof total === "number" ? ` of ${total}` : ""}`,
      );
      if (next) parts.push(`more are available: make the next_steps call to fetch the next page`);
    }
  } else {
    const id = context["id"] ?? Object.entries(context).find(([k]) => /_id$|[a-z]Id$/.test(k))?.[1];
    parts.push(`${label} succeeded${id !== undefined ? ` (id ${JSON.stringify(id)})` : ""}`);
  }
  if (disclosed)
    parts.push(
      `the response was too large to show in full, so a summary is shown — page through it with ${READ_RESPONSE_TOOL}`,
    );
  if (actions.length)
    parts.push(
      `next you can ${actions
        .slice(0, 3)
        .map((a) => `${a.name.charAt(0).toLowerCase()}${a.name.slice(1)} (${a.tool})`)
        .join(", ")}`,
    );
  return parts.join("; ") + ".";
}

/** Builds the agent-directive envelope for a successful call. */
export function buildEnvelope(tool: ToolData, toolsByName: ToolLookup, options: EnvelopeOptions): Envelope {
  const { args, response } = options;
  const body = response.body;
  const budget = options.budgetChars ?? settingDefault("responseBudgetChars");
  const resolved = options.resolvedInputs ?? args;
  const linkCtx = options.url !== undefined ? { tool, args, response, url: options.url } : { tool, args, response };

  const actions: ResolvedAction[] = [];
  for (const link of tool.guidance.links) {
    const action = resolveLink(link, linkCtx, lookup(toolsByName, link.tool));
    if (action) actions.push(action);
  }
  const found = findItems(tool, body);
  const items = found?.items;
  const context = extractContext(body, items, response);
  const next = nextPageCall(tool, args, resolved, response, items);

  const nextSteps: ToolCall[] = [];
  if (next) nextSteps.push(next);
  const tips: string[] = [];
  const warnings = [...(options.warnings ?? [])];
  const p = tool.guidance.pagination;
  if (next && p?.limitArg && args[p.limitArg] === undefined)
    tips.push(
      `Pass ${p.limitArg} to choose the page size${resolved[p.limitArg] !== undefined ? ` (default ${JSON.stringify(resolved[p.limitArg])})` : ""}.`,
    );

  const envelope: Envelope = {
    next_actions: [],
    suggestion: "",
    context,
    available_actions: actions,
    resolved_inputs: resolved,
  };

  const serialized = JSON.stringify(body) ?? "";
  let disclosed = false;
  if (serialized.length > budget) {
    disclosed = true;
    const cache = options.cache;
    const { summary, shown } = summarise(body, found, budget, serialized.length);
    let pageSize: number;
    if (items && items.length)
      pageSize = Math.max(1, Math.floor((budget * 0.9) / Math.max(1, serialized.length / items.length)));
    else pageSize = budget;
    const handle = cache.put(
      { data: body, ...(items ? { items } : {}), call: { tool: tool.name, params: args }, pageSize },
      items ? undefined : serialized,
    );
    const params = { handle, offset: items ? shown : 0, limit: pageSize };
    envelope.summary = summary;
    envelope.detail_available = true;
    envelope.detail = { handle, tool: READ_RESPONSE_TOOL, params, total_chars: serialized.length };
    if (items) envelope.detail.total_items = items.length;
    nextSteps.push({
      tool: READ_RESPONSE_TOOL,
      params,
      note: items ? `Items ${shown}+ of ${items.length} from the cached response` : "The full response, in chunks",
    });
    warnings.push(
      `The response (${serialized.length} chars) exceeds the ${budget}-char budget: a summary is shown instead of data. Nothing was discarded — use ${READ_RESPONSE_TOOL} to read the rest.`,
    );
  } else if (options.drift !== undefined) {
    envelope.unvalidated_data = body;
    warnings.push(driftWarning(options.drift));
  } else {
    envelope.data = body;
  }

  const nextActions: string[] = [];
  for (const step of [...nextSteps, ...actions]) if (!nextActions.includes(step.tool)) nextActions.push(step.tool);
  if (
    tool.guidance.listTool &&
    tool.guidance.listTool !== tool.name &&
    !nextActions.includes(tool.guidance.listTool) &&
    !items
  )
    nextActions.push(tool.guidance.listTool);
  envelope.next_actions = nextActions;
  envelope.suggestion = sentence(tool, items, context, actions, next, disclosed);
  if (nextSteps.length) envelope.next_steps = nextSteps;
  if (tips.length) envelope.tips = tips;
  if (warnings.length) envelope.warnings = warnings;
  if (options.corrections?.length) envelope.corrections = options.corrections;
  return envelope;
}

/** The envelope's text for the model (guidance/result.ts puts it beside the envelope as structuredContent). */
export function renderEnvelope(envelope: Envelope): string {
  const out: string[] = [];
  const payload =
    envelope.data !== undefined
      ? envelope.data
      : envelope.unvalidated_data !== undefined
        ? envelope.unvalidated_data
        : envelope.summary;
  if (payload !== undefined) {
    const text = JSON.stringify(payload, null, (JSON.stringify(payload) ?? "").length > 2000 ? undefined : 2) ?? "null";
    out.push(envelope.summary ? `Summary (detail available):\n${text}` : text);
  }
  out.push(`→ ${envelope.suggestion}`);
  if (envelope.available_actions.length)
    out.push(
      `Available actions:\n${envelope.available_actions.map((a) => `- ${a.name}: ${renderCall(a)}`).join("\n")}`,
    );
  if (envelope.next_steps?.length)
    out.push(`Next steps:\n${envelope.next_steps.map((s) => `- ${renderCallWithNote(s)}`).join("\n")}`);
  if (Object.keys(envelope.context).length) out.push(`Context: ${JSON.stringify(envelope.context)}`);
  if (Object.keys(envelope.resolved_inputs).length)
    out.push(`Resolved inputs: ${JSON.stringify(envelope.resolved_inputs)}`);
  if (envelope.corrections?.length)
    out.push(`Corrections: ${envelope.corrections.map((c) => `${c.from} → ${c.to} (${c.confidence})`).join(", ")}`);
  if (envelope.warnings?.length) out.push(`Warnings:\n${envelope.warnings.map((w) => `- ${w}`).join("\n")}`);
  if (envelope.tips?.length) out.push(`Tips:\n${envelope.tips.map((t) => `- ${t}`).join("\n")}`);
  return out.join("\n\n");
}
