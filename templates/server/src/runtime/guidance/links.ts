/**
 * Resolves OpenAPI runtime expressions in link parameters against the actual
 * request arguments and upstream response:
 *
 *   $response.body#/ptr   $response.body   $response.header.X
 *   $request.path.x  $request.query.x  $request.header.x  $request.cookie.x
 *                         (wire names, mapped to arguments through operation.parameters)
 *   $request.body#/ptr    $request.body    $url  $method  $statusCode
 *   "prefix-{$response.body#/id}"          (embedded expressions, string result)
 *
 * Anything else is a literal. Expressions are parsed once per link and cached.
 */
import type { ToolData, ToolLink } from "../shared/tool-data.js";
import { getAt } from "./pointer.js";
import { isPlainObject, parsePointer } from "../shared/json.js";
import { headerValue, type ResolvedAction, type ToolCall, type UpstreamResponse } from "../call/types.js";

export interface LinkContext {
  tool: ToolData;
  /** The arguments sent (after corrections). */
  args: Record<string, unknown>;
  response: UpstreamResponse;
  /** Final request URL, for `$url`. */
  url?: string;
}

type Resolver = (ctx: LinkContext) => unknown;

const EXPRESSION =
  /^\$(url|method|statusCode|request\.(path|query|header|cookie)\.(.+)|request\.body(#.*)?|response\.header\.(.+)|response\.body(#.*)?)$/;

/** The body the request carried, rebuilt from the arguments. */
export function requestBody(tool: ToolData, args: Record<string, unknown>): unknown {
  const body = tool.operation?.body;
  if (!tool.operation) return args;
  if (!body) return undefined;
  if (body.mode === "property") return args[body.arg];
  const out: Record<string, unknown> = {};
  for (const [arg, prop] of Object.entries(body.properties)) if (args[arg] !== undefined) out[prop] = args[arg];
  return out;
}

function requestParam(ctx: LinkContext, location: string, name: string): unknown {
  const op = ctx.tool.operation;
  if (!op) return ctx.args[name];
  const lower = name.toLowerCase();
  const binding = op.parameters.find(
    (p) => p.in === location && (location === "header" ? p.name.toLowerCase() === lower : p.name === name),
  );
  return binding ? ctx.args[binding.arg] : undefined;
}

function compileExpression(expr: string): Resolver | undefined {
  const m = EXPRESSION.exec(expr);
  if (!m) return undefined;
  if (m[1] === "url") return (ctx) => ctx.url;
  if (m[1] === "method") return (ctx) => ctx.tool.operation?.method.toUpperCase();
  if (m[1] === "statusCode") return (ctx) => ctx.response.status;
  if (m[2] && m[3]) {
    const location = m[2];
    const name = m[3];
    return (ctx) => requestParam(ctx, location, name);
  }
  if (m[1]!.startsWith("request.body")) {
    const ptr = parsePointer(m[4] ?? "");
    return (ctx) => getAt(requestBody(ctx.tool, ctx.args), ptr);
  }
  if (m[5]) {
    const header = m[5];
    return (ctx) => headerValue(ctx.response.headers, header);
  }
  const ptr = parsePointer(m[6] ?? "");
  return (ctx) => getAt(ctx.response.body, ptr);
}

const EMBEDDED = /\{(\$[^{}]+)\}/g;

function compileValue(value: unknown): Resolver {
  if (typeof value !== "string" || !value.includes("$")) return () => value;
  const direct = compileExpression(value.trim());
  if (direct) return direct;
  const parts: Array<string | Resolver> = [];
  let last = 0;
  let found = false;
  for (const m of value.matchAll(EMBEDDED)) {
    const r = compileExpression(m[1]!);
    if (!r) continue;
    found = true;
    parts.push(value.slice(last, m.index), r);
    last = m.index! + m[0].length;
  }
  if (!found) return () => value;
  parts.push(value.slice(last));
  return (ctx) => {
    let out = "";
    for (const part of parts) {
      if (typeof part === "string") out += part;
      else {
        const v = part(ctx);
        if (v === undefined || v === null) return undefined;
        out += typeof v === "object" ? JSON.stringify(v) : String(v);
      }
    }
    return out;
  };
}

const compiled = new WeakMap<ToolLink, Array<[string, Resolver]>>();

/** Resolves one runtime expression (or literal); `undefined` when it cannot be resolved. */
export function resolveExpression(expression: unknown, ctx: LinkContext): unknown {
  return compileValue(expression)(ctx);
}

export type { ResolvedAction } from "../call/types.js";

/**
 * The link as an exact call, or `undefined` when a parameter the target tool
 * requires cannot be filled (so the agent is never offered a call that fails).
 */
export function resolveLink(
  link: ToolLink,
  ctx: LinkContext,
  target: ToolData | undefined,
): ResolvedAction | undefined {
  if (!target) return undefined;
  let resolvers = compiled.get(link);
  if (!resolvers) {
    resolvers = Object.entries(link.params).map(([arg, value]) => [arg, compileValue(value)]);
    compiled.set(link, resolvers);
  }
  const params: Record<string, unknown> = {};
  for (const [arg, resolve] of resolvers) {
    const v = resolve(ctx);
    if (v !== undefined) params[arg] = v;
  }
  const required = Array.isArray(target.inputSchema["required"])
    ? (target.inputSchema["required"] as string[])
    : target.guidance.hints.minimal.required;
  for (const name of required) if (params[name] === undefined || params[name] === null) return undefined;
  const action: ResolvedAction = { name: link.name, tool: link.tool, params };
  if (link.description) action.note = link.description;
  return action;
}

/** `<https://api/x?page=2>; rel="next", <...>; rel="last"` -> the `next` URL. */
export function parseLinkHeader(value: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!value) return out;
  for (const m of value.matchAll(/<([^>]*)>((?:\s*;\s*[^;,]+)*)/g)) {
    const rel = /;\s*rel\s*=\s*"?([^";]+)"?/i.exec(m[2] ?? "");
    if (!rel) continue;
    for (const r of rel[1]!.trim().split(/\s+/)) if (!(r in out)) out[r] = m[1]!;
  }
  return out;
}

/**
 * Maps a next-page URL's query onto the tool's arguments (by wire name),
 * typed per the input schema. Returns only the arguments it could map.
 */
export function argsFromUrl(tool: ToolData, url: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let parsed: URL;
  try {
    parsed = new URL(url, "http://base.invalid");
  } catch {
    return out;
  }
  const props = isPlainObject(tool.inputSchema["properties"])
    ? (tool.inputSchema["properties"] as Record<string, unknown>)
    : {};
  for (const name of new Set(parsed.searchParams.keys())) {
    const binding = tool.operation?.parameters.find((p) => p.in === "query" && p.name === name);
    const arg = binding?.arg ?? (tool.operation ? undefined : name);
    if (!arg || !(arg in props)) continue;
    const values = parsed.searchParams.getAll(name);
    const type = tool.guidance.hints.typed[arg]?.type ?? "string";
    const convert = (v: string): unknown =>
      /integer|number/.test(type) && v.trim() !== "" && Number.isFinite(Number(v))
        ? Number(v)
        : /boolean/.test(type) && /^(true|false)$/.test(v)
          ? v === "true"
          : v;
    out[arg] = type.startsWith("array") ? values.map(convert) : convert(values[0]!);
  }
  return out;
}
