/**
 * The error contract of every generated server.
 *
 * Every failure — bad arguments, unknown tool, a destructive call awaiting
 * confirmation, an upstream error — is returned as a TOOL result (never a
 * protocol error), so the model sees it and can self-correct (MCP SEP
 * "input validation errors as tool execution errors"):
 *
 *   { isError: true,
 *     content: [{ type: "text", text: <markdown: issues with fixes, schema,
 *                 valid example, corrective call, next steps> }],
 *     structuredContent: { error } }
 *
 *   error: {
 *     code,                // for bad arguments, the primary issue's code (MISSING_REQUIRED,
 *                          // UNKNOWN_PARAMETER, INVALID_TYPE, INVALID_ENUM, OUT_OF_RANGE,
 *                          // INVALID_LENGTH, INVALID_FORMAT, INVALID_PATTERN, INVALID_VALUE);
 *                          // otherwise UNKNOWN_TOOL | CONFIRMATION_REQUIRED |
 *                          // UPSTREAM_UNAUTHORIZED | UPSTREAM_FORBIDDEN | UPSTREAM_NOT_FOUND |
 *                          // UPSTREAM_CONFLICT | UPSTREAM_VALIDATION | RATE_LIMITED |
 *                          // UPSTREAM_UNAVAILABLE | UPSTREAM_UNREACHABLE | UPSTREAM_ERROR |
 *                          // TIMEOUT | RESPONSE_EXPIRED
 *     message,             // one paragraph a human or model can act on
 *     severity,            // critical | high | medium | low
 *     tool?,               // the tool concerned
 *     issues: [{ field, code, problem, received?, expected, fix, did_you_mean? }],
 *                          // issue codes: UNKNOWN_PARAMETER | MISSING_REQUIRED | INVALID_TYPE |
 *                          // OUT_OF_RANGE | INVALID_ENUM | INVALID_FORMAT | INVALID_PATTERN |
 *                          // INVALID_LENGTH | INVALID_VALUE; `field` is a dotted path (`pet.tags[0]`)
 *     suggestions: { did_you_mean?, alternatives?: [{ name, score, description? }], auto_correctable? },
 *     schema_hint?,        // the tool's schema at the level the severity calls for:
 *     schema_hint_level?,  //   critical -> full, high -> typed, medium/low -> minimal
 *     corrective_params?,  // COMPLETE argument object, verified to pass validation; keeps every
 *                          // valid value sent, renames misspelt keys, coerces "50" -> 50, clamps
 *                          // ranges, fixes enum typos; omitted rather than guessed (never invents ids)
 *     valid_example?,      // a complete valid argument object from the spec
 *     next_steps: [ "text" | { tool, params, note? } ],   // exact calls to make next
 *     retry_after_ms?,     // upstream: when a retry makes sense
 *     recovery_actions?,   // upstream: ordered plan
 *     fallback_tool?,      // upstream: alternative tool
 *     details?,            // code-specific facts (upstream status/body, pending operation, categories)
 *     corrections?, warnings? }
 *
 * Severity rules for INVALID_ARGUMENTS: critical when the arguments are not
 * an object, when none of the keys sent is a known parameter, or with 4+
 * issues (the caller does not know the schema: show it in full); high when a
 * required parameter is missing or a type is wrong; medium otherwise.
 *
 * Credentials: an UPSTREAM_UNAUTHORIZED/FORBIDDEN error names the environment
 * variables that hold the credentials, never their values; upstream bodies are
 * trimmed and any credential value found in them is redacted.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { ApiData, SecuritySchemeData, ToolData } from "../tool-data.js";
import type { ArgumentProblems } from "./correct.js";
import { LIST, SUGGEST, prepareName, rankMatches, type PreparedName } from "./fuzzy.js";
import { isPlainObject } from "./pointer.js";
import {
  CONFIRM_ARG,
  INFO_TOOL,
  headerValue,
  type ErrorCode,
  type GuidedError,
  type HintLevel,
  type Issue,
  type IssueCode,
  type NextStep,
  type Severity,
  type ToolCall,
  type UpstreamFailure,
  type UpstreamResponse,
} from "./types.js";

export const SEVERITY_HINT_LEVEL: Record<Severity, HintLevel> = {
  critical: "full",
  high: "typed",
  medium: "minimal",
  low: "minimal",
};

/** The tool's precomputed schema hint at `level`. */
export function schemaHint(tool: ToolData, level: HintLevel): unknown {
  return tool.guidance.hints[level];
}

/** The example to show: the full one unless it is bulky; undefined when the generator could not build one. */
export function validExample(tool: ToolData): Record<string, unknown> | undefined {
  const examples = tool.guidance.examples;
  if (!examples) return undefined;
  return JSON.stringify(examples.full).length <= 1500 ? examples.full : examples.minimal;
}

/** First sentence of a description, at most `max` characters. */
export function shortDescription(text: string | undefined, max = 120): string | undefined {
  if (!text) return undefined;
  const first = text.split(/(?<=[.!?])\s|\n/)[0]!.trim();
  return first.length > max ? first.slice(0, max - 1) + "…" : first;
}

function withHint(error: GuidedError, tool: ToolData, severity: Severity): GuidedError {
  const level = SEVERITY_HINT_LEVEL[severity];
  error.schema_hint = schemaHint(tool, level);
  error.schema_hint_level = level;
  return error;
}

function infoStep(tool: string, level: HintLevel = "full"): ToolCall {
  return { tool: INFO_TOOL, params: { tool, level }, note: "Full schema, constraints and examples for this tool" };
}

/* ------------------------------------------------------------------------ */
/* INVALID_ARGUMENTS                                                         */
/* ------------------------------------------------------------------------ */

function argumentSeverity(tool: ToolData, p: ArgumentProblems): Severity {
  if (p.not_object) return "critical";
  if (isPlainObject(p.received)) {
    const keys = Object.keys(p.received).filter((k) => k !== CONFIRM_ARG);
    const props = isPlainObject(tool.inputSchema["properties"]) ? (tool.inputSchema["properties"] as object) : {};
    if (keys.length > 0 && keys.every((k) => !(k in props))) return "critical";
  }
  if (p.issues.length >= 4) return "critical";
  if (p.issues.some((i) => i.code === "MISSING_REQUIRED" || i.code === "INVALID_TYPE")) return "high";
  return "medium";
}

export function invalidArgumentsError(tool: ToolData, problems: ArgumentProblems): GuidedError {
  const severity = argumentSeverity(tool, problems);
  const n = problems.issues.length;
  const summary = problems.issues
    .slice(0, 4)
    .map((i) => `${i.field}: ${i.code}`)
    .join(", ");
  const message =
    `Tool '${tool.name}' received invalid arguments: ${n} issue${n === 1 ? "" : "s"} (${summary}${n > 4 ? ", …" : ""}). ` +
    (problems.corrective_params
      ? "corrective_params holds a complete, validated argument object — retry with it after checking the values."
      : "Apply each issue's fix and retry.");
  const withDym = problems.issues.find((i) => i.did_you_mean !== undefined);
  const nextSteps: NextStep[] = [];
  if (problems.corrective_params) {
    nextSteps.push({
      tool: tool.name,
      params: problems.corrective_params,
      note: problems.example_fields?.length
        ? `Passes validation. ${problems.example_fields.join(", ")} came from the example — replace with real values if they matter.`
        : "Passes validation and keeps every valid value you sent.",
    });
  } else {
    if (problems.corrective_note) nextSteps.push(problems.corrective_note);
    nextSteps.push("Apply the `fix` of each issue, then retry the call.");
  }
  if (tool.guidance.listTool && problems.issues.some((i) => i.code === "MISSING_REQUIRED") && problems.corrective_note)
    nextSteps.push({ tool: tool.guidance.listTool, params: {}, note: "Find real values for the missing identifiers" });
  if (severity !== "critical") nextSteps.push(infoStep(tool.name));
  const error: GuidedError = {
    code: "INVALID_ARGUMENTS",
    message,
    severity,
    tool: tool.name,
    issues: problems.issues,
    suggestions: { auto_correctable: problems.corrective_params !== undefined },
    next_steps: nextSteps,
  };
  const example = validExample(tool);
  if (example) error.valid_example = example;
  if (withDym) error.suggestions.did_you_mean = String(withDym.did_you_mean);
  if (problems.corrective_params) error.corrective_params = problems.corrective_params;
  if (problems.corrections.length) error.corrections = problems.corrections;
  if (problems.warnings.length) error.warnings = problems.warnings;
  return withHint(error, tool, severity);
}

/* ------------------------------------------------------------------------ */
/* UNKNOWN_TOOL                                                              */
/* ------------------------------------------------------------------------ */

const preparedTools = new WeakMap<readonly ToolData[], PreparedName[]>();

/** Categories with their tool counts, largest first. */
export function categoryCounts(tools: readonly ToolData[]): Array<{ name: string; count: number }> {
  const counts = new Map<string, number>();
  for (const t of tools) counts.set(t.category, (counts.get(t.category) ?? 0) + 1);
  return [...counts].map(([name, count]) => ({ name, count })).sort((a, b) => b.count - a.count || a.name.localeCompare(b.name));
}

/**
 * Tokenises every tool name once (call at start-up with the same array later
 * passed to `unknownToolError`, so no call pays for it).
 */
export function prepareToolNames(tools: readonly ToolData[]): PreparedName[] {
  let prepared = preparedTools.get(tools);
  if (!prepared) {
    prepared = tools.map((t) => prepareName(t.name));
    preparedTools.set(tools, prepared);
  }
  return prepared;
}

export function unknownToolError(name: string, tools: readonly ToolData[], args?: unknown): GuidedError {
  const prepared = prepareToolNames(tools);
  const ranked = rankMatches(name, prepared, { min: LIST, limit: 5 });
  const byName = new Map(tools.map((t) => [t.name, t]));
  const best = ranked[0] && ranked[0].score >= SUGGEST ? byName.get(ranked[0].name) : undefined;
  const categories = categoryCounts(tools);
  const alternatives = ranked.map((m) => {
    const description = shortDescription(byName.get(m.name)?.description);
    return description ? { ...m, description } : { ...m };
  });
  const nextSteps: NextStep[] = [];
  if (best) {
    const props = isPlainObject(best.inputSchema["properties"]) ? (best.inputSchema["properties"] as object) : {};
    const reuse = isPlainObject(args) && Object.keys(args).length > 0 && Object.keys(args).every((k) => k in props);
    nextSteps.push({
      tool: best.name,
      params: reuse ? (args as Record<string, unknown>) : (best.guidance.examples?.minimal ?? {}),
      note: reuse ? "Same arguments, closest tool name" : "Closest tool; the params are its minimal valid example",
    });
  }
  nextSteps.push({ tool: INFO_TOOL, params: {}, note: "List every tool by category" });
  if (ranked.length) nextSteps.push(infoStep(ranked[0]!.name));
  const error: GuidedError = {
    code: "UNKNOWN_TOOL",
    message:
      `Tool '${name}' not found.` +
      (best ? ` Did you mean '${best.name}'?` : ranked.length ? ` Similar: ${ranked.map((m) => m.name).join(", ")}.` : "") +
      ` Call ${INFO_TOOL}() to list the ${tools.length} available tools.`,
    severity: "high",
    issues: [],
    suggestions: { alternatives },
    next_steps: nextSteps,
    details: { categories, tool_count: tools.length },
  };
  if (best) {
    error.suggestions.did_you_mean = best.name;
    error.schema_hint = schemaHint(best, "typed");
    error.schema_hint_level = "typed";
    const example = validExample(best);
    if (example) error.valid_example = example;
  }
  return error;
}

/* ------------------------------------------------------------------------ */
/* CONFIRMATION_REQUIRED                                                     */
/* ------------------------------------------------------------------------ */

/** `/pets/{petId}` with `{ petId: 42 }` -> `/pets/42`. */
export function resolvedPath(tool: ToolData, args: Record<string, unknown>): string | undefined {
  const op = tool.operation;
  if (!op) return undefined;
  return op.path.replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const binding = op.parameters.find((p) => p.in === "path" && p.name === name);
    const value = binding ? args[binding.arg] : undefined;
    return value === undefined || value === null ? whole : encodeURIComponent(typeof value === "object" ? JSON.stringify(value) : String(value));
  });
}

/**
 * A destructive tool (annotations.destructiveHint) runs only when the call
 * carries the reserved argument `"_confirm": true`. `_confirm` is not in the
 * tool's inputSchema: prepareArguments strips it before validation and it is
 * never sent upstream. This error says exactly what would happen and gives the
 * confirmed call verbatim.
 */
export function confirmationRequiredError(tool: ToolData, args: Record<string, unknown>): GuidedError {
  const op = tool.operation;
  const what = op ? `${op.method.toUpperCase()} ${resolvedPath(tool, args)}` : `run handler ${tool.handler?.module ?? tool.name}`;
  const nextSteps: NextStep[] = [
    { tool: tool.name, params: { ...args, [CONFIRM_ARG]: true }, note: "Only if the user intends this irreversible change" },
  ];
  if (tool.guidance.listTool) nextSteps.push({ tool: tool.guidance.listTool, params: {}, note: "Review the current state first" });
  return {
    code: "CONFIRMATION_REQUIRED",
    message:
      `'${tool.name}' is destructive and was not run. It would ${what}` +
      `${Object.keys(args).length ? ` with ${JSON.stringify(args)}` : ""}. ` +
      `If the user intends this, resend the same call with "${CONFIRM_ARG}": true.`,
    severity: "medium",
    tool: tool.name,
    issues: [],
    suggestions: {},
    next_steps: nextSteps,
    recovery_actions: ["confirm the intent with the user if it is not explicit", `resend the identical call with "${CONFIRM_ARG}": true`],
    details: {
      would_run: op
        ? { method: op.method.toUpperCase(), path: op.path, resolved_path: resolvedPath(tool, args), args }
        : { handler: tool.handler?.module, args },
      annotations: tool.annotations,
    },
  };
}

/* ------------------------------------------------------------------------ */
/* Upstream                                                                  */
/* ------------------------------------------------------------------------ */

/** Milliseconds to wait from a Retry-After value (delta-seconds or HTTP-date); undefined if unparsable. */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined || value === null) return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const date = Date.parse(v);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

function rateLimitReset(response: UpstreamResponse, now: number): number | undefined {
  const retry = parseRetryAfter(headerValue(response.headers, "retry-after"), now);
  if (retry !== undefined) return retry;
  for (const name of ["ratelimit-reset", "x-ratelimit-reset", "x-rate-limit-reset"]) {
    const raw = headerValue(response.headers, name);
    if (!raw || !/^\d+(\.\d+)?$/.test(raw.trim())) continue;
    const n = Number(raw.trim());
    // Large values are epoch seconds, small ones delta seconds.
    return n > 1e9 ? Math.max(0, n * 1000 - now) : Math.round(n * 1000);
  }
  return undefined;
}

function schemeEnv(s: SecuritySchemeData): string[] {
  return s.kind === "basic" ? [s.usernameEnv, s.passwordEnv] : [s.env];
}

function schemeText(s: SecuritySchemeData): string {
  const env = schemeEnv(s).join(" and ");
  if (s.kind === "apiKey") return `${env} (API key "${s.name}", sent in ${s.in} "${s.parameterName}")`;
  if (s.kind === "bearer") return `${env} (bearer token "${s.name}")`;
  return `${env} (HTTP basic "${s.name}")`;
}

/** The security schemes that apply to the tool (all API schemes if the operation declares none). */
export function toolSchemes(tool: ToolData, api: ApiData): SecuritySchemeData[] {
  const names = new Set((tool.operation?.security ?? []).flat());
  const own = api.securitySchemes.filter((s) => names.has(s.name));
  return own.length ? own : api.securitySchemes;
}

/** Replaces any credential value (read from the configured env vars) found in `text`. */
export function redactSecrets(text: string, api: ApiData): string {
  let out = text;
  for (const s of api.securitySchemes) {
    for (const env of schemeEnv(s)) {
      const secret = process.env[env];
      if (secret && secret.length >= 4) out = out.split(secret).join(`[redacted ${env}]`);
    }
  }
  return out;
}

/** The body as a short JSON value or string, secrets redacted. */
export function trimBody(body: unknown, api: ApiData, max = 1500): unknown {
  if (body === undefined || body === null || body === "") return undefined;
  const text = typeof body === "string" ? body : JSON.stringify(body);
  const redacted = redactSecrets(text, api);
  if (redacted.length <= max) {
    if (typeof body === "string") return redacted;
    return redacted === text ? body : redacted;
  }
  return `${redacted.slice(0, max)}… (${redacted.length} chars)`;
}

function isIdempotent(tool: ToolData): boolean {
  if (tool.annotations.readOnlyHint || tool.annotations.idempotentHint) return true;
  const m = tool.operation?.method;
  return m === "get" || m === "head" || m === "options" || m === "put" || m === "delete";
}

function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`;
}

/**
 * Maps an upstream HTTP response (status >= 400) or a transport failure to a
 * guided error. `args` are the arguments that were sent (for exact retry calls).
 */
export function upstreamError(
  tool: ToolData,
  api: ApiData,
  outcome: UpstreamResponse | UpstreamFailure,
  args: Record<string, unknown> = {},
  now: number = Date.now(),
): GuidedError {
  const op = tool.operation;
  const request = op ? `${op.method.toUpperCase()} ${resolvedPath(tool, args)}` : `handler ${tool.handler?.module ?? tool.name}`;
  const same: ToolCall = { tool: tool.name, params: args, note: "Same call" };
  const base = (code: GuidedError["code"], severity: Severity, message: string): GuidedError => ({
    code,
    message,
    severity,
    tool: tool.name,
    issues: [],
    suggestions: {},
    next_steps: [],
  });
  const withFallback = (e: GuidedError): GuidedError => {
    if (tool.guidance.fallbackTool) {
      e.fallback_tool = tool.guidance.fallbackTool;
      e.next_steps.push({ tool: tool.guidance.fallbackTool, params: {}, note: "Alternative tool for the same goal" });
    }
    return e;
  };

  if ("failure" in outcome) {
    if (outcome.failure === "timeout") {
      const limit = outcome.timeout_ms ?? api.timeoutMs;
      const e = base(
        "TIMEOUT",
        "high",
        `${request} did not answer within ${limit} ms. The server operator can raise ${api.envPrefix}_TIMEOUT_MS.`,
      );
      e.retry_after_ms = 1000;
      const limitArg = tool.guidance.pagination?.limitArg;
      const currentLimit = limitArg ? args[limitArg] : undefined;
      e.recovery_actions = isIdempotent(tool)
        ? ["retry once after 1 s", "ask for less data (smaller page, narrower filters)", "report the slow upstream to the user"]
        : [
            "do NOT blindly retry: the request may have been applied",
            tool.guidance.listTool ? `check with ${tool.guidance.listTool} whether it took effect` : "check whether it took effect",
            "retry only if it did not",
          ];
      if (limitArg && typeof currentLimit === "number" && currentLimit > 1)
        e.next_steps.push({ tool: tool.name, params: { ...args, [limitArg]: Math.max(1, Math.floor(currentLimit / 2)) }, note: "Smaller page" });
      else if (isIdempotent(tool)) e.next_steps.push(same);
      if (!isIdempotent(tool) && tool.guidance.listTool)
        e.next_steps.push({ tool: tool.guidance.listTool, params: {}, note: "Check whether the request took effect" });
      e.details = { timeout_ms: limit, request };
      return withFallback(e);
    }
    const message = outcome.message ? redactSecrets(outcome.message, api) : "network error";
    const e = base(
      "UPSTREAM_UNREACHABLE",
      "high",
      `Could not reach the API for ${request}: ${message}. Check that ${api.baseUrlEnv} (currently ${api.baseUrl ? `default ${api.baseUrl}` : "unset"}) points at a reachable server.`,
    );
    e.retry_after_ms = 2000;
    e.recovery_actions = ["retry once after 2 s", `if it persists, tell the user the API is unreachable (check ${api.baseUrlEnv})`];
    e.next_steps.push(same);
    e.details = { request, base_url_env: api.baseUrlEnv };
    return withFallback(e);
  }

  const status = outcome.status;
  const body = trimBody(outcome.body, api);
  const details: Record<string, unknown> = { status, request };
  if (outcome.statusText) details["status_text"] = outcome.statusText;
  if (body !== undefined) details["upstream_body"] = body;
  const schemes = toolSchemes(tool, api);
  const envList = schemes.map(schemeText).join("; or ");

  let e: GuidedError;
  if (status === 401) {
    e = base(
      "UPSTREAM_UNAUTHORIZED",
      "high",
      schemes.length
        ? `The API rejected the credentials for ${request} (401). Set ${envList} in the MCP server's environment and restart it; retrying with other arguments will not help.`
        : `The API requires authentication for ${request} (401), but the spec declares no security scheme; configure credentials for the server.`,
    );
    e.recovery_actions = ["tell the user which environment variable to set", "do not retry until credentials are configured"];
    e.next_steps.push(schemes.length ? `Ask the user to set ${schemes.flatMap(schemeEnv).join(" / ")} and restart the server.` : "Ask the user to configure credentials.");
    details["credential_env"] = schemes.flatMap(schemeEnv);
  } else if (status === 403) {
    e = base(
      "UPSTREAM_FORBIDDEN",
      "high",
      `The credentials were accepted but are not allowed to ${request} (403). They may lack a scope/permission${schemes.length ? ` — check the account behind ${schemes.flatMap(schemeEnv).join(" / ")}` : ""}.`,
    );
    e.recovery_actions = ["do not retry unchanged", "tell the user which permission is missing (see upstream_body)"];
    e.next_steps.push("Ask the user to grant the permission or use an account that has it.");
    details["credential_env"] = schemes.flatMap(schemeEnv);
  } else if (status === 404) {
    const pathArgs = (op?.parameters ?? []).filter((p) => p.in === "path").map((p) => `${p.arg}=${JSON.stringify(args[p.arg])}`);
    e = base(
      "UPSTREAM_NOT_FOUND",
      "medium",
      `${request} found nothing (404)${pathArgs.length ? `: no resource with ${pathArgs.join(", ")}` : ""}. Do not guess identifiers; look them up.`,
    );
    e.recovery_actions = ["look up a valid identifier", "retry with it"];
    if (tool.guidance.listTool) e.next_steps.push({ tool: tool.guidance.listTool, params: {}, note: "List existing resources to find a valid identifier" });
    else e.next_steps.push("Check the identifier with the user.");
  } else if (status === 409) {
    e = base(
      "UPSTREAM_CONFLICT",
      "medium",
      `${request} conflicts with the current state of the resource (409)${typeof body === "string" ? `: ${body}` : ""}. Fetch the current state, then retry with arguments consistent with it.`,
    );
    e.recovery_actions = ["read the current state", "adjust the arguments (unique names, versions, state transitions)", "retry"];
    if (tool.guidance.listTool) e.next_steps.push({ tool: tool.guidance.listTool, params: {}, note: "Current state" });
  } else if (status === 400 || status === 422) {
    e = base(
      "UPSTREAM_VALIDATION",
      "high",
      `The API rejected the arguments of ${request} (${status}) although they matched the published schema; the upstream message says what it wants.`,
    );
    withHint(e, tool, "high");
    const example = validExample(tool);
    if (example) e.valid_example = example;
    e.recovery_actions = ["read upstream_body", "change the arguments it names", "retry"];
    e.next_steps.push("Fix the values the upstream message names, then retry.", infoStep(tool.name));
  } else if (status === 429) {
    const wait = rateLimitReset(outcome, now);
    e = base(
      "RATE_LIMITED",
      "medium",
      `Rate limited by the API (429). ${wait !== undefined ? `Wait ${seconds(wait)}` : "No Retry-After given: wait 2 s, doubling on each further 429"}, then retry the same call.`,
    );
    e.retry_after_ms = wait ?? 2000;
    e.recovery_actions = [`wait ${seconds(e.retry_after_ms)}`, "retry the same call", "space out or batch further calls"];
    e.next_steps.push({ ...same, note: `After ${seconds(e.retry_after_ms)}` });
  } else if (status >= 500) {
    const wait = rateLimitReset(outcome, now);
    const idempotent = isIdempotent(tool);
    e = base(
      "UPSTREAM_UNAVAILABLE",
      "high",
      `The API failed with ${status} for ${request}. ` +
        (idempotent
          ? "This is usually transient: retry with backoff."
          : "The request may or may not have been applied: check before retrying."),
    );
    e.retry_after_ms = wait ?? 1000;
    e.recovery_actions = idempotent
      ? [`retry after ${seconds(e.retry_after_ms)}`, "then after 2x as long (at most 3 attempts)", "then report the outage to the user"]
      : [
          tool.guidance.listTool ? `check with ${tool.guidance.listTool} whether the change was applied` : "check whether the change was applied",
          `retry after ${seconds(e.retry_after_ms)} only if it was not`,
          "report the outage to the user after 3 failures",
        ];
    if (!idempotent && tool.guidance.listTool) e.next_steps.push({ tool: tool.guidance.listTool, params: {}, note: "Was it applied?" });
    e.next_steps.push({ ...same, note: `Retry after ${seconds(e.retry_after_ms)}` });
  } else {
    e = base("UPSTREAM_ERROR", "medium", `${request} failed with HTTP ${status}${typeof body === "string" ? `: ${body}` : ""}.`);
    e.recovery_actions = ["read upstream_body", "adjust the call or ask the user"];
    e.next_steps.push(infoStep(tool.name));
  }
  e.details = details;
  return withFallback(e);
}

/* ------------------------------------------------------------------------ */
/* Rendering                                                                 */
/* ------------------------------------------------------------------------ */

function json(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? "null";
}

function inline(value: unknown): string {
  return JSON.stringify(value) ?? "undefined";
}

function renderCall(step: ToolCall): string {
  return `\`${step.tool}\` ${inline(step.params)}${step.note ? ` — ${step.note}` : ""}`;
}

function renderIssue(issue: Issue, i: number): string {
  const lines = [`${i + 1}. **${issue.field}** (${issue.code}): ${issue.problem}`];
  if (issue.received !== undefined) lines.push(`   - Received: ${inline(issue.received)}`);
  lines.push(`   - Expected: ${issue.expected}`);
  lines.push(`   - Fix: ${issue.fix}`);
  if (issue.did_you_mean !== undefined) lines.push(`   - Did you mean: ${inline(issue.did_you_mean)}`);
  return lines.join("\n");
}

/** Markdown rendering of a schema hint at any level. */
export function renderSchemaHint(hint: unknown, level: HintLevel): string {
  if (!isPlainObject(hint)) return "";
  if (level === "minimal") {
    const req = (hint["required"] as string[] | undefined) ?? [];
    const opt = (hint["optional"] as string[] | undefined) ?? [];
    return `Required: ${req.join(", ") || "(none)"}\nOptional: ${opt.join(", ") || "(none)"}`;
  }
  if (level === "typed") {
    return Object.entries(hint)
      .map(([name, h]) => {
        const t = h as { type?: string; required?: boolean; default?: unknown; enum?: unknown[] };
        const bits = [t.type ?? "any", t.required ? "required" : "optional"];
        if (t.default !== undefined) bits.push(`default ${inline(t.default)}`);
        if (t.enum) bits.push(`one of: ${t.enum.map((v) => (typeof v === "string" ? v : inline(v))).join(", ")}`);
        return `- **${name}** (${bits.join(", ")})`;
      })
      .join("\n");
  }
  const full = hint as { description?: string; required?: string[]; properties?: Record<string, Record<string, unknown>> };
  const lines: string[] = [];
  if (full.description) lines.push(shortDescription(full.description, 400) ?? "");
  const required = new Set(full.required ?? []);
  for (const [name, schema] of Object.entries(full.properties ?? {})) {
    const s = schema ?? {};
    const type = Array.isArray(s["type"]) ? (s["type"] as string[]).join("|") : ((s["type"] as string | undefined) ?? (s["enum"] ? "enum" : "any"));
    const c: string[] = [];
    for (const key of ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "pattern", "format", "minItems", "maxItems"])
      if (s[key] !== undefined) c.push(`${key} ${inline(s[key])}`);
    if (Array.isArray(s["enum"])) c.push(`one of: ${(s["enum"] as unknown[]).map((v) => (typeof v === "string" ? v : inline(v))).join(", ")}`);
    if (s["default"] !== undefined) c.push(`default ${inline(s["default"])}`);
    const desc = typeof s["description"] === "string" ? `: ${shortDescription(s["description"], 160)}` : "";
    lines.push(`- **${name}** (${type}, ${required.has(name) ? "required" : "optional"})${desc}${c.length ? `\n  Constraints: ${c.join(", ")}` : ""}`);
  }
  return lines.join("\n");
}

/** Markdown for the model, in the style of the self-healing error seed. */
export function renderError(error: GuidedError): string {
  const out: string[] = [`❌ ${error.code}: ${error.message}`];
  if (error.issues.length) out.push(`## Issues found (${error.issues.length})\n\n${error.issues.map(renderIssue).join("\n\n")}`);
  if (error.warnings?.length) out.push(`## Warnings\n\n${error.warnings.map((w) => `- ${w}`).join("\n")}`);
  if (error.corrective_params && error.tool)
    out.push(`## Corrected call (passes validation)\n\nCall \`${error.tool}\` with:\n\`\`\`json\n${json(error.corrective_params)}\n\`\`\``);
  if (error.suggestions.alternatives?.length)
    out.push(
      `## Similar tools\n\n${error.suggestions.alternatives
        .map((a) => `- ${a.name} (${a.score})${a.description ? `: ${a.description}` : ""}`)
        .join("\n")}`,
    );
  const categories = error.details?.["categories"];
  if (Array.isArray(categories) && categories.length)
    out.push(`## Categories\n\n${(categories as Array<{ name: string; count: number }>).map((c) => `${c.name} (${c.count})`).join(", ")}`);
  if (error.details && error.code !== "UNKNOWN_TOOL") {
    const { categories: _c, ...rest } = error.details;
    if (Object.keys(rest).length) out.push(`## Details\n\n\`\`\`json\n${json(rest)}\n\`\`\``);
  }
  if (error.schema_hint !== undefined && error.schema_hint_level) {
    const rendered = renderSchemaHint(error.schema_hint, error.schema_hint_level);
    if (rendered) out.push(`## Tool schema (${error.schema_hint_level})\n\n${rendered}`);
  }
  if (error.valid_example) out.push(`## Valid example\n\n\`\`\`json\n${json(error.valid_example)}\n\`\`\``);
  if (error.retry_after_ms !== undefined) out.push(`Retry after: ${seconds(error.retry_after_ms)}`);
  if (error.recovery_actions?.length) out.push(`## Recovery plan\n\n${error.recovery_actions.map((a, i) => `${i + 1}. ${a}`).join("\n")}`);
  if (error.fallback_tool) out.push(`Fallback tool: \`${error.fallback_tool}\``);
  if (error.next_steps.length)
    out.push(`## Next steps\n\n${error.next_steps.map((s, i) => `${i + 1}. ${typeof s === "string" ? s : renderCall(s)}`).join("\n")}`);
  return out.join("\n\n");
}

/** Most actionable first: what to add, then what to rename, then what to change. */
const ISSUE_PRIORITY: readonly IssueCode[] = [
  "MISSING_REQUIRED",
  "UNKNOWN_PARAMETER",
  "INVALID_TYPE",
  "INVALID_ENUM",
  "OUT_OF_RANGE",
  "INVALID_LENGTH",
  "INVALID_FORMAT",
  "INVALID_PATTERN",
  "INVALID_VALUE",
];

/**
 * An argument error is named by its primary issue (`MISSING_REQUIRED`,
 * `INVALID_ENUM`…), so a client can branch on `error.code` alone; every
 * issue stays listed in `issues`. `INVALID_ARGUMENTS` remains only for
 * arguments that produced no issue.
 */
export function argumentErrorCode(issues: readonly Issue[]): ErrorCode {
  for (const code of ISSUE_PRIORITY) if (issues.some((issue) => issue.code === code)) return code;
  return "INVALID_ARGUMENTS";
}

export function errorResult(error: GuidedError): CallToolResult {
  const named = error.code === "INVALID_ARGUMENTS" ? { ...error, code: argumentErrorCode(error.issues) } : error;
  return {
    isError: true,
    content: [{ type: "text", text: renderError(named) }],
    structuredContent: { error: named as unknown as Record<string, unknown> },
  };
}
