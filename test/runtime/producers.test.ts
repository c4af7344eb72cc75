/**
 * Issue 13 §1: a missing identifier leads to a real one. In process (runtime
 * behind a real SDK Client, local upstream) on samples/catalogue.yaml's data:
 * the agent drops the identifier, follows the error's `next_steps` like a naive
 * agent (at most two calls, taking the value at each step's `take`) and retries,
 * in every tool mode.
 */
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { CallToolResultSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer as createMcpServer } from "../../templates/server/src/runtime/mcp/server.js";
import type { ToolMode, ToolsFile } from "../../templates/server/src/runtime/shared/tool-data.js";
import { json, startUpstream, type Upstream } from "../helpers/upstream.js";
import { at, replaceVia } from "../helpers/agent.js";

const catalogue = JSON.parse(
  readFileSync(new URL("../snapshots/catalogue/tools.json", import.meta.url), "utf8"),
) as ToolsFile;

let upstream: Upstream;
beforeAll(async () => {
  upstream = await startUpstream();
  upstream.route("GET", /^\/v1\/books$/, (_req, res) =>
    json(res, 200, { items: [{ id: "bk_1", title: "Dune", author_id: "au_7" }] }),
  );
  upstream.route("GET", /^\/v1\/books\/bk_1$/, (_req, res) =>
    json(res, 200, { id: "bk_1", title: "Dune", author_id: "au_7" }),
  );
  upstream.route("GET", /^\/v1\/authors\/au_7$/, (_req, res) => json(res, 200, { id: "au_7", name: "Frank Herbert" }));
  upstream.route("POST", /^\/v1\/orders$/, (req, res) =>
    json(res, 201, { id: "ord_3", status: "pending", ...(JSON.parse(req.body) as object) }),
  );
  upstream.route("DELETE", /^\/v1\/orders\/ord_3$/, (_req, res) => void res.writeHead(204).end());
  upstream.route("GET", /^\/v1\/orders\/ord_drift$/, (_req, res) =>
    json(res, 200, { id: "ord_drift", book_id: "bk_1", quantity: "one", status: "pending" }),
  );
  upstream.route("GET", /^\/v1\/orders\/ord_3$/, (_req, res) =>
    json(res, 200, { id: "ord_3", book_id: "bk_1", quantity: 1, status: "pending" }),
  );
});
afterAll(() => upstream.close());

async function connect(mode: ToolMode): Promise<{ client: Client; front: string | undefined }> {
  const server = createMcpServer(catalogue, {
    env: { CATALOGUE_BASE_URL: `${upstream.url}/v1` },
    toolMode: mode,
    log: () => {},
  });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: "producers-test", version: "1.0.0" });
  await client.connect(clientTransport);
  const { tools } = await client.listTools();
  return { client, front: mode === "dispatch" ? tools[0]!.name : undefined };
}

/** The call for operation `name` with `params`, as the mode takes it. */
function shaped(mode: ToolMode, front: string | undefined, name: string, params: Record<string, unknown>) {
  if (mode === "discovery") return { name: "invoke_operation", arguments: { name, params } };
  if (mode === "dispatch") return { name: front!, arguments: { action: name, params } };
  return { name, arguments: params };
}

async function call(
  client: Client,
  request: { name: string; arguments: Record<string, unknown> },
): Promise<CallToolResult> {
  return (await client.callTool(request, CallToolResultSchema)) as CallToolResult;
}

/** Follows the error's producer steps (≤ 2 calls) and returns the value taken from the last one. */
async function heal(client: Client, error: Record<string, unknown>): Promise<unknown> {
  const steps = (error["next_steps"] as Array<Record<string, unknown>>).filter(
    (s) => typeof s === "object" && typeof s["take"] === "string",
  );
  let taken: unknown;
  for (const step of steps.slice(0, 2)) {
    const result = await call(client, {
      name: step["tool"] as string,
      arguments: replaceVia(step["params"], taken) as Record<string, unknown>,
    });
    expect(result.isError, JSON.stringify(result.structuredContent)).toBeFalsy();
    if (process.env["DEBUG_HEAL"])
      console.log(JSON.stringify(step), JSON.stringify(result.structuredContent).slice(0, 600));
    taken = at((result.structuredContent as Record<string, unknown>)["data"], step["take"] as string);
  }
  return taken;
}

describe.each<ToolMode>(["per-operation", "discovery", "dispatch"])("missing identifiers healed in %s mode", (mode) => {
  it.each([
    ["get_book", "bookId", "bk_1"],
    ["get_author", "authorId", "au_7"],
    ["get_order", "orderId", "ord_3"],
  ])("%s {} → %s from its producers", async (tool, field, real) => {
    const { client, front } = await connect(mode);
    const failed = await call(client, shaped(mode, front, tool, {}));
    expect(failed.isError).toBe(true);
    const error = (failed.structuredContent as Record<string, Record<string, unknown>>)["error"]!;
    const value = await heal(client, error);
    expect(value).toBe(real);
    const retried = await call(client, shaped(mode, front, tool, { [field]: value }));
    expect(retried.isError, JSON.stringify(retried.structuredContent)).toBeFalsy();
    await client.close();
  });

  it("UPSTREAM_NOT_FOUND names the producer and describe names the sources", async () => {
    const { client, front } = await connect(mode);
    const missing = await call(client, shaped(mode, front, "get_author", { authorId: "au_404" }));
    const error = (missing.structuredContent as Record<string, Record<string, unknown>>)["error"]!;
    expect(error["code"]).toBe("UPSTREAM_NOT_FOUND");
    expect(await heal(client, error)).toBe("au_7");
    const info =
      mode === "per-operation"
        ? await call(client, { name: "info", arguments: { tool: "get_author" } })
        : mode === "discovery"
          ? await call(client, { name: "describe_operation", arguments: { name: "get_author" } })
          : await call(client, { name: front!, arguments: { action: "describe", params: { action: "get_author" } } });
    expect(JSON.stringify(info.structuredContent)).toContain("list_books (take /items/0/author_id)");
    await client.close();
  });
});

/** Codes that mean the arguments did not pass input validation (or named nothing that exists). */
const VALIDATION_CODES = new Set([
  "INVALID_ARGUMENTS",
  "MISSING_REQUIRED",
  "UNKNOWN_PARAMETER",
  "INVALID_TYPE",
  "INVALID_ENUM",
  "OUT_OF_RANGE",
  "INVALID_LENGTH",
  "INVALID_FORMAT",
  "INVALID_PATTERN",
  "INVALID_VALUE",
  "UNKNOWN_OPERATION",
  "UNKNOWN_ACTION",
  "UNKNOWN_TOOL",
]);

describe.each<ToolMode>(["per-operation", "discovery", "dispatch"])(
  "issue 13 §1b: every valid_example fits the tool it is offered for (%s)",
  (mode) => {
    it("sent as-is, each offered valid_example passes input validation", async () => {
      const { client, front } = await connect(mode);
      const bad: Array<{ name: string; arguments: Record<string, unknown> }> = [];
      for (const tool of catalogue.tools) {
        bad.push(shaped(mode, front, tool.name, {}));
        bad.push(shaped(mode, front, tool.name, { bogus_argument: 1 }));
        bad.push(shaped(mode, front, `${tool.name}x`, {}));
      }
      if (mode === "discovery")
        bad.push(
          { name: "invoke_operation", arguments: {} },
          { name: "describe_operation", arguments: { name: "get_bok" } },
        );
      if (mode === "dispatch")
        bad.push(
          { name: front!, arguments: {} },
          { name: front!, arguments: { action: "describe", params: { action: "get_bok" } } },
        );
      let offered = 0;
      for (const request of bad) {
        const result = await call(client, request);
        const error = (result.structuredContent as Record<string, Record<string, unknown>> | undefined)?.["error"];
        if (!error?.["valid_example"]) continue;
        offered++;
        // Per-operation UNKNOWN_TOOL names no tool: its example is the suggested tool's.
        const target = (error["tool"] ?? (error["suggestions"] as Record<string, unknown>)["did_you_mean"]) as string;
        const retried = await call(client, {
          name: target,
          arguments: error["valid_example"] as Record<string, unknown>,
        });
        const code = (retried.structuredContent as Record<string, Record<string, unknown>> | undefined)?.["error"]?.[
          "code"
        ];
        expect(
          VALIDATION_CODES.has(String(code)),
          `${JSON.stringify(request)} offered ${JSON.stringify(error["valid_example"])} for ${target}: ${String(code)}`,
        ).toBe(false);
      }
      expect(offered).toBeGreaterThan(catalogue.tools.length);
      await client.close();
    });
  },
);

describe.each<ToolMode>(["per-operation", "discovery", "dispatch"])("issue 13 §3: control arguments (%s)", (mode) => {
  it("a confirmed call with a bad argument gets corrective_params that keep the confirmation", async () => {
    const { client, front } = await connect(mode);
    const request = shaped(mode, front, "cancel_order", { orderId: "ord_3", bogus_argument: 1 });
    if (mode === "discovery") request.arguments["_confirm"] = true;
    else if (mode === "dispatch") (request.arguments["params"] as Record<string, unknown>)["_confirm"] = true;
    else request.arguments["_confirm"] = true;
    const failed = await call(client, request);
    const error = (failed.structuredContent as Record<string, Record<string, unknown>>)["error"]!;
    expect(JSON.stringify(error["corrective_params"])).toContain('"_confirm":true');
    const retried = await call(client, {
      name: error["tool"] as string,
      arguments: error["corrective_params"] as Record<string, unknown>,
    });
    expect(retried.isError, JSON.stringify(retried.structuredContent)).toBeFalsy();
    expect(upstream.requests.some((r) => r.method === "DELETE" && r.path === "/v1/orders/ord_3")).toBe(true);
    await client.close();
  });
});

it("issue 13 §3: a string wait is taken as the boolean, and the result says so", async () => {
  const { client } = await connect("per-operation");
  const result = await call(client, { name: "list_books", arguments: { wait: "true" } });
  expect(result.isError).toBeFalsy();
  expect(JSON.stringify(result.structuredContent)).toContain('received the string \\"true\\", taken as true');
  const odd = await call(client, { name: "list_books", arguments: { wait: 1 } });
  expect(JSON.stringify(odd.structuredContent)).toContain("ignored (not waiting)");
  await client.close();
});

it("issue 13 §5: drift from the documented response schema is named with its first pointer", async () => {
  const { client } = await connect("per-operation");
  const drifted = await call(client, { name: "get_order", arguments: { orderId: "ord_drift" } });
  expect(drifted.isError).toBeFalsy();
  expect((drifted.structuredContent as Record<string, unknown>)["warnings"]).toContain(
    "The response did not match the documented schema at /quantity; fields may be missing or different. It is returned as unvalidated_data.",
  );
  const fine = await call(client, { name: "get_order", arguments: { orderId: "ord_3" } });
  expect(JSON.stringify(fine.structuredContent)).not.toContain("did not match");
  await client.close();
});
