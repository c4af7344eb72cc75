/**
 * Long-running operations: an upstream `202 Accepted` that points at a status
 * resource becomes a status handle.
 *
 *   status link  `Operation-Location`, `Azure-AsyncOperation` or `Location`
 *                header; else a body field `status_url`/`statusUrl`/
 *                `monitor_url`, `links.status`, `_links.status.href`, `href`.
 *                Resolved against the response URL; polled only when it has
 *                the API's own origin (credentials go with every poll).
 *   done         HTTP 200/201 (or a 303 followed to the final resource) whose
 *                body has no status field, or a body status in SUCCEEDED /
 *                FAILED below; `done: true` (Google-style operations) too.
 *                A poll answering 202, or a status in RUNNING, means "not yet".
 *   result       the final body, or its `result`/`resource`/`response`/`output`
 *                object when the status document wraps the resource.
 *
 * Pure apart from the registry, so every rule is unit-testable.
 */
import { randomBytes } from "node:crypto";
import { isPlainObject } from "../shared/json.js";
import type { PreparedCall } from "./outcomes.js";
import type { ToolData } from "../shared/tool-data.js";
import type { UpstreamResponse } from "../upstream/upstream.js";

export type OperationState = "running" | "succeeded" | "failed";

const SUCCEEDED = new Set([
  "succeeded",
  "success",
  "successful",
  "completed",
  "complete",
  "done",
  "finished",
  "ready",
  "ok",
  "resolved",
  "available",
]);
const FAILED = new Set([
  "failed",
  "failure",
  "error",
  "errored",
  "cancelled",
  "canceled",
  "aborted",
  "rejected",
  "timedout",
  "timed_out",
  "expired",
  "terminated",
]);
const STATUS_FIELDS = [
  "status",
  "state",
  "runtimeStatus",
  "runtime_status",
  "provisioningState",
  "operationStatus",
  "jobStatus",
];
const RESULT_FIELDS = ["result", "resource", "response", "output", "data"];
const LINK_HEADERS = ["operation-location", "azure-asyncoperation", "location", "content-location"];
const LINK_FIELDS = [
  "status_url",
  "statusUrl",
  "status_uri",
  "statusUri",
  "monitor_url",
  "monitorUrl",
  "operation_url",
  "operationUrl",
  "polling_url",
  "pollingUrl",
];

function linkValue(value: unknown): string | undefined {
  if (typeof value === "string" && value.trim() !== "") return value.trim();
  if (isPlainObject(value) && typeof value["href"] === "string") return value["href"];
  return undefined;
}

/** Where to ask about a 202's progress, if the response says. */
export function findStatusLink(response: Pick<UpstreamResponse, "headers" | "body" | "url">): URL | undefined {
  const candidates: string[] = [];
  for (const name of LINK_HEADERS) {
    const value = response.headers[name];
    if (value) candidates.push(value);
  }
  const body = response.body;
  if (isPlainObject(body)) {
    for (const field of LINK_FIELDS) {
      const value = linkValue(body[field]);
      if (value) candidates.push(value);
    }
    for (const container of ["links", "_links"]) {
      const links = body[container];
      if (isPlainObject(links)) {
        for (const rel of ["status", "self", "monitor", "operation"]) {
          const value = linkValue(links[rel]);
          if (value) candidates.push(value);
        }
      }
    }
    const href = linkValue(body["href"]);
    if (href) candidates.push(href);
  }
  for (const candidate of candidates) {
    try {
      const url = new URL(candidate, response.url);
      if (url.protocol === "http:" || url.protocol === "https:") return url;
    } catch {
      // not a URL; try the next candidate
    }
  }
  return undefined;
}

/** The status word of a status document, normalised (`InProgress` -> `inprogress`). */
export function statusWord(body: unknown): string | undefined {
  if (!isPlainObject(body)) return undefined;
  for (const field of STATUS_FIELDS) {
    const value = body[field];
    if (typeof value === "string" && value.trim() !== "")
      return value
        .trim()
        .toLowerCase()
        .replace(/[\s-]+/g, "_");
  }
  return undefined;
}

/** How far along the operation is, judging by one poll's response. */
export function classifyPoll(response: Pick<UpstreamResponse, "status" | "body">): OperationState {
  const body = response.body;
  if (isPlainObject(body) && typeof body["done"] === "boolean") {
    if (!body["done"]) return "running";
    return body["error"] !== undefined && body["error"] !== null ? "failed" : "succeeded";
  }
  const word = statusWord(body);
  if (word !== undefined) {
    const bare = word.replace(/_/g, "");
    if (SUCCEEDED.has(word) || SUCCEEDED.has(bare)) return "succeeded";
    if (FAILED.has(word) || FAILED.has(bare)) return "failed";
    return "running";
  }
  if (response.status === 202) return "running";
  return "succeeded";
}

/** The resource a finished status document carries (or the body itself). */
export function finalResult(body: unknown): unknown {
  if (!isPlainObject(body) || (statusWord(body) === undefined && body["done"] === undefined)) return body;
  for (const field of RESULT_FIELDS) if (isPlainObject(body[field]) || Array.isArray(body[field])) return body[field];
  return body;
}

/** Progress percentage when the status document reports one. */
export function percentDone(body: unknown): number | undefined {
  if (!isPlainObject(body)) return undefined;
  for (const field of ["percentComplete", "percent_complete", "progress", "percentage"]) {
    const value = body[field];
    if (typeof value === "number" && Number.isFinite(value) && value >= 0 && value <= 100) return value;
  }
  return undefined;
}

export interface PendingOperation {
  handle: string;
  tool: ToolData;
  call: PreparedCall;
  statusUrl: URL;
  /** False when the status link leaves the API's origin: it is reported but never polled. */
  pollable: boolean;
  state: OperationState;
  startedAt: number;
  polls: number;
  lastStatus?: string;
  lastBody?: unknown;
}

/** Handles of long-running operations, oldest evicted first; a handle expires an hour after its last use. */
export class OperationRegistry {
  private readonly entries = new Map<string, PendingOperation>();

  constructor(
    private readonly maxEntries = 500,
    private readonly ttlMs = 60 * 60 * 1000,
  ) {}

  create(tool: ToolData, call: PreparedCall, statusUrl: URL, pollable: boolean): PendingOperation {
    const entry: PendingOperation = {
      handle: `op_${randomBytes(9).toString("base64url")}`,
      tool,
      call,
      statusUrl,
      pollable,
      state: "running",
      startedAt: Date.now(),
      polls: 0,
    };
    this.entries.set(entry.handle, entry);
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    return entry;
  }

  get(handle: string): PendingOperation | undefined {
    const entry = this.entries.get(handle);
    if (!entry) return undefined;
    if (Date.now() - entry.startedAt > this.ttlMs && entry.state !== "running") {
      this.entries.delete(handle);
      return undefined;
    }
    // Touch: most recently used last, so eviction takes the stalest.
    this.entries.delete(handle);
    this.entries.set(handle, entry);
    return entry;
  }
}

export const OPERATION_STATUS_INPUT_SCHEMA = {
  type: "object",
  properties: {
    handle: {
      type: "string",
      minLength: 1,
      description: "The `handle` from the long-running call's `operation` field.",
    },
    wait: {
      type: "boolean",
      default: false,
      description: "Wait (bounded by the server's wait timeout) until the operation finishes and return its result.",
    },
  },
  required: ["handle"],
  additionalProperties: false,
} as const;
