/**
 * The GitHub REST spec (~1000 operations, from @octokit/openapi) generates,
 * its project compiles with tsc --strict, and the server answers tools/list
 * with unique, valid names to the SDK client (which also compiles every
 * output schema it receives, so one bad schema would fail the whole list).
 */
import { createRequire } from "node:module";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { TOOL_NAME_PATTERN } from "../../src/model/names.js";
import { generateAndBuild, type BuiltProject } from "../helpers/generated.js";
import { connectStdio } from "../helpers/mcp.js";

const GITHUB_SPEC = createRequire(import.meta.url).resolve("@octokit/openapi/generated/api.github.com.json");

describe("GitHub REST API", () => {
  let project: BuiltProject;
  let client: Client;

  beforeAll(async () => {
    project = await generateAndBuild(GITHUB_SPEC, { name: "github", toolMode: "per-operation" });
    client = await connectStdio(project.dir, { GITHUB_BASE_URL: "http://127.0.0.1:9" });
  }, 600_000);

  afterAll(async () => {
    await client?.close();
  });

  it("generates a tool for every operation", () => {
    expect(project.result.model.tools.length).toBeGreaterThan(900);
    expect(project.result.model.api.name).toBe("github-mcp");
  });

  it("answers tools/list with unique, valid names and object input schemas", async () => {
    const { tools } = await client.listTools();
    expect(tools.length).toBeGreaterThanOrEqual(project.result.model.tools.length);
    const names = tools.map((tool) => tool.name);
    expect(new Set(names).size).toBe(names.length);
    for (const tool of tools) {
      expect(tool.name).toMatch(TOOL_NAME_PATTERN);
      expect(tool.inputSchema.type).toBe("object");
      for (const key of Object.keys(tool.inputSchema.properties ?? {})) expect(key).toMatch(/^[a-zA-Z0-9_.-]{1,64}$/);
    }
    expect(names).toEqual(expect.arrayContaining(["repos_get", "issues_create", "pulls_list"]));
  });

  it("serves the same tools through discovery meta-tools when started with --tools discovery", async () => {
    const discovery = await connectStdio(project.dir, { GITHUB_BASE_URL: "http://127.0.0.1:9" }, [
      "--tools",
      "discovery",
    ]);
    try {
      const names = (await discovery.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(
        expect.arrayContaining(["search_operations", "describe_operation", "invoke_operation", "info"]),
      );
      expect(names.length).toBeLessThan(10);
      const found = await discovery.callTool({ name: "search_operations", arguments: { query: "create an issue" } });
      expect(JSON.stringify(found.structuredContent)).toContain("issues_create");
    } finally {
      await discovery.close();
    }
  });
});
