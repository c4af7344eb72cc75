/**
 * tools/list in pages. The listing is built once per process in a fixed
 * order (the data file's, then the built-in tools), so every instance of one
 * deployment pages it identically: a cursor from one instance is good on
 * another. A page holds as many tools as fit in PAGE_BUDGET_BYTES of JSON,
 * so APIs up to GitHub's size (~5 MB per-operation) answer in one page (no
 * cursor: clients that never follow cursors still see every tool), and only
 * very large listings (Microsoft Graph per-operation is ~49 MB) are split.
 *
 * The cursor is opaque to clients: base64url of the listing's fingerprint
 * and the offset. A cursor from another deployment (or a data file that
 * changed under it) names another fingerprint and is refused with -32602,
 * which tells the client to list again from the start.
 */
import { createHash } from "node:crypto";
import { ProtocolError, ProtocolErrorCode, type ListToolsResult, type Tool } from "@modelcontextprotocol/server";

/**
 * UTF-8 bytes of JSON per page: under the 10 MB line buffer of the SDK's stdio transports, with room
 * for the envelope. The v2 client aggregates up to 64 pages, so even a 49 MB listing fits.
 */
export const PAGE_BUDGET_BYTES = 8_000_000;

export interface PagedListing {
  page(cursor: string | undefined): ListToolsResult;
}

export function pagedListing(listTools: () => Tool[], budgetBytes = PAGE_BUDGET_BYTES): PagedListing {
  let built: { tools: Tool[]; starts: number[]; fingerprint: string } | undefined;
  const build = () => {
    const tools = listTools();
    const hash = createHash("sha256");
    // Page boundaries: a new page starts where the running size would pass the budget (at least one tool per page).
    const starts = [0];
    let size = 0;
    tools.forEach((tool, index) => {
      const json = JSON.stringify(tool);
      hash.update(json);
      const bytes = Buffer.byteLength(json, "utf8") + 1;
      if (size > 0 && size + bytes > budgetBytes) {
        starts.push(index);
        size = 0;
      }
      size += bytes;
    });
    return { tools, starts, fingerprint: hash.digest("base64url").slice(0, 16) };
  };

  return {
    page(cursor) {
      built ??= build();
      const { tools, starts, fingerprint } = built;
      const pageIndex = cursor === undefined ? 0 : decodeCursor(cursor, fingerprint, starts.length);
      const from = starts[pageIndex]!;
      const to = starts[pageIndex + 1] ?? tools.length;
      const next = pageIndex + 1 < starts.length ? encodeCursor(fingerprint, pageIndex + 1) : undefined;
      return {
        tools: from === 0 && to === tools.length ? tools : tools.slice(from, to),
        ...(next !== undefined && { nextCursor: next }),
      };
    },
  };
}

function encodeCursor(fingerprint: string, page: number): string {
  return Buffer.from(JSON.stringify({ l: fingerprint, p: page }), "utf8").toString("base64url");
}

function decodeCursor(cursor: string, fingerprint: string, pages: number): number {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    parsed = undefined;
  }
  const { l, p } = (typeof parsed === "object" && parsed !== null ? parsed : {}) as { l?: unknown; p?: unknown };
  if (l !== fingerprint || typeof p !== "number" || !Number.isInteger(p) || p < 1 || p >= pages) {
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      "Invalid cursor: it does not belong to this server's current tool listing (another " +
        "deployment, or the listing changed). List again without a cursor.",
    );
  }
  return p;
}
