/**
 * Resilience around every upstream call (design pattern 9, circuit breaker;
 * pattern 6, safe retry):
 *
 * - Retries with exponential backoff and jitter, for idempotent calls only:
 *   GET, HEAD, PUT, DELETE, OPTIONS; POST and PATCH only when the operation
 *   declares an `Idempotency-Key` header parameter (the key is then always
 *   sent: the caller's, or a random UUID kept across that call's retries).
 *   Retried on 429, 502, 503, 504 and network errors (connection refused or
 *   reset, a body cut off mid-way). `Retry-After` is honoured; a wait longer
 *   than `maxDelayMs` is not sat out but returned to the agent
 *   (`retry_after_ms`). Attempts are bounded (`retries`) and all share the
 *   call's deadline (`timeoutMs`): no retry starts that could not finish in
 *   time, and a timed-out attempt is never retried.
 * - A circuit breaker per upstream origin: `circuitThreshold` consecutive
 *   failed calls (5xx, network error, timeout; after their retries) open it;
 *   while open, calls fail at once with `circuit_open` without touching the
 *   upstream; after `circuitCooldownMs` one trial call goes through
 *   (half-open) and its outcome closes or re-opens the circuit. Any answer
 *   below 500 (429 included: the host is up, just busy) counts as healthy.
 *
 * The breaker's state travels on the response / error (`circuit`) so error
 * results can show it (`error.details.circuit`).
 */
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { BuiltRequest } from "./request.js";
import { parseRetryAfter } from "../shared/parse.js";
import type { OperationBinding } from "../shared/tool-data.js";
import {
  callUpstream,
  UpstreamError,
  type CallUpstreamOptions,
  type CircuitSnapshot,
  type UpstreamResponse,
} from "./upstream.js";

export interface ResilienceSettings {
  /** Retries after the first attempt; 0 switches retrying off. */
  retries: number;
  /** First backoff; doubled on each further retry, then jittered down to half. */
  baseDelayMs: number;
  /** The longest single wait, `Retry-After` included; a longer `Retry-After` is returned to the caller instead. */
  maxDelayMs: number;
  /** Consecutive failed calls that open a host's circuit; 0 switches the breaker off. */
  circuitThreshold: number;
  /** How long an open circuit rejects calls before letting a trial through. */
  circuitCooldownMs: number;
}

const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);
const IDEMPOTENT_METHODS = new Set(["GET", "HEAD", "PUT", "DELETE", "OPTIONS"]);
/** A retry needs at least this much of the deadline left to be worth starting. */
const MIN_ATTEMPT_MS = 50;
export const IDEMPOTENCY_HEADER = "idempotency-key";

type Verdict = "healthy" | "failed" | "unknown";

/** One upstream origin's breaker. Counts calls, not attempts: a call with retries is one success or one failure. */
export class CircuitBreaker {
  private state: CircuitSnapshot["state"] = "closed";
  private failures = 0;
  private openUntil = 0;
  private trialInFlight = false;

  constructor(
    private readonly threshold: number,
    private readonly cooldownMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether a call may go out now; in half-open state only one trial at a time does. */
  acquire(): boolean {
    if (this.threshold <= 0) return true;
    if (this.state === "open") {
      if (this.now() < this.openUntil) return false;
      this.state = "half_open";
      this.trialInFlight = false;
    }
    if (this.state === "half_open") {
      if (this.trialInFlight) return false;
      this.trialInFlight = true;
    }
    return true;
  }

  /** Records how the call went; returns true when this call opened the circuit. */
  record(verdict: Verdict): boolean {
    if (this.threshold <= 0) return false;
    const wasHalfOpen = this.state === "half_open";
    this.trialInFlight = false;
    if (verdict === "healthy") {
      this.state = "closed";
      this.failures = 0;
      return false;
    }
    if (verdict === "unknown") return false; // cancelled: no evidence either way, the next call is the trial
    this.failures++;
    if (wasHalfOpen || (this.state === "closed" && this.failures >= this.threshold)) {
      this.state = "open";
      this.openUntil = this.now() + this.cooldownMs;
      return true;
    }
    return false;
  }

  snapshot(): CircuitSnapshot {
    const open = this.state === "open";
    return {
      state: this.state,
      failures: this.failures,
      retry_after_ms: open ? Math.max(0, this.openUntil - this.now()) : 0,
    };
  }
}

export interface ResilientCallOptions extends CallUpstreamOptions {
  /** The operation the request was built from: tells whether it declares an Idempotency-Key header. */
  binding?: OperationBinding;
}

/** The upstream client a tool runtime uses: retries, breakers per origin, idempotency keys. */
export class ResilientUpstream {
  private readonly breakers = new Map<string, CircuitBreaker>();

  constructor(
    readonly settings: ResilienceSettings,
    private readonly log: (line: string) => void = () => {},
    /** Swappable for tests. */
    private readonly send: typeof callUpstream = callUpstream,
  ) {}

  breakerFor(origin: string): CircuitBreaker {
    let breaker = this.breakers.get(origin);
    if (!breaker) {
      breaker = new CircuitBreaker(this.settings.circuitThreshold, this.settings.circuitCooldownMs);
      this.breakers.set(origin, breaker);
    }
    return breaker;
  }

  async call(original: BuiltRequest, options: ResilientCallOptions): Promise<UpstreamResponse> {
    const request = withIdempotencyKey(original, options.binding);
    const origin = request.url.origin;
    const breaker = this.breakerFor(origin);
    const where = `${request.method} ${origin}${request.url.pathname}`;

    if (!breaker.acquire()) {
      const circuit = breaker.snapshot();
      const error = new UpstreamError(
        "circuit_open",
        `The circuit breaker for ${origin} is open after ${circuit.failures} consecutive failed calls; the request was not sent.`,
        request.url.href,
        0,
      );
      error.circuit = circuit;
      error.attempts = 0;
      throw error;
    }

    const startedAt = Date.now();
    const deadline = startedAt + options.timeoutMs;
    const maxAttempts = isRetryableRequest(request, options.binding) ? 1 + Math.max(0, this.settings.retries) : 1;
    let attempts = 0;
    let outcome: { response: UpstreamResponse } | { error: UpstreamError };

    for (;;) {
      attempts++;
      try {
        outcome = { response: await this.send(request, { ...options, timeoutMs: Math.max(1, deadline - Date.now()) }) };
      } catch (error) {
        if (!(error instanceof UpstreamError)) {
          breaker.record("unknown"); // a bug, not the host's fault: never leave a half-open trial pending
          throw error;
        }
        // The deadline is the call's: a late attempt's timeout still reports the configured limit.
        outcome = {
          error:
            error.kind === "timeout" && attempts > 1
              ? new UpstreamError(
                  "timeout",
                  `The upstream did not answer within ${options.timeoutMs} ms (${attempts} attempts).`,
                  error.url,
                  Date.now() - startedAt,
                  { cause: error },
                )
              : error,
        };
      }

      const reason =
        "response" in outcome
          ? RETRYABLE_STATUS.has(outcome.response.status)
            ? `HTTP ${outcome.response.status}`
            : undefined
          : outcome.error.kind === "network"
            ? "network error"
            : undefined;
      if (!reason || attempts >= maxAttempts || options.signal?.aborted) break;
      const retryAfter = "response" in outcome ? parseRetryAfter(outcome.response.headers["retry-after"]) : undefined;
      if (retryAfter !== undefined && retryAfter > this.settings.maxDelayMs) break; // too long to hold the call: the agent is told to wait
      const delay = retryAfter ?? backoff(attempts, this.settings);
      if (Date.now() + delay + MIN_ATTEMPT_MS > deadline) break;
      this.log(`upstream ${where}: ${reason}, retry ${attempts}/${maxAttempts - 1} in ${delay} ms`);
      try {
        await sleep(delay, undefined, { signal: options.signal });
      } catch {
        outcome = {
          error: new UpstreamError(
            "aborted",
            "The request was cancelled while waiting to retry.",
            request.url.href,
            Date.now() - startedAt,
          ),
        };
        break;
      }
    }

    const verdict: Verdict =
      "response" in outcome
        ? outcome.response.status >= 500
          ? "failed"
          : "healthy"
        : outcome.error.kind === "aborted"
          ? "unknown"
          : outcome.error.kind === "too_large"
            ? "healthy"
            : "failed";
    if (breaker.record(verdict))
      this.log(`upstream ${origin}: circuit opened after ${breaker.snapshot().failures} consecutive failed calls`);
    const circuit = breaker.snapshot();
    if ("response" in outcome) return { ...outcome.response, attempts, circuit };
    outcome.error.circuit = circuit;
    outcome.error.attempts = attempts;
    throw outcome.error;
  }
}

/** GET/HEAD/PUT/DELETE/OPTIONS; POST/PATCH only with an Idempotency-Key the operation declares. */
export function isRetryableRequest(request: BuiltRequest, binding: OperationBinding | undefined): boolean {
  if (IDEMPOTENT_METHODS.has(request.method)) return true;
  return declaresIdempotencyKey(binding) && Boolean(request.headers[IDEMPOTENCY_HEADER]);
}

export function declaresIdempotencyKey(binding: OperationBinding | undefined): boolean {
  return (
    binding?.parameters.some(
      (parameter) => parameter.in === "header" && parameter.name.toLowerCase() === IDEMPOTENCY_HEADER,
    ) ?? false
  );
}

/** Adds a random Idempotency-Key when the operation declares the header and the caller gave none. */
export function withIdempotencyKey(request: BuiltRequest, binding: OperationBinding | undefined): BuiltRequest {
  if (
    request.method === "GET" ||
    request.method === "HEAD" ||
    !declaresIdempotencyKey(binding) ||
    request.headers[IDEMPOTENCY_HEADER]
  )
    return request;
  return { ...request, headers: { ...request.headers, [IDEMPOTENCY_HEADER]: randomUUID() } };
}

/** `baseDelayMs * 2^(attempt-1)`, capped, with "equal jitter": somewhere between half and all of it. */
export function backoff(
  attempt: number,
  settings: Pick<ResilienceSettings, "baseDelayMs" | "maxDelayMs">,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(settings.maxDelayMs, settings.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}
