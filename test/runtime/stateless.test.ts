/**
 * Signed handles: a read_response page can be served by any instance holding the deployment's
 * key, in process here (two runtimes, two caches = two instances); a foreign, altered or expired
 * handle gets a guided error, never data.
 */
import { readFileSync } from "node:fs";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ResponseCache } from "../../templates/server/src/runtime/call/response-cache.js";
import { createToolRuntime, type ToolRuntime } from "../../templates/server/src/runtime/server/runtime.js";
import { createHandleCodec, type HandleCodec } from "../../templates/server/src/runtime/stateless/handles.js";
import { responseHandleMinter, withStatelessReads } from "../../templates/server/src/runtime/stateless/reads.js";
import { StatelessOperationRegistry } from "../../templates/server/src/runtime/stateless/operations.js";
import type { ToolsFile } from "../../templates/server/src/runtime/shared/tool-data.js";
import { json, startUpstream, type Upstream } from "../helpers/upstream.js";

const fixture = JSON.parse(
  readFileSync(new URL("../fixtures/runtime-tools.json", import.meta.url), "utf8"),
) as ToolsFile;
const createPet = fixture.tools.find((tool) => tool.name === "create_pet")!;
/** A long-running operation: 202 Accepted with a status link. */
const startExport = {
  ...createPet,
  name: "start_export",
  inputSchema: { type: "object", additionalProperties: false },
  operation: { ...createPet.operation!, path: "/exports", body: undefined },
};
const toolsFile: ToolsFile = { ...fixture, tools: [...fixture.tools, startExport] };
const KEY = "k".repeat(40);
const pets = Array.from({ length: 120 }, (_, i) => ({ id: i, name: `pet-${i}`, tag: "x".repeat(20) }));

let upstream: Upstream;
let listCalls = 0;

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.route("GET", /^\/v1\/pets$/, (_req, res) => {
    listCalls++;
    json(res, 200, pets);
  });
  upstream.route("POST", /^\/v1\/exports$/, (_req, res) =>
    json(res, 202, { status: "queued" }, { location: "/v1/exports/jobs/7" }),
  );
  upstream.route("GET", /^\/v1\/exports\/jobs\/7$/, (_req, res) =>
    json(res, 200, { status: "succeeded", result: { id: 7 } }),
  );
});

afterAll(async () => {
  await upstream?.close();
});

/** One "instance": its own runtime and cache, the deployment's handle codec. */
function instance(codec: HandleCodec, file: ToolsFile = toolsFile): ToolRuntime {
  const runtime = createToolRuntime(file, {
    env: { PETS_BASE_URL: `${upstream.url}/v1`, PETS_TOKEN: "t", PETS_API_KEY: "k" },
    handlers: { echo: async () => pets },
    responseBudgetChars: 1_500,
    cache: new ResponseCache({ pageBudgetChars: 1_500, mintHandle: responseHandleMinter(codec) }),
    operations: new StatelessOperationRegistry(codec, (name) => file.tools.find((tool) => tool.name === name)),
    log: () => {},
  });
  return withStatelessReads(runtime, codec);
}

const structured = (result: CallToolResult) => result.structuredContent as Record<string, any>;

describe("signed handle codec", () => {
  it("opens its own handles, refuses another key's, altered and expired ones", () => {
    let now = 1_000_000;
    const codec = createHandleCodec("PETS", { PETS_HANDLE_KEY: KEY }, () => now);
    const handle = codec.mint("resp", { tool: "list_pets", params: {} }, 60_000);
    expect(codec.open("resp", handle)).toEqual({ ok: true, value: { tool: "list_pets", params: {} } });
    expect(createHandleCodec("PETS", { PETS_HANDLE_KEY: "z".repeat(40) }).open("resp", handle)).toMatchObject({
      ok: false,
      reason: "foreign",
    });
    const [payload, signature] = handle.slice("resp_".length).split(".") as [string, string];
    const altered = Buffer.from(
      Buffer.from(payload, "base64url").toString("utf8").replace("list_pets", "del_pets"),
      "utf8",
    ).toString("base64url");
    expect(codec.open("resp", `resp_${altered}.${signature}`)).toMatchObject({ ok: false, reason: "foreign" });
    expect(codec.open("resp", "resp_garbage")).toMatchObject({ ok: false, reason: "malformed" });
    now += 61_000;
    expect(codec.open("resp", handle)).toMatchObject({ ok: false, reason: "expired" });
  });

  it("refuses a short key with a message naming the env var and the fix", () => {
    expect(() => createHandleCodec("PETS", { PETS_HANDLE_KEY: "short" })).toThrow(/PETS_HANDLE_KEY: .*at least 32/);
  });
});

describe("read_response across instances", () => {
  it("pages a large read-only result on whichever instance gets the call", async () => {
    const codec = createHandleCodec("PETS", { PETS_HANDLE_KEY: KEY });
    const [a, b] = [instance(codec), instance(codec)];
    const first = await a.callTool("list_pets", {});
    const detail = structured(first)["detail"] as { handle: string; params: { offset: number; limit: number } };
    expect(detail.handle).toMatch(/^resp_/);
    const seen: unknown[] = [];
    let next: Record<string, unknown> | undefined = detail.params;
    for (let turn = 0; next; turn++) {
      const page = await (turn % 2 === 0 ? b : a).callTool("read_response", next);
      expect(page.isError, JSON.stringify(page.structuredContent)).toBeFalsy();
      seen.push(...(structured(page)["items"] as unknown[]));
      next = (structured(page)["next_steps"] as { params: Record<string, unknown> }[] | undefined)?.[0]?.params;
    }
    expect(seen).toEqual(pets.slice(detail.params.offset));
  });

  it("answers a handle from another deployment, or an altered one, with UNKNOWN_HANDLE and no data", async () => {
    const ours = instance(createHandleCodec("PETS", { PETS_HANDLE_KEY: KEY }));
    const theirs = instance(createHandleCodec("PETS", { PETS_HANDLE_KEY: "t".repeat(40) }));
    const handle = (structured(await theirs.callTool("list_pets", {}))["detail"] as { handle: string }).handle;
    const before = listCalls;
    for (const wrong of [handle, handle.replace(/.$/, (c) => (c === "A" ? "B" : "A"))]) {
      const refused = await ours.callTool("read_response", { handle: wrong });
      expect(refused.isError).toBe(true);
      expect(structured(refused)).toMatchObject({
        error: { code: "UNKNOWN_HANDLE", message: expect.stringContaining("not issued by this deployment") },
      });
      expect(JSON.stringify(refused)).not.toContain("pet-1");
    }
    expect(listCalls).toBe(before);
  });

  it("never re-runs a call that is not read-only: its handle expires as before", async () => {
    const codec = createHandleCodec("PETS", { PETS_HANDLE_KEY: KEY });
    const writing: ToolsFile = {
      ...toolsFile,
      tools: toolsFile.tools.map((tool) =>
        tool.name === "echo" ? { ...tool, annotations: { ...tool.annotations, readOnlyHint: false } } : tool,
      ),
    };
    const [a, b] = [instance(codec, writing), instance(codec, writing)];
    const echoed = await a.callTool("echo", { message: "hi" });
    const handle = (structured(echoed)["detail"] as { handle: string }).handle;
    const elsewhere = await b.callTool("read_response", { handle });
    expect(structured(elsewhere)).toMatchObject({ error: { code: "RESPONSE_EXPIRED" } });
  });

  it("without a shared key, says which env var lets any instance serve the handle", async () => {
    const a = instance(createHandleCodec("PETS", {}));
    const b = instance(createHandleCodec("PETS", {}));
    const handle = (structured(await a.callTool("list_pets", {}))["detail"] as { handle: string }).handle;
    const refused = await b.callTool("read_response", { handle });
    expect(structured(refused)).toMatchObject({
      error: { code: "UNKNOWN_HANDLE", message: expect.stringContaining("PETS_HANDLE_KEY") },
    });
  });
});

describe("operation_status across instances", () => {
  it("polls an operation another instance started; refuses a handle from another deployment", async () => {
    const codec = createHandleCodec("PETS", { PETS_HANDLE_KEY: KEY });
    const [a, b] = [instance(codec), instance(codec)];
    const started = structured(await a.callTool("start_export", {}));
    const handle = (started["operation"] as { handle: string }).handle;
    expect(handle).toMatch(/^op_/);
    const done = structured(await b.callTool("operation_status", { handle, wait: true }));
    expect(done["operation"]).toMatchObject({ status: "succeeded" });
    expect(done["unvalidated_data"] ?? done["data"]).toEqual({ id: 7 });

    const theirs = instance(createHandleCodec("PETS", { PETS_HANDLE_KEY: "t".repeat(40) }));
    expect(structured(await theirs.callTool("operation_status", { handle }))).toMatchObject({
      error: { code: "UNKNOWN_HANDLE" },
    });
  });
});
