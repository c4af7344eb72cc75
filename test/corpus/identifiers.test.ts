/**
 * Issue 13 §6: missing identifiers healed through `next_steps`. On the six
 * corpus specs, for each tool with a required identifier that some operation
 * produces: drop it from the tool's valid example, call the tool (real runtime
 * behind a real SDK client, local upstream), follow the error's `next_steps`
 * like a naive agent (at most two calls that carry a `take`, the value at the
 * previous step's `take` replacing "$via"), then retry with the value taken.
 *
 * The local upstream answers every call with a body holding a real-looking id
 * at the pointer the calls' `take` names (what a list/create answer carries):
 * this measures whether the offered calls are complete, valid and ordered, and
 * whether the retry then passes; not the upstream's real shapes.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { CallToolResultSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toToolData } from "../../src/emit/index.js";
import { addGuidance } from "../../src/guidance/index.js";
import { compileInputValidators } from "../../src/model/validators.js";
import { createServer as createMcpServer } from "../../templates/server/src/runtime/mcp/server.js";
import type { ToolData, ToolMode, ToolsFile } from "../../templates/server/src/runtime/shared/tool-data.js";
import { GUIDANCE_CORPUS_SPECS } from "../helpers/corpus.js";
import { modelFrom } from "../helpers/pipeline.js";
import { json, startUpstream, type Upstream } from "../helpers/upstream.js";
import { at, replaceVia } from "../helpers/agent.js";

const SPECS = GUIDANCE_CORPUS_SPECS;
const MODES: ToolMode[] = ["per-operation", "discovery"];
const tally = new Map<string, { cases: number; healed: number }>();

let upstream: Upstream;
/** What the upstream answers next. */
let answer: unknown = {};
beforeAll(async () => {
  upstream = await startUpstream();
  for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"])
    upstream.route(method, /.*/, (_req, res) => json(res, 200, answer));
});
afterAll(async () => {
  await upstream.close();
  const rows = [...tally].map(
    ([key, t]) => `| ${key} | ${t.cases} | ${t.healed} | ${((100 * t.healed) / t.cases).toFixed(1)}% |`,
  );
  console.log(
    ["| spec · mode | missing identifiers | healed in ≤ 2 calls | share |", "| --- | --- | --- | --- |", ...rows].join(
      "\n",
    ),
  );
  // The floor: ≥ 90% healed within two calls, in each mode (only when the whole corpus ran).
  for (const mode of MODES) {
    const rowsOfMode = [...tally].filter(([key]) => key.endsWith(` · ${mode}`)).map(([, t]) => t);
    if (rowsOfMode.length < SPECS.length) continue;
    const cases = rowsOfMode.reduce((sum, t) => sum + t.cases, 0);
    const healed = rowsOfMode.reduce((sum, t) => sum + t.healed, 0);
    console.log(`${mode}: ${healed}/${cases} healed (${((100 * healed) / cases).toFixed(1)}%)`);
    expect(healed / cases).toBeGreaterThanOrEqual(0.9);
  }
});

/** A body whose value at `pointer` is `value` (arrays where the token is an index). */
function bodyAt(pointer: string, value: unknown): unknown {
  const tokens = pointer
    .split("/")
    .slice(1)
    .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
  let out: unknown = value;
  for (const token of tokens.reverse())
    out = /^\d+$/.test(token) ? Object.assign(new Array(Number(token) + 1).fill(out), []) : { [token]: out };
  return out;
}

const exampleOf = (tool: ToolData | undefined, arg: string): unknown =>
  tool?.guidance.examples?.full[arg] ?? tool?.guidance.examples?.minimal[arg] ?? "id_1";

async function connect(file: ToolsFile, mode: ToolMode): Promise<Client> {
  // Every credential configured, as a deployed server has them.
  const credentials = file.api.securitySchemes.flatMap((s) => ("env" in s ? [s.env] : [s.usernameEnv, s.passwordEnv]));
  const env = {
    ...Object.fromEntries(credentials.map((name) => [name, "test-credential"])),
    [file.api.baseUrlEnv]: upstream.url,
  };
  const server = createMcpServer(file, { env, toolMode: mode, confirmDestructive: false, log: () => {} });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: "identifiers-corpus", version: "1.0.0" });
  await client.connect(clientTransport);
  return client;
}

const shaped = (mode: ToolMode, name: string, params: Record<string, unknown>) =>
  mode === "discovery" ? { name: "invoke_operation", arguments: { name, params } } : { name, arguments: params };

async function call(
  client: Client,
  request: { name: string; arguments: Record<string, unknown> },
): Promise<CallToolResult> {
  return (await client.callTool(request, CallToolResultSchema)) as CallToolResult;
}

/** One missing-identifier case: true when the retry with the value taken succeeds. */
async function heals(
  client: Client,
  mode: ToolMode,
  tool: ToolData,
  field: string,
  byName: Map<string, ToolData>,
): Promise<boolean> {
  const { [field]: _dropped, ...args } = tool.guidance.examples!.full;
  const failed = await call(client, shaped(mode, tool.name, args));
  const error = (failed.structuredContent as { error?: { next_steps?: unknown[] } } | undefined)?.error;
  const steps = (error?.next_steps ?? []).filter(
    (s): s is { tool: string; params: Record<string, unknown>; take: string } =>
      typeof s === "object" && s !== null && typeof (s as { take?: unknown }).take === "string",
  );
  const debug = (what: string, value: unknown) =>
    process.env["DEBUG_HEAL"] && console.log(tool.name, field, what, JSON.stringify(value).slice(0, 700));
  if (!failed.isError || steps.length === 0) return (debug("no steps", failed.structuredContent), false);
  let taken: unknown;
  const chain = steps.slice(0, 2);
  for (const [i, step] of chain.entries()) {
    const last = i === chain.length - 1;
    // The upstream answers with an id of the kind the next call needs.
    const producer = tool.guidance.producers![field]![0]!;
    const viaArg = Object.keys(producer.params).find((k) => producer.params[k] === "$via");
    answer = bodyAt(step.take, last ? exampleOf(tool, field) : exampleOf(byName.get(producer.tool), viaArg ?? field));
    const result = await call(client, {
      name: step.tool,
      arguments: replaceVia(step.params, taken) as Record<string, unknown>,
    });
    if (result.isError) return (debug("step failed", result.structuredContent), false);
    const content = result.structuredContent as Record<string, unknown>;
    taken = at(content["data"] ?? content["unvalidated_data"], step.take);
  }
  answer = {};
  const retried = await call(client, shaped(mode, tool.name, { ...args, [field]: taken }));
  if (retried.isError) debug("retry failed", retried.structuredContent);
  return !retried.isError;
}

describe("missing identifiers healed through next_steps over real specs", () => {
  it.each(SPECS.map((spec) => [spec.split("/").slice(-2).join("/"), spec]))(
    "%s",
    async (label, spec) => {
      const model = await modelFrom(spec);
      const guided = addGuidance(model, { seed: 1, validators: compileInputValidators(model) });
      const file: ToolsFile = { api: guided.api, tools: guided.tools.map(toToolData) } as ToolsFile;
      const byName = new Map(file.tools.map((t) => [t.name, t]));
      for (const mode of MODES) {
        const client = await connect(file, mode);
        const t = { cases: 0, healed: 0 };
        for (const tool of file.tools) {
          if (!tool.guidance.examples) continue;
          const required = (tool.inputSchema["required"] as string[] | undefined) ?? [];
          for (const field of required) {
            if (!tool.guidance.producers?.[field]?.length || !(field in tool.guidance.examples.full)) continue;
            t.cases++;
            if (await heals(client, mode, tool, field, byName)) t.healed++;
          }
        }
        tally.set(`${label} · ${mode}`, t);
        await client.close();
      }
      expect(tally.get(`${label} · per-operation`)!.cases).toBeGreaterThan(0);
    },
    600_000,
  );
});
