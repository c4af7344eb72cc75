/**
 * Two instances of the generated Petstore server behind a per-request round-robin balancer, as
 * a deployment would run them (same PETSTORE_HANDLE_KEY on both). Through it:
 * - 1000 concurrent calls from v1 (2025-11-25) and v2 (2026-07-28) clients each get their own answer;
 * - a large result is paged with read_response while consecutive pages land on different instances.
 */
import { join } from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBalancer, type Balancer } from "../helpers/balancer.js";
import { generateAndBuild, type BuiltProject } from "../helpers/generated.js";
import { connectHttp, connectModernHttp, startHttpServer, type HttpServerProcess } from "../helpers/mcp.js";
import { SAMPLES } from "../helpers/pipeline.js";
import { json, startUpstream, type Upstream } from "../helpers/upstream.js";

interface AnyClient {
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>;
  close(): Promise<void>;
}

const pets = Array.from({ length: 300 }, (_, i) => ({ id: i + 1, name: `pet-${i + 1}`, tag: "t".repeat(30) }));

let project: BuiltProject;
let upstream: Upstream;
let instances: HttpServerProcess[] = [];
let balancer: Balancer;

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.route("GET", /^\/v1\/pets$/, (_req, res) => json(res, 200, pets));
  upstream.route("GET", /^\/v1\/pets\/\d+$/, (req, res) => {
    const id = Number(/(\d+)$/.exec(req.rawUrl)![1]);
    json(res, 200, { id, name: `pet-${id}` });
  });
  project = await generateAndBuild(join(SAMPLES, "petstore.yaml"));
  const env = {
    PETSTORE_BASE_URL: `${upstream.url}/v1`,
    PETSTORE_API_KEY: "k",
    PETSTORE_HANDLE_KEY: "a-shared-deployment-key-of-40-characters!",
    PETSTORE_RESPONSE_BUDGET_CHARS: "3000",
  };
  instances = await Promise.all([startHttpServer(project.dir, env), startHttpServer(project.dir, env)]);
  balancer = await startBalancer(instances.map((instance) => instance.url));
}, 600_000);

afterAll(async () => {
  await balancer?.close();
  await Promise.all(instances.map((instance) => instance.stop()));
  await upstream?.close();
});

describe("two instances behind a round-robin balancer", () => {
  it("answers 1000 concurrent mixed-era calls, each with its own right answer", async () => {
    const clients: AnyClient[] = await Promise.all([
      ...Array.from({ length: 5 }, () => connectHttp(balancer.url) as Promise<unknown> as Promise<AnyClient>),
      ...Array.from({ length: 5 }, () => connectModernHttp(balancer.url) as Promise<unknown> as Promise<AnyClient>),
    ]);
    const from = balancer.routed.length;
    const results = await Promise.all(
      Array.from({ length: 1000 }, async (_, i) => {
        const petId = i + 1;
        const result = (await clients[i % clients.length]!.callTool({
          name: "get_pet",
          arguments: { petId },
        })) as CallToolResult;
        return { petId, result };
      }),
    );
    for (const { petId, result } of results) {
      expect(result.isError, JSON.stringify(result.structuredContent)).toBeFalsy();
      expect((result.structuredContent as { data: unknown }).data).toEqual({ id: petId, name: `pet-${petId}` });
    }
    const calls = balancer.routed.slice(from).filter((entry) => entry.method === "tools/call");
    expect(calls).toHaveLength(1000);
    expect(new Set(calls.map((entry) => entry.backend))).toEqual(new Set([0, 1]));
    await Promise.all(clients.map((client) => client.close()));
  });

  it.each([
    ["v1 Client (2025-11-25)", () => connectHttp(balancer.url) as Promise<unknown> as Promise<AnyClient>],
    ["v2 Client (2026-07-28)", () => connectModernHttp(balancer.url) as Promise<unknown> as Promise<AnyClient>],
  ])(
    "%s pages a large result with read_response, consecutive pages on different instances",
    async (_label, connect) => {
      const client = await connect();
      const first = (await client.callTool({ name: "list_pets", arguments: {} })) as CallToolResult;
      const detail = (
        first.structuredContent as {
          detail: { handle: string; params: { handle: string; offset: number; limit: number } };
        }
      ).detail;
      expect(detail.handle).toMatch(/^resp_/);
      const from = balancer.routed.length;
      const seen: unknown[] = [];
      let next: Record<string, unknown> | undefined = { ...detail.params };
      while (next) {
        const page = (await client.callTool({ name: "read_response", arguments: next })) as CallToolResult;
        expect(page.isError, JSON.stringify(page.structuredContent)).toBeFalsy();
        const content = page.structuredContent as {
          items: unknown[];
          next_steps?: { params: Record<string, unknown> }[];
        };
        seen.push(...content.items);
        next = content.next_steps?.[0]?.params;
      }
      expect(seen).toEqual(pets.slice(detail.params.offset));
      const reads = balancer.routed.slice(from).filter((entry) => entry.tool === "read_response");
      expect(reads.length).toBeGreaterThan(2);
      expect(reads.some((entry, i) => i > 0 && entry.backend !== reads[i - 1]!.backend)).toBe(true);
      expect(new Set(reads.map((entry) => entry.backend))).toEqual(new Set([0, 1]));
      await client.close();
    },
  );
});
