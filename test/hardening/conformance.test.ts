/**
 * Issue "The generated server under attack and fault", part 8: the official
 * MCP conformance suite (@modelcontextprotocol/conformance, pinned devDependency)
 * against the generated Petstore server's Streamable HTTP transport.
 *
 * Runs offline: the suite is a local client that only talks to the URL given.
 * Every server scenario the installed version knows is classified below, so a
 * new version with new scenarios fails here until someone decides whether
 * they apply.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/project.js";
import { startConformanceTarget, type ConformanceCheck, type ConformanceTarget, type HttpSession } from "./support.js";

const run = promisify(execFile);
const CLI = join(REPO_ROOT, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");

/** Scenarios that test what this server offers; each must pass. */
const APPLICABLE: Record<string, string> = {
  "server-initialize": "initialize handshake: protocol version, capabilities, serverInfo",
  ping: "ping",
  "tools-list": "tools/list: names, input schemas",
  "tools-call-error":
    "a failing tools/call is a result with isError and a text message (the suite calls a tool the server lacks, which our UNKNOWN_TOOL error answers)",
  "dns-rebinding-protection": "a localhost server refuses foreign Host/Origin headers",
};

/** Scenarios for features this server does not have, and why. */
const NOT_APPLICABLE: Record<string, string> = {
  "logging-set-level": "no `logging` capability: logs go to stderr, not to the client",
  "completion-complete":
    "no `completions` capability (completions are for prompt/resource arguments, which the server does not offer)",
  "tools-call-simple-text":
    "needs the suite's own `test_simple_text` tool; a generated server's tools come from the API description",
  "tools-call-image": "needs the suite's `test_image_content` tool",
  "tools-call-audio": "needs the suite's `test_audio_content` tool",
  "tools-call-embedded-resource": "needs the suite's `test_embedded_resource` tool",
  "tools-call-mixed-content": "needs the suite's `test_multiple_content_types` tool",
  "tools-call-with-logging": "needs the suite's `test_tool_with_logging` tool and the logging capability",
  "tools-call-with-progress":
    "needs the suite's `test_tool_with_progress` tool (progress is covered by the long-running operation tests)",
  "tools-call-sampling": "needs the suite's `test_sampling` tool; the server never asks the client for sampling",
  "tools-call-elicitation":
    "needs the suite's `test_elicitation` tool (elicitation for destructive calls is covered by the e2e tests)",
  "elicitation-sep1034-defaults": "needs the suite's elicitation test tool",
  "elicitation-sep1330-enums": "needs the suite's elicitation test tool",
  "json-schema-2020-12": "needs the suite's `json_schema_2020_12_tool` (pending suite)",
  "server-sse-multiple-streams":
    "needs sessions (Mcp-Session-Id) to open several SSE streams; this server is stateless by design (it only warns: no session id)",
  "server-sse-polling":
    "needs sessions and a resumable SSE stream; this server is stateless with JSON responses (pending suite)",
  "resources-list": "no resources capability",
  "resources-read-text": "no resources capability",
  "resources-read-binary": "no resources capability",
  "resources-templates-read": "no resources capability",
  "resources-subscribe": "no resources capability",
  "resources-unsubscribe": "no resources capability",
  "prompts-list": "no prompts capability",
  "prompts-get-simple": "no prompts capability",
  "prompts-get-with-args": "no prompts capability",
  "prompts-get-embedded-resource": "no prompts capability",
  "prompts-get-with-image": "no prompts capability",
};

let target: ConformanceTarget | undefined;
let server: HttpSession;
const output = mkdtempSync(join(tmpdir(), "cgm-conformance-"));

beforeAll(async () => {
  target = await startConformanceTarget();
  server = target.server;
}, 600_000);

afterAll(async () => {
  await target?.stop();
});

describe("MCP conformance suite against the generated server (Streamable HTTP)", () => {
  it("classifies every server scenario of the installed suite", async () => {
    const { stdout } = await run(process.execPath, [CLI, "list", "--server"]);
    const scenarios = [...stdout.matchAll(/^\s+- (\S+)/gm)].map((match) => match[1]!);
    expect(scenarios.length).toBeGreaterThan(10);
    const unclassified = scenarios.filter((name) => !(name in APPLICABLE) && !(name in NOT_APPLICABLE));
    expect(unclassified, "new conformance scenarios: decide whether they apply").toEqual([]);
  });

  it.each(Object.keys(APPLICABLE))("passes %s", async (scenario) => {
    const dir = join(output, scenario);
    const result = await run(
      process.execPath,
      [CLI, "server", "--url", server.url, "--scenario", scenario, "-o", dir],
      { timeout: 60_000 },
    ).catch((error: { code?: number; stdout?: string; stderr?: string }) => ({
      failed: error.code ?? 1,
      stdout: error.stdout ?? "",
      stderr: error.stderr ?? "",
    }));
    const [resultDir] = readdirSync(dir);
    const checks = JSON.parse(readFileSync(join(dir, resultDir!, "checks.json"), "utf8")) as ConformanceCheck[];
    const failures = checks.filter((check) => check.status !== "SUCCESS" && check.status !== "INFO");
    expect(failures, JSON.stringify(failures, null, 2)).toEqual([]);
    expect("failed" in result ? result : undefined, "the conformance CLI exited non-zero").toBeUndefined();
    expect(checks.length).toBeGreaterThan(0);
    expect(server.process.exitCode).toBeNull();
  });
});
