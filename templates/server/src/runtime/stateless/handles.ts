/**
 * Signed handles: what a handle needs to be served is inside it, under an
 * HMAC-SHA256 signature, so ANY instance of a deployment can serve it — the
 * stateless 2026-07-28 way, with no shared store and no sticky sessions.
 *
 *   resp_<payload>.<signature>      payload = base64url(JSON { k: kind, x: expiry (s), n: nonce, v: value })
 *
 * The key comes from `<PREFIX>_HANDLE_KEY` (at least 32 characters; the
 * same on every instance). Without it each process draws a random key:
 * handles then work only on the instance that issued them, as before.
 *
 * Signed, not encrypted: a client can read what its handle carries (the
 * call it made itself), never change it. A handle from another deployment
 * (another key), an altered one, or an expired one is refused with a guided
 * error, never served.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { GuidedError } from "../call/types.js";

export type HandleKind = "resp" | "op";

export type OpenedHandle<T> =
  | { ok: true; value: T }
  /** `foreign`: not signed with this deployment's key (another deployment, or altered); `expired`: signed, but too old. */
  | { ok: false; reason: "malformed" | "foreign" | "expired"; value?: T };

export interface HandleCodec {
  /** Whether the key is shared across instances (set through the env var) rather than drawn per process. */
  readonly shared: boolean;
  readonly keyEnv: string;
  mint<T>(kind: HandleKind, value: T, ttlMs: number): string;
  open<T>(kind: HandleKind, handle: string): OpenedHandle<T>;
  /** Whether a string has the signed-handle shape at all (as opposed to an old random handle). */
  isSigned(kind: HandleKind, handle: string): boolean;
}

export const MIN_KEY_CHARS = 32;
const SIGNATURE_CHARS = 22; // 128 bits of the HMAC, base64url

export class HandleKeyError extends Error {}

/** The codec for a deployment: its key from `<PREFIX>_HANDLE_KEY`, else a random per-process key. */
export function createHandleCodec(
  envPrefix: string,
  env: Record<string, string | undefined>,
  now: () => number = Date.now,
): HandleCodec {
  const keyEnv = `${envPrefix}_HANDLE_KEY`;
  const configured = env[keyEnv];
  if (configured !== undefined && configured.length < MIN_KEY_CHARS) {
    throw new HandleKeyError(
      `${keyEnv}: the handle key has ${configured.length} characters — use at least ` +
        `${MIN_KEY_CHARS} random ones (e.g. \`openssl rand -base64 32\`), the same on every instance.`,
    );
  }
  const key = configured !== undefined ? Buffer.from(configured, "utf8") : randomBytes(32);
  const sign = (kind: HandleKind, payload: string) =>
    createHmac("sha256", key).update(`${kind}|${payload}`).digest("base64url").slice(0, SIGNATURE_CHARS);
  const pattern = (kind: HandleKind) => new RegExp(`^${kind}_([A-Za-z0-9_-]+)\\.([A-Za-z0-9_-]{${SIGNATURE_CHARS}})$`);

  return {
    shared: configured !== undefined,
    keyEnv,
    mint(kind, value, ttlMs) {
      // `n`: two handles for the same value are still two handles (each names its own cache entry).
      const payload = Buffer.from(
        JSON.stringify({
          k: kind,
          x: Math.ceil((now() + ttlMs) / 1000),
          n: randomBytes(6).toString("base64url"),
          v: value,
        }),
        "utf8",
      ).toString("base64url");
      return `${kind}_${payload}.${sign(kind, payload)}`;
    },
    open<T>(kind: HandleKind, handle: string): OpenedHandle<T> {
      const match = pattern(kind).exec(handle);
      if (!match) return { ok: false, reason: "malformed" };
      const [, payload, signature] = match as unknown as [string, string, string];
      const expected = Buffer.from(sign(kind, payload));
      if (!timingSafeEqual(Buffer.from(signature), expected)) return { ok: false, reason: "foreign" };
      let decoded: { k?: unknown; x?: unknown; v?: T };
      try {
        decoded = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as typeof decoded;
      } catch {
        return { ok: false, reason: "malformed" };
      }
      if (decoded.k !== kind || typeof decoded.x !== "number") return { ok: false, reason: "malformed" };
      if (decoded.x * 1000 <= now()) return { ok: false, reason: "expired", value: decoded.v as T };
      return { ok: true, value: decoded.v as T };
    },
    isSigned: (kind, handle) => pattern(kind).test(handle),
  };
}

/** The guided error for a handle this deployment did not issue, or that was altered. */
export function foreignHandleError(tool: string, handle: string, codec: HandleCodec): GuidedError {
  const why = codec.shared
    ? "it was not issued by this deployment (another server, another key), or it was altered"
    : `it was issued by another server instance, or altered (set ${codec.keyEnv} to the same key ` +
      `on every instance so any of them can serve a handle)`;
  return {
    code: "UNKNOWN_HANDLE",
    message: `The handle '${handle.slice(0, 40)}…' cannot be used: ${why}. Re-run the original call to get a fresh handle.`,
    severity: "medium",
    tool,
    issues: [
      {
        field: "handle",
        code: "INVALID_VALUE",
        problem: "not a handle this server issued",
        received: handle.slice(0, 80),
        expected: "the exact handle from a recent response",
        fix: "Copy the handle from the response that offered it, or re-run that call",
      },
    ],
    suggestions: {},
    next_steps: ["Re-run the call that returned the handle; its result carries a fresh one."],
  };
}
