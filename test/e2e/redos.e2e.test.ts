/**
 * A spec whose schema carries a pattern that backtracks exponentially (beezup.com's URL pattern) generates,
 * warns at the pattern's pointer, and the server answers a long non-matching argument at once: the pattern is
 * not in the tool's input schema (the server's Ajv) nor in its output schema (the client's Ajv), while a benign
 * pattern beside it is still enforced. The property's description still states the rule, for the agent.
 */
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatDiagnostic } from "../../src/diagnostics.js";
import { generateAndBuild, type BuiltProject } from "../helpers/generated.js";
import { stdioSession, type StdioSession } from "../helpers/mcp.js";
import { REPO_ROOT } from "../helpers/project.js";
import { json, startUpstream, type Upstream } from "../helpers/upstream.js";

const SPEC = join(REPO_ROOT, "test", "fixtures", "redos.yaml");
const URL_PATTERN = String.raw`^(https?:\/\/)?([\da-z\.-]+)\.([a-z\.]{2,6})([\/\w \.-]*)*\/?$`;
/** Backtracks for longer than any test would wait with the pattern in place (2^n steps). */
const LONG_NON_MATCHING = "shop.example.com/" + "a".repeat(5000) + "!";

let project: BuiltProject;
let upstream: Upstream;
let session: StdioSession;
let client: Client;

beforeAll(async () => {
  upstream = await startUpstream();
  upstream.route("POST", /^\/stores$/, (req, res) => json(res, 201, JSON.parse(req.body)));
  upstream.route("GET", /^\/stores\/[^/]+$/, (_req, res) => json(res, 200, { url: LONG_NON_MATCHING, country: "FR" }));
  project = await generateAndBuild(SPEC);
  session = await stdioSession(project.dir, { SHOP_BASE_URL: upstream.url });
  client = session.client;
}, 600_000);

afterAll(async () => {
  await session?.close();
  await upstream?.close();
});

describe("a pattern that backtracks exponentially", () => {
  it("is reported once per place it is used, at its pointer", () => {
    const warnings = project.result.diagnostics.filter((d) => d.pointer.endsWith("/url/pattern")).map(formatDiagnostic);
    const where = ["~1stores/post/requestBody", "~1stores/post/responses/201", "~1stores~1{storeId}/get/responses/200"];
    const problem =
      String.raw`this pattern can take exponential time on a non-matching value (nested quantifier "([\/\w \.-]*)*")` +
      " — left out of validation so one bad argument cannot freeze the server; the API still enforces it. " +
      String.raw`Rewrite it without nested repetition (e.g. "[\/\w \.-]*") to have it checked`;
    expect(warnings).toEqual(
      where.map((at) => `#/paths/${at}/content/application~1json/schema/properties/url/pattern: ${problem}`),
    );
  });

  it("is in neither the input nor the output schema, while the benign pattern beside it is", async () => {
    const { tools } = await client.listTools();
    const schemas = tools.flatMap((tool) => [tool.inputSchema, tool.outputSchema]).filter(Boolean);
    const patterns: unknown[] = [];
    JSON.stringify(schemas, (key, value: unknown) => {
      if (key === "pattern") patterns.push(value);
      return value;
    });
    expect(patterns).not.toContain(URL_PATTERN);
    expect(patterns).toContain("^[A-Z]{2}$");
    expect(schemas.length).toBeGreaterThanOrEqual(3);
    // The agent is still told the rule the API enforces, in words, where it reads it: the input schema (output
    // schemas carry no descriptions, only what validation needs).
    const create = tools.find((tool) => tool.name === "create_store");
    const url = (create?.inputSchema.properties as Record<string, { description?: string }> | undefined)?.url;
    expect(url?.description).toBe(`(must match ${JSON.stringify(URL_PATTERN)}; checked by the API, not here)`);
  });

  it("the server passes a long non-matching argument on to the API at once", async () => {
    const result = await client.callTool({
      name: "create_store",
      arguments: { url: LONG_NON_MATCHING, country: "FR" },
    });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const request = upstream.requests.at(-1)!;
    expect(request.method).toBe("POST");
    expect(JSON.parse(request.body)).toEqual({ url: LONG_NON_MATCHING, country: "FR" });
  });

  it("the client's output validation takes a long non-matching value in a response at once", async () => {
    const result = await client.callTool({ name: "get_store", arguments: { storeId: "s1" } });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect((result.structuredContent as { data: { url: string } }).data.url).toBe(LONG_NON_MATCHING);
  });

  it("the benign pattern is still enforced before anything is sent", async () => {
    const before = upstream.requests.length;
    const result = await client.callTool({
      name: "create_store",
      arguments: { url: "shop.example.com", country: "fr" },
    });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain("country");
    expect(upstream.requests.length).toBe(before);
  });
});
