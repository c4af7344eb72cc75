/**
 * Errors for what the upstream answered (or failed to answer): one builder
 * per status with its own advice (a lookup table, BY_STATUS), transport
 * failures (timeout, unreachable), and the credential-safe pieces they use —
 * scheme env-var names (never values), trimmed and redacted bodies.
 */

import {
  headerValue,
  type GuidedError,
  type Severity,
  type ToolCall,
  type UpstreamFailure,
  type UpstreamResponse,
} from "../call/types.js";
import { describeSchemeCredentials, schemeEnvNames } from "../shared/credentials.js";
import { parseRetryAfter } from "../shared/parse.js";
import type { ApiData, SecuritySchemeData, ToolData } from "../shared/tool-data.js";
import type { Env } from "../upstream/auth.js";
import { infoStep, resolvedPath, validExample, withHint } from "./errors.js";
import { producerSteps } from "./producers.js";
import { seconds } from "./text.js";

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

const schemeEnv = schemeEnvNames;
const schemeText = describeSchemeCredentials;

/** The security schemes that apply to the tool (all API schemes if the operation declares none). */
export function toolSchemes(tool: ToolData, api: ApiData): SecuritySchemeData[] {
  const names = new Set((tool.operation?.security ?? []).flat());
  const own = api.securitySchemes.filter((s) => names.has(s.name));
  return own.length ? own : api.securitySchemes;
}

/** Replaces any credential value (from the scheme env vars in `env`, the environment the runtime was given) in `text`. */
export function redactSecrets(text: string, api: ApiData, env: Env): string {
  let out = text;
  for (const s of api.securitySchemes) {
    for (const name of schemeEnv(s)) {
      const secret = env[name];
      if (secret && secret.length >= 4) out = out.split(secret).join(`[redacted ${name}]`);
    }
  }
  return out;
}

/** The body as a short JSON value or string, secrets redacted. */
export function trimBody(body: unknown, api: ApiData, env: Env, max = 1500): unknown {
  if (body === undefined || body === null || body === "") return undefined;
  const text = typeof body === "string" ? body : JSON.stringify(body);
  const redacted = redactSecrets(text, api, env);
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

/**
 * Maps an upstream HTTP response (status >= 400) or a transport failure to a
 * guided error. `args` are the arguments that were sent (for exact retry calls); `env` holds the credential
 * values to redact from what the upstream said.
 */
export function upstreamError(
  tool: ToolData,
  api: ApiData,
  outcome: UpstreamResponse | UpstreamFailure,
  args: Record<string, unknown> = {},
  now: number = Date.now(),
  env: Env = {},
): GuidedError {
  const op = tool.operation;
  const request = op
    ? `${op.method.toUpperCase()} ${resolvedPath(tool, args)}`
    : `handler ${tool.handler?.module ?? tool.name}`;
  const same: ToolCall = { tool: tool.name, params: args, note: "Same call" };
  if ("failure" in outcome) {
    const context = { tool, api, env, args, request, same };
    return withFallback(
      tool,
      outcome.failure === "timeout" ? timeoutError(context, outcome) : unreachableError(context, outcome),
    );
  }
  const status = outcome.status;
  const body = trimBody(outcome.body, api, env);
  const details: Record<string, unknown> = { status, request };
  if (outcome.statusText) details["status_text"] = outcome.statusText;
  if (body !== undefined) details["upstream_body"] = body;
  const context: StatusContext = {
    tool,
    api,
    env,
    args,
    request,
    same,
    response: outcome,
    body,
    details,
    schemes: toolSchemes(tool, api),
    now,
  };
  const build = BY_STATUS[status] ?? (status >= 500 ? serverError : otherError);
  const e = build(context);
  e.details = details;
  return withFallback(tool, e);
}

interface CallContext {
  tool: ToolData;
  api: ApiData;
  /** The runtime's environment: credential values to redact. */
  env: Env;
  args: Record<string, unknown>;
  /** `GET /pets/1`, for messages. */
  request: string;
  /** The same call again. */
  same: ToolCall;
}

interface StatusContext extends CallContext {
  response: UpstreamResponse;
  /** The upstream body, trimmed and redacted. */
  body: unknown;
  /** `details` of the error; builders may add to it. */
  details: Record<string, unknown>;
  schemes: SecuritySchemeData[];
  now: number;
}

function base(tool: ToolData, code: GuidedError["code"], severity: Severity, message: string): GuidedError {
  return { code, message, severity, tool: tool.name, issues: [], suggestions: {}, next_steps: [] };
}

function withFallback(tool: ToolData, e: GuidedError): GuidedError {
  if (tool.guidance.fallbackTool) {
    e.fallback_tool = tool.guidance.fallbackTool;
    e.next_steps.push({ tool: tool.guidance.fallbackTool, params: {}, note: "Alternative tool for the same goal" });
  }
  return e;
}

/** The error for each upstream status with its own advice; other 5xx and 4xx fall back to serverError / otherError. */
const BY_STATUS: Record<number, (context: StatusContext) => GuidedError> = {
  400: validationError,
  401: unauthorizedError,
  403: forbiddenError,
  404: notFoundError,
  409: conflictError,
  422: validationError,
  429: rateLimitedError,
};

function timeoutError({ tool, api, args, request, same }: CallContext, outcome: UpstreamFailure): GuidedError {
  const limit = outcome.timeout_ms ?? api.timeoutMs;
  const e = base(
    tool,
    "TIMEOUT",
    "high",
    `${request} did not answer within ${limit} ms. The server operator can raise ${api.envPrefix}_TIMEOUT_MS.`,
  );
  e.retry_after_ms = 1000;
  const limitArg = tool.guidance.pagination?.limitArg;
  const currentLimit = limitArg ? args[limitArg] : undefined;
  e.recovery_actions = isIdempotent(tool)
    ? [
        "retry once after 1 s",
        "ask for less data (smaller page, narrower filters)",
        "report the slow upstream to the user",
      ]
    : [
        "do NOT blindly retry: the request may have been applied",
        tool.guidance.listTool
          ? `check with ${tool.guidance.listTool} whether it took effect`
          : "check whether it took effect",
        "retry only if it did not",
      ];
  if (limitArg && typeof currentLimit === "number" && currentLimit > 1)
    e.next_steps.push({
      tool: tool.name,
      params: { ...args, [limitArg]: Math.max(1, Math.floor(currentLimit / 2)) },
      note: "Smaller page",
    });
  else if (isIdempotent(tool)) e.next_steps.push(same);
  if (!isIdempotent(tool) && tool.guidance.listTool)
    e.next_steps.push({ tool: tool.guidance.listTool, params: {}, note: "Check whether the request took effect" });
  e.details = { timeout_ms: limit, request };
  return e;
}

function unreachableError({ tool, api, env, request, same }: CallContext, outcome: UpstreamFailure): GuidedError {
  const message = outcome.message ? redactSecrets(outcome.message, api, env) : "network error";
  const e = base(
    tool,
    "UPSTREAM_UNREACHABLE",
    "high",
    `Could not reach the API for ${request}: ${message}. Check that ${api.baseUrlEnv} ` +
      `(currently ${api.baseUrl ? `default ${api.baseUrl}` : "unset"}) points at a reachable server.`,
  );
  e.retry_after_ms = 2000;
  e.recovery_actions = [
    "retry once after 2 s",
    `if it persists, tell the user the API is unreachable (check ${api.baseUrlEnv})`,
  ];
  e.next_steps.push(same);
  e.details = { request, base_url_env: api.baseUrlEnv };
  return e;
}

function unauthorizedError({ tool, request, schemes, details }: StatusContext): GuidedError {
  const envList = schemes.map(schemeText).join("; or ");
  const e = base(
    tool,
    "UPSTREAM_UNAUTHORIZED",
    "high",
    schemes.length
      ? `The API rejected the credentials for ${request} (401). Set ${envList} in the MCP server's ` +
          `environment and restart it; retrying with other arguments will not help.`
      : `The API requires authentication for ${request} (401), but the spec declares no security ` +
          `scheme; configure credentials for the server.`,
  );
  e.recovery_actions = [
    "tell the user which environment variable to set",
    "do not retry until credentials are configured",
  ];
  e.next_steps.push(
    schemes.length
      ? `Ask the user to set ${schemes.flatMap(schemeEnv).join(" / ")} and restart the server.`
      : "Ask the user to configure credentials.",
  );
  details["credential_env"] = schemes.flatMap(schemeEnv);
  return e;
}

function forbiddenError({ tool, request, schemes, details }: StatusContext): GuidedError {
  const e = base(
    tool,
    "UPSTREAM_FORBIDDEN",
    "high",
    `The credentials were accepted but are not allowed to ${request} (403). They may lack a ` +
      `scope/permission${schemes.length ? ` — check the account behind ${schemes.flatMap(schemeEnv).join(" / ")}` : ""}.`,
  );
  e.recovery_actions = ["do not retry unchanged", "tell the user which permission is missing (see upstream_body)"];
  e.next_steps.push("Ask the user to grant the permission or use an account that has it.");
  details["credential_env"] = schemes.flatMap(schemeEnv);
  return e;
}

function notFoundError({ tool, args, request }: StatusContext): GuidedError {
  const pathArgs = (tool.operation?.parameters ?? [])
    .filter((p) => p.in === "path")
    .map((p) => `${p.arg}=${JSON.stringify(args[p.arg])}`);
  const e = base(
    tool,
    "UPSTREAM_NOT_FOUND",
    "medium",
    `${request} found nothing (404)${pathArgs.length ? `: no resource with ${pathArgs.join(", ")}` : ""}. ` +
      `Do not guess identifiers; look them up.`,
  );
  e.recovery_actions = ["look up a valid identifier", "retry with it"];
  const sources = (tool.operation?.parameters ?? [])
    .filter((p) => p.in === "path")
    .flatMap((p) => producerSteps(tool, p.arg, args));
  if (sources.length) e.next_steps.push(...sources);
  else if (tool.guidance.listTool)
    e.next_steps.push({
      tool: tool.guidance.listTool,
      params: {},
      note: "List existing resources to find a valid identifier",
    });
  else e.next_steps.push("Check the identifier with the user.");
  return e;
}

function conflictError({ tool, request, body }: StatusContext): GuidedError {
  const e = base(
    tool,
    "UPSTREAM_CONFLICT",
    "medium",
    `${request} conflicts with the current state of the resource ` +
      `(409)${typeof body === "string" ? `: ${body}` : ""}. Fetch the current state, then retry ` +
      `with arguments consistent with it.`,
  );
  e.recovery_actions = [
    "read the current state",
    "adjust the arguments (unique names, versions, state transitions)",
    "retry",
  ];
  if (tool.guidance.listTool) e.next_steps.push({ tool: tool.guidance.listTool, params: {}, note: "Current state" });
  return e;
}

function validationError({ tool, request, response }: StatusContext): GuidedError {
  const e = base(
    tool,
    "UPSTREAM_VALIDATION",
    "high",
    `The API rejected the arguments of ${request} (${response.status}) although they matched ` +
      `the published schema; the upstream message says what it wants.`,
  );
  withHint(e, tool, "high");
  const example = validExample(tool);
  if (example) e.valid_example = example;
  e.recovery_actions = ["read upstream_body", "change the arguments it names", "retry"];
  e.next_steps.push("Fix the values the upstream message names, then retry.", infoStep(tool.name));
  return e;
}

function rateLimitedError({ tool, same, response, now }: StatusContext): GuidedError {
  const wait = rateLimitReset(response, now);
  const e = base(
    tool,
    "RATE_LIMITED",
    "medium",
    `Rate limited by the API (429). ` +
      `${wait !== undefined ? `Wait ${seconds(wait)}` : "No Retry-After given: wait 2 s, doubling on each further 429"}, ` +
      `then retry the same call.`,
  );
  e.retry_after_ms = wait ?? 2000;
  e.recovery_actions = [`wait ${seconds(e.retry_after_ms)}`, "retry the same call", "space out or batch further calls"];
  e.next_steps.push({ ...same, note: `After ${seconds(e.retry_after_ms)}` });
  return e;
}

function serverError({ tool, request, same, response, now }: StatusContext): GuidedError {
  const wait = rateLimitReset(response, now);
  const idempotent = isIdempotent(tool);
  const e = base(
    tool,
    "UPSTREAM_UNAVAILABLE",
    "high",
    `The API failed with ${response.status} for ${request}. ` +
      (idempotent
        ? "This is usually transient: retry with backoff."
        : "The request may or may not have been applied: check before retrying."),
  );
  e.retry_after_ms = wait ?? 1000;
  e.recovery_actions = idempotent
    ? [
        `retry after ${seconds(e.retry_after_ms)}`,
        "then after 2x as long (at most 3 attempts)",
        "then report the outage to the user",
      ]
    : [
        tool.guidance.listTool
          ? `check with ${tool.guidance.listTool} whether the change was applied`
          : "check whether the change was applied",
        `retry after ${seconds(e.retry_after_ms)} only if it was not`,
        "report the outage to the user after 3 failures",
      ];
  if (!idempotent && tool.guidance.listTool)
    e.next_steps.push({ tool: tool.guidance.listTool, params: {}, note: "Was it applied?" });
  e.next_steps.push({ ...same, note: `Retry after ${seconds(e.retry_after_ms)}` });
  return e;
}

function otherError({ tool, request, response, body }: StatusContext): GuidedError {
  const e = base(
    tool,
    "UPSTREAM_ERROR",
    "medium",
    `${request} failed with HTTP ${response.status}${typeof body === "string" ? `: ${body}` : ""}.`,
  );
  e.recovery_actions = ["read upstream_body", "adjust the call or ask the user"];
  e.next_steps.push(infoStep(tool.name));
  return e;
}
