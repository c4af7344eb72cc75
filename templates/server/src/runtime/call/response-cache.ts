/**
 * A small in-memory cache of oversized responses, so an agent can page
 * through what progressive disclosure held back, via the reserved tool
 * `read_response` ({ handle, offset?, limit? }).
 *
 * Bounded LRU: at most `maxEntries` responses (default 50) and `maxChars`
 * serialised characters in total (default 20 M), each kept for `ttlMs`
 * (default 15 min) after its last read. Handles are opaque and unguessable;
 * the cache is per process (a restarted server answers RESPONSE_EXPIRED with
 * the exact call that re-creates the response).
 */
import { randomBytes } from "node:crypto";
import { settingDefault } from "../config/settings.js";
import { READ_RESPONSE_TOOL, type GuidedError, type ToolCall } from "./types.js";

export interface CachedResponse {
  /** The full response data. */
  data: unknown;
  /** When the data holds an item array: the items (pages are item slices). Otherwise pages are JSON text slices. */
  items?: unknown[];
  /** The call that produced the response (to re-run it once the entry has expired). */
  call: ToolCall;
  /** Default page size: items, or characters in text mode. */
  pageSize: number;
}

interface Entry extends CachedResponse {
  text?: string;
  chars: number;
  expires: number;
}

export interface ResponseCacheOptions {
  maxEntries?: number;
  ttlMs?: number;
  maxChars?: number;
  /** Page budget in characters: a page never exceeds it (except a single oversized item). */
  pageBudgetChars?: number;
  now?: () => number;
  /** Makes the handle for a new entry; default an opaque random one (see runtime/stateless/reads.ts for signed ones). */
  mintHandle?: (response: CachedResponse) => string;
}

export interface CachedPage {
  handle: string;
  /** Items mode. */
  items?: unknown[];
  total_items?: number;
  /** Text mode: a slice of the JSON serialisation. */
  text?: string;
  total_chars?: number;
  offset: number;
  returned: number;
  has_more: boolean;
  /** The exact call for the following page. */
  next?: ToolCall;
}

export type ReadPageResult = { ok: true; page: CachedPage } | { ok: false; error: GuidedError };

export class ResponseCache {
  private readonly entries = new Map<string, Entry>();
  private totalChars = 0;
  readonly maxEntries: number;
  readonly ttlMs: number;
  readonly maxChars: number;
  readonly pageBudgetChars: number;
  private readonly now: () => number;
  private readonly mintHandle: (response: CachedResponse) => string;

  constructor(options: ResponseCacheOptions = {}) {
    this.maxEntries = options.maxEntries ?? 50;
    this.ttlMs = options.ttlMs ?? 15 * 60_000;
    this.maxChars = options.maxChars ?? 20_000_000;
    this.pageBudgetChars = options.pageBudgetChars ?? settingDefault("responseBudgetChars");
    this.now = options.now ?? Date.now;
    this.mintHandle = options.mintHandle ?? (() => `resp_${randomBytes(9).toString("base64url")}`);
  }

  get size(): number {
    return this.entries.size;
  }

  /** Stores a response and returns its handle. `serialized` avoids a second JSON.stringify. */
  put(response: CachedResponse, serialized?: string): string {
    const handle = this.mintHandle(response);
    const text = response.items ? undefined : (serialized ?? JSON.stringify(response.data) ?? "");
    const chars = serialized?.length ?? text?.length ?? (JSON.stringify(response.data) ?? "").length;
    const entry: Entry = { ...response, chars, expires: this.now() + this.ttlMs };
    if (text !== undefined) entry.text = text;
    this.entries.set(handle, entry);
    this.totalChars += chars;
    this.evict();
    return handle;
  }

  private evict(): void {
    const now = this.now();
    for (const [handle, entry] of this.entries) if (entry.expires <= now) this.remove(handle);
    for (const handle of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries && this.totalChars <= this.maxChars) break;
      if (this.entries.size === 1) break; // always keep the newest entry
      this.remove(handle);
    }
  }

  private remove(handle: string): void {
    const entry = this.entries.get(handle);
    if (!entry) return;
    this.totalChars -= entry.chars;
    this.entries.delete(handle);
  }

  /** One page of a cached response; an unknown/expired handle gives RESPONSE_EXPIRED. */
  read(handle: string, offset = 0, limit?: number): ReadPageResult {
    const entry = this.entries.get(handle);
    const now = this.now();
    if (!entry || entry.expires <= now) {
      if (entry) this.remove(handle);
      return { ok: false, error: expiredError(handle) };
    }
    // LRU: move to the end and extend the lifetime.
    this.entries.delete(handle);
    entry.expires = now + this.ttlMs;
    this.entries.set(handle, entry);

    const start = Math.max(0, Math.floor(offset));
    if (entry.items) {
      const size = Math.max(1, Math.floor(limit ?? entry.pageSize));
      const items: unknown[] = [];
      let chars = 2;
      for (let i = start; i < entry.items.length && items.length < size; i++) {
        const itemChars = (JSON.stringify(entry.items[i]) ?? "").length + 1;
        if (items.length > 0 && chars + itemChars > this.pageBudgetChars) break;
        items.push(entry.items[i]);
        chars += itemChars;
      }
      const end = start + items.length;
      const page: CachedPage = {
        handle,
        items,
        total_items: entry.items.length,
        offset: start,
        returned: items.length,
        has_more: end < entry.items.length,
      };
      if (page.has_more)
        page.next = { tool: READ_RESPONSE_TOOL, params: { handle, offset: end, limit: size }, note: "Next page" };
      return { ok: true, page };
    }
    const text = entry.text ?? "";
    const size = Math.max(1, Math.min(Math.floor(limit ?? entry.pageSize), this.pageBudgetChars));
    const slice = text.slice(start, start + size);
    const end = start + slice.length;
    const page: CachedPage = {
      handle,
      text: slice,
      total_chars: text.length,
      offset: start,
      returned: slice.length,
      has_more: end < text.length,
    };
    if (page.has_more)
      page.next = { tool: READ_RESPONSE_TOOL, params: { handle, offset: end, limit: size }, note: "Next chunk" };
    return { ok: true, page };

    function expiredError(h: string): GuidedError {
      return {
        code: "RESPONSE_EXPIRED",
        message: `No cached response '${h}': it expired or the server restarted. Re-run the original call to get a fresh handle.`,
        severity: "medium",
        issues: [],
        suggestions: {},
        next_steps: ["Re-run the call that returned this handle; its result carries a new handle."],
      };
    }
  }

  /** The original call behind a handle, if still cached (for re-running). */
  callFor(handle: string): ToolCall | undefined {
    return this.entries.get(handle)?.call;
  }

  clear(): void {
    this.entries.clear();
    this.totalChars = 0;
  }
}

/** Input schema for the reserved `read_response` tool. */
export const READ_RESPONSE_INPUT_SCHEMA = {
  type: "object",
  properties: {
    handle: { type: "string", description: "The handle from a response's `detail.handle`." },
    offset: {
      type: "integer",
      minimum: 0,
      default: 0,
      description: "First item (or character, for non-list data) to return.",
    },
    limit: {
      type: "integer",
      minimum: 1,
      maximum: 1000,
      description: "Page size; defaults to a page that fits the response budget.",
    },
  },
  required: ["handle"],
  additionalProperties: false,
} as const;
