/**
 * One upstream HTTP exchange with hard limits: a deadline covering headers
 * AND body, a byte cap on the body, and redirects followed only within the
 * same origin (custom auth headers such as `X-API-Key` must never be replayed
 * to another host).
 */
import type { BuiltRequest } from "./request.js";

export interface UpstreamResponse {
  status: number;
  ok: boolean;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** Parsed JSON when the content type is JSON and it parses; otherwise the text; `undefined` when empty. */
  body: unknown;
  /** The body text cut to `maxBodyTextChars`, for error messages and logs. */
  bodyText: string;
  durationMs: number;
  /** Final URL after same-origin redirects. */
  url: string;
  /** Attempts made for this call when retries are on (see resilience.ts); 1 without a retry. */
  attempts?: number;
  /** The upstream host's circuit breaker after this call (see resilience.ts). */
  circuit?: CircuitSnapshot;
}

/** A circuit breaker's state as errors report it (`error.details.circuit`). */
export interface CircuitSnapshot {
  state: "closed" | "open" | "half_open";
  /** Consecutive failed calls to the host. */
  failures: number;
  /** While open: how long until a trial request is let through; 0 otherwise. */
  retry_after_ms: number;
}

export interface CallUpstreamOptions {
  timeoutMs: number;
  /** Cancellation from the MCP client (notifications/cancelled) or server shutdown. */
  signal?: AbortSignal;
  maxResponseBytes: number;
  /** Length of `bodyText`; default 2000 characters. */
  maxBodyTextChars?: number;
  /** Same-origin redirects to follow; default 5. */
  maxRedirects?: number;
}

/** `circuit_open`: the host's circuit breaker is open, so the request was not sent (resilience.ts). */
export type UpstreamErrorKind = "timeout" | "network" | "too_large" | "aborted" | "circuit_open";

export class UpstreamError extends Error {
  override readonly name = "UpstreamError";
  /** Attempts made before giving up (resilience.ts); undefined when the call was not retried. */
  attempts?: number;
  /** The upstream host's circuit breaker after this failure. */
  circuit?: CircuitSnapshot;

  constructor(
    readonly kind: UpstreamErrorKind,
    message: string,
    readonly url: string,
    readonly durationMs: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

const DEFAULT_BODY_TEXT_CHARS = 2000;
const DEFAULT_MAX_REDIRECTS = 5;

export async function callUpstream(request: BuiltRequest, options: CallUpstreamOptions): Promise<UpstreamResponse> {
  const startedAt = performance.now();
  const elapsed = () => Math.round(performance.now() - startedAt);
  // A timer cleared when the call ends, not AbortSignal.timeout(): under load, thousands of those
  // would stay armed (each holding its signal) for the full timeout after their calls finished.
  const deadline = new AbortController();
  const timer = setTimeout(
    () => deadline.abort(new DOMException("The upstream deadline passed", "TimeoutError")),
    options.timeoutMs,
  );
  const timeoutSignal = deadline.signal;
  const cancel = options.signal;
  const onCancel = () => deadline.abort(cancel?.reason);
  if (cancel?.aborted) onCancel();
  else cancel?.addEventListener("abort", onCancel, { once: true });
  const signal = deadline.signal;
  let currentUrl = request.url;

  const failure = (error: unknown): UpstreamError => {
    if (error instanceof UpstreamError) return error;
    const url = currentUrl.href;
    if (timeoutSignal.aborted && !options.signal?.aborted) {
      return new UpstreamError(
        "timeout",
        `The upstream did not answer within ${options.timeoutMs} ms.`,
        url,
        elapsed(),
        { cause: error },
      );
    }
    if (options.signal?.aborted) {
      return new UpstreamError("aborted", "The request was cancelled before the upstream answered.", url, elapsed(), {
        cause: error,
      });
    }
    return new UpstreamError(
      "network",
      `Could not reach the upstream: ${describeNetworkError(error)}`,
      url,
      elapsed(),
      { cause: error },
    );
  };

  try {
    let method = request.method;
    let body = request.body;
    let response: Response;
    for (let redirects = 0; ; redirects++) {
      response = await fetch(currentUrl, { method, headers: request.headers, body, signal, redirect: "manual" });
      const location = response.headers.get("location");
      if (!isRedirect(response.status) || !location || redirects >= (options.maxRedirects ?? DEFAULT_MAX_REDIRECTS))
        break;
      const target = new URL(location, currentUrl);
      // Cross-origin redirects are returned to the caller as they are: following them would leak credentials.
      if (target.origin !== request.url.origin) break;
      await response.body?.cancel();
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === "POST")) {
        method = "GET";
        body = undefined;
      }
      currentUrl = target;
    }

    const text = await readBodyText(response, options.maxResponseBytes, () => currentUrl.href, elapsed);
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    return {
      status: response.status,
      ok: response.ok,
      headers,
      body: parseBody(text, headers["content-type"]),
      bodyText: truncate(text, options.maxBodyTextChars ?? DEFAULT_BODY_TEXT_CHARS),
      durationMs: elapsed(),
      url: currentUrl.href,
    };
  } catch (error) {
    throw failure(error);
  } finally {
    clearTimeout(timer);
    cancel?.removeEventListener("abort", onCancel);
  }
}

function isRedirect(status: number): boolean {
  return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}

/** Streams the body so an oversized response is cut off at the cap instead of being buffered whole. */
async function readBodyText(
  response: Response,
  maxBytes: number,
  currentUrl: () => string,
  elapsed: () => number,
): Promise<string> {
  const tooLarge = () =>
    new UpstreamError(
      "too_large",
      `The upstream response exceeds the ${maxBytes}-byte limit.`,
      currentUrl(),
      elapsed(),
    );
  const declaredLength = Number(response.headers.get("content-length"));
  if (Number.isFinite(declaredLength) && declaredLength > maxBytes) {
    await response.body?.cancel();
    throw tooLarge();
  }
  if (!response.body) return "";

  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    received += value.byteLength;
    if (received > maxBytes) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return new TextDecoder(charsetOf(response.headers.get("content-type"))).decode(Buffer.concat(chunks));
}

function charsetOf(contentType: string | null): string {
  const charset = /charset=["']?([\w-]+)/i.exec(contentType ?? "")?.[1];
  if (!charset) return "utf-8";
  try {
    new TextDecoder(charset);
    return charset;
  } catch {
    return "utf-8";
  }
}

function parseBody(text: string, contentType: string | undefined): unknown {
  if (text === "") return undefined;
  const essence = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (essence === "application/json" || essence.endsWith("+json")) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      // Servers do mislabel error pages as JSON; the text is still worth showing.
      return text;
    }
  }
  return text;
}

function truncate(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)}… [${text.length - maxChars} more characters]`;
}

/** undici hides the useful part (ECONNREFUSED, ENOTFOUND, "other side closed") in `cause`. */
function describeNetworkError(error: unknown): string {
  const messages: string[] = [];
  for (let current = error, depth = 0; current instanceof Error && depth < 4; current = current.cause, depth++) {
    const code = (current as Error & { code?: unknown }).code;
    messages.push(typeof code === "string" ? `${current.message} (${code})` : current.message);
  }
  return messages.length > 0 ? messages.join(": ") : String(error);
}
