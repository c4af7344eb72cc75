/**
 * Every sample generates a project that compiles with tsc --strict, and a
 * real MCP client lists and calls its tools against a real local upstream.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generate } from "../../src/generate.js";
import { generateAndBuild, type BuiltProject } from "../helpers/generated.js";
import { connectStdio } from "../helpers/mcp.js";
import { SAMPLES } from "../helpers/pipeline.js";
import { buildProject } from "../helpers/project.js";
import { json, startUpstream, type Upstream } from "../helpers/upstream.js";

let upstream: Upstream;

beforeAll(async () => {
  upstream = await startUpstream();
});

afterAll(async () => {
  await upstream?.close();
});

describe("Swagger 2.0 sample (inventory)", () => {
  let project: BuiltProject;
  beforeAll(async () => {
    upstream.route("GET", /^\/api\/items$/, (_req, res) =>
      json(res, 200, [{ id: "1", sku: "ABC-1234", name: "Bolt" }]),
    );
    upstream.route("POST", /^\/api\/items\/[^/]+\/adjust$/, (req, res) =>
      json(res, 200, {
        id: "1",
        sku: "ABC-1234",
        name: "Bolt",
        quantity: Number(new URLSearchParams(req.body).get("delta")),
      }),
    );
    project = await generateAndBuild(join(SAMPLES, "inventory-swagger2.json"));
  }, 600_000);

  it("sends basic auth, csv arrays and form bodies", async () => {
    const client = await connectStdio(project.dir, {
      INVENTORY_BASE_URL: `${upstream.url}/api`,
      INVENTORY_BASIC_AUTH_USERNAME: "ann",
      INVENTORY_BASIC_AUTH_PASSWORD: "s3cret",
    });
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(
        expect.arrayContaining(["list_items", "create_item", "get_item", "adjust_stock"]),
      );
      const list = await client.callTool({
        name: "list_items",
        arguments: { sku: ["ABC-1234", "XYZ-0001"], per_page: 5 },
      });
      expect(list.isError).toBeFalsy();
      const listed = upstream.requests.at(-1)!;
      expect(listed.query.get("sku")).toBe("ABC-1234,XYZ-0001");
      expect(listed.headers.authorization).toBe(`Basic ${Buffer.from("ann:s3cret").toString("base64")}`);
      const adjusted = await client.callTool({
        name: "adjust_stock",
        arguments: { itemId: "1", delta: -2, reason: "sale" },
      });
      expect(adjusted.isError).toBeFalsy();
      const form = new URLSearchParams(upstream.requests.at(-1)!.body);
      expect([form.get("delta"), form.get("reason")]).toEqual(["-2", "sale"]);
    } finally {
      await client.close();
    }
  });
});

describe("OpenAPI 3.1 sample (library)", () => {
  let project: BuiltProject;
  beforeAll(async () => {
    upstream.route("GET", /^\/v2\/books$/, (_req, res) =>
      json(res, 200, { data: [{ id: "b1", title: "Dune", author_id: "a1" }], next_cursor: "c2" }),
    );
    upstream.route("POST", /^\/v2\/books$/, (req, res) => json(res, 201, { id: "b2", ...JSON.parse(req.body) }));
    project = await generateAndBuild(join(SAMPLES, "library-openapi31.yaml"));
  }, 600_000);

  it("sends the API key in the query and a JSON body", async () => {
    const client = await connectStdio(project.dir, {
      LIBRARY_BASE_URL: `${upstream.url}/v2`,
      LIBRARY_API_KEY_QUERY: "k-1",
    });
    try {
      const list = await client.callTool({ name: "list_books", arguments: { limit: 1 } });
      expect(list.isError).toBeFalsy();
      expect(upstream.requests.at(-1)!.query.get("api_key")).toBe("k-1");
      expect((list.structuredContent as { data: { next_cursor: string } }).data.next_cursor).toBe("c2");
      const added = await client.callTool({ name: "add_book", arguments: { title: "Emma", subjects: ["novel"] } });
      expect(added.isError).toBeFalsy();
      expect(JSON.parse(upstream.requests.at(-1)!.body)).toEqual({ title: "Emma", subjects: ["novel"] });
    } finally {
      await client.close();
    }
  });
});

describe("JSON Schema sample (notes): user-owned handlers", () => {
  let project: BuiltProject;
  beforeAll(async () => {
    project = await generateAndBuild(join(SAMPLES, "notes-tools.schema.json"));
  }, 600_000);

  it("starts with stubs that answer a clear 'not implemented yet' tool error", async () => {
    const client = await connectStdio(project.dir, {});
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(
        expect.arrayContaining(["create_note", "search_notes"]),
      );
      const result = await client.callTool({ name: "create_note", arguments: { title: "t", body: "b" } });
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toMatch(/not implemented yet.*src\/handlers\/create_note\.ts/);
    } finally {
      await client.close();
    }
  });

  it("runs a filled-in handler, and regeneration never overwrites it", async () => {
    const handlerPath = join(project.dir, "src", "handlers", "create_note.ts");
    const filled = `import type { Handler } from "../runtime/hook-types.js";\n\nexport const handle: Handler = async (args) => ({ saved: true, title: args.title });\n`;
    writeFileSync(handlerPath, filled);
    const again = await generate({ from: join(SAMPLES, "notes-tools.schema.json"), out: project.dir });
    expect(again.write.plan.find((entry) => entry.path === "src/handlers/create_note.ts")?.action).toBe("keep-user");
    expect(readFileSync(handlerPath, "utf8")).toBe(filled);
    buildProject(project.dir);
    const client = await connectStdio(project.dir, {});
    try {
      const result = await client.callTool({ name: "create_note", arguments: { title: "Shopping", body: "milk" } });
      expect(result.isError).toBeFalsy();
      expect((result.structuredContent as { data: unknown }).data).toEqual({ saved: true, title: "Shopping" });
    } finally {
      await client.close();
    }
  });
});

describe("catalogue sample: missing identifiers lead to real ones (issue 13)", () => {
  let project: BuiltProject;
  beforeAll(async () => {
    const books = { items: [{ id: "bk_1", title: "Dune", author_id: "au_7" }] };
    upstream.route("GET", /^\/cat\/v1\/books$/, (_req, res) => json(res, 200, books));
    upstream.route("GET", /^\/cat\/v1\/authors\/au_7$/, (_req, res) =>
      json(res, 200, { id: "au_7", name: "Frank Herbert" }),
    );
    upstream.route("POST", /^\/cat\/v1\/orders$/, (req, res) =>
      json(res, 201, { id: "ord_3", status: "pending", ...(JSON.parse(req.body) as object) }),
    );
    upstream.route("GET", /^\/cat\/v1\/orders\/ord_3$/, (_req, res) =>
      json(res, 200, { id: "ord_3", book_id: "bk_1", quantity: 1, status: "pending" }),
    );
    project = await generateAndBuild(join(SAMPLES, "catalogue.yaml"));
  }, 600_000);

  it.each([
    ["get_author", "authorId", "au_7"],
    ["get_order", "orderId", "ord_3"],
  ])("%s {} → next_steps → a real %s", async (tool, field, real) => {
    const client = await connectStdio(project.dir, {
      CATALOGUE_BASE_URL: `${upstream.url}/cat/v1`,
      CATALOGUE_TOOLS: "per-operation",
    });
    try {
      const failed = await client.callTool({ name: tool, arguments: {} });
      expect(failed.isError).toBe(true);
      const steps = (failed.structuredContent as { error: { next_steps: unknown[] } }).error.next_steps.filter(
        (s): s is { tool: string; params: Record<string, unknown>; take: string } =>
          typeof s === "object" && s !== null && "take" in s,
      );
      let taken: unknown;
      for (const step of steps.slice(0, 2)) {
        const params = Object.fromEntries(Object.entries(step.params).map(([k, v]) => [k, v === "$via" ? taken : v]));
        const result = await client.callTool({ name: step.tool, arguments: params });
        expect(result.isError, JSON.stringify(result.structuredContent)).toBeFalsy();
        const data = (result.structuredContent as { data: unknown }).data;
        taken = step.take
          .split("/")
          .slice(1)
          .reduce<unknown>((v, k) => (v as Record<string, unknown>)[k], data);
      }
      expect(taken).toBe(real);
      const retried = await client.callTool({ name: tool, arguments: { [field]: taken } });
      expect(retried.isError, JSON.stringify(retried.structuredContent)).toBeFalsy();
    } finally {
      await client.close();
    }
  });
});
