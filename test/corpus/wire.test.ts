/**
 * Issue 9: every request reaches the API exactly as the spec defines it.
 * For each spec: up to 20 tools, each called through a real MCP client with
 * arguments we generate (not the server's examples), the request captured at
 * a loopback upstream and judged by openapi-backend against the original
 * operation (see wire.ts). Also: every value the caller gave is on the wire,
 * each configured credential is sent at most once (exactly once where the
 * spec declared it as a parameter), no tool asks for a credential, and after
 * an auto-correction the corrected value is what is sent.
 *
 * `npm test` runs a fast subset; `CGM_WIRE_FULL=1` (npm run corpus) runs
 * 300+ specs and writes `.cache/corpus/wire.json`.
 */
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Diagnostic, SecuritySchemeData, ToolData } from "../../src/model/ir.js";
import { DIRECTORY_ROOT, sampleDirectorySpecs, specLabel } from "../helpers/corpus.js";
import {
  basePathOf,
  callAndCapture,
  connect,
  credentialCounts,
  credentialEnv,
  Judge,
  loadOriginal,
  missingValues,
  modelFrom,
  sampleTools,
  startCaptureUpstream,
  type CaptureUpstream,
  synthesiseArguments,
  toolsFileFor,
  type CallReport,
  type SpecReport,
} from "./wire.js";

const FULL = process.env["CGM_WIRE_FULL"] === "1";
const GITHUB = createRequire(import.meta.url).resolve("@octokit/openapi/generated/api.github.com.json");
/** Always judged: the APIs whose requests went wrong before (fragments, credentials) and the best-known ones. */
const NAMED = [
  "amazonaws.com/s3.json",
  "amazonaws.com/ec2.json",
  "amazonaws.com/ivschat.json",
  "amazonaws.com/application-autoscaling.json",
  "googleapis.com/drive.json",
  "googleapis.com/calendar.json",
  "azure.com/apimanagement-apimapis.json",
  "trello.com.json",
  "stripe.com.json",
].map((name) => join(DIRECTORY_ROOT, name));
/** Tools that must be in the sample of their spec. */
const ALWAYS = ["abort_multipart_upload", "get_bucket_tagging", "untag_resource", "describe_scaling_policies"];

const ONLY = (process.env["CGM_WIRE_ONLY"] ?? "").split(",").filter(Boolean);
const SAMPLE = [
  ...new Set([
    ...NAMED,
    GITHUB,
    ...(FULL ? sampleDirectorySpecs(300, { offset: 0 }) : sampleDirectorySpecs(10, { maxBytes: 300_000, offset: 11 })),
  ]),
];
/** `CGM_WIRE_ONLY=a.json,b.json` re-runs just those specs of the sample. */
const SPECS = ONLY.length > 0 ? SAMPLE.filter((path) => ONLY.some((text) => label(path).includes(text))) : SAMPLE;
const reports: SpecReport[] = [];
let upstream: CaptureUpstream;

beforeAll(async () => {
  mkdirSync(join(process.cwd(), ".cache", "corpus"), { recursive: true });
  upstream = await startCaptureUpstream();
});
afterAll(async () => {
  await upstream?.close();
  writeSummary();
});

function label(path: string): string {
  return path === GITHUB ? "@octokit/openapi api.github.com.json" : specLabel(path);
}

/** A located generation warning on this operation: the documented reason it cannot be called faithfully. */
function excuse(tool: ToolData, diagnostics: Diagnostic[]): string | undefined {
  const pathItem = tool.pointer.slice(0, tool.pointer.lastIndexOf("/"));
  const located = (pointer: string) =>
    pointer === tool.pointer || pointer.startsWith(`${tool.pointer}/`) || pointer.startsWith(`${pathItem}/parameters/`);
  const found = diagnostics.find(
    (diagnostic) =>
      diagnostic.severity === "warning" &&
      located(diagnostic.pointer) &&
      /cannot be called faithfully/.test(diagnostic.message),
  );
  return found && `${found.pointer}: ${found.message}`;
}

/** Parameters of the original operation that duplicate an apiKey scheme (same name and location) must not be tool arguments. */
function credentialArguments(tool: ToolData, schemes: SecuritySchemeData[]): string[] {
  return (tool.operation?.parameters ?? [])
    .filter((parameter) =>
      schemes.some(
        (scheme) => scheme.kind === "apiKey" && scheme.in === parameter.in && scheme.parameterName === parameter.name,
      ),
    )
    .map((parameter) => `${parameter.in} ${parameter.name}`);
}

/** A misspelt optional argument name and a number sent as text: the server corrects both, and the corrected value must be sent. */
function corrupt(tool: ToolData, args: Record<string, unknown>): Record<string, unknown> | undefined {
  const required = new Set((tool.inputSchema.required as string[] | undefined) ?? []);
  const properties = Object.keys((tool.inputSchema.properties ?? {}) as object);
  const key = Object.keys(args).find(
    (name) => !required.has(name) && name.length >= 6 && /^[a-z_]+$/i.test(name) && typeof args[name] !== "object",
  );
  const numeric = Object.keys(args).find((name) => typeof args[name] === "number");
  if (!key && !numeric) return undefined;
  const result: Record<string, unknown> = { ...args };
  if (numeric) result[numeric] = String(args[numeric]);
  if (key) {
    const at = Math.floor(key.length / 2);
    const typo = key.slice(0, at) + key[at + 1] + key[at] + key.slice(at + 2);
    if (typo !== key && !properties.includes(typo)) {
      delete result[key];
      result[typo] = args[key];
    }
  }
  return result;
}

describe(`wire contract over ${SPECS.length} specs (${FULL ? "full" : "fast subset"})`, () => {
  it.each(SPECS.map((path) => [label(path), path] as const))(
    "%s",
    async (name, path) => {
      const report: SpecReport = { spec: name, tools: 0, calls: [], corrections: { sent: 0, missing: 0 } };
      reports.push(report);
      // Deeper input schemas than the default, so our arguments are constrained (and valid) as deep as the spec is.
      const model = await modelFrom(path, { inputDepth: 24 });
      const sample = sampleTools(model.tools, undefined, ALWAYS);
      const { file, diagnostics } = toolsFileFor(model, sample);
      report.tools = file.tools.length;
      const env = { ...credentialEnv(file.api.securitySchemes) };
      const runEnv = { ...env, [file.api.baseUrlEnv]: `${upstream.url}${basePathOf(file.api.baseUrl)}` };
      const client = await connect(file, runEnv);
      const judge = new Judge(loadOriginal(path));
      try {
        for (const tool of file.tools)
          report.calls.push(
            await judgeTool(tool, client, judge, env, file, [...model.diagnostics, ...diagnostics], report),
          );
      } finally {
        await client.close();
      }
      if (FULL)
        appendFileSync(
          join(process.cwd(), ".cache", "corpus", "wire-progress.log"),
          `${new Date().toISOString()} ${name} ${report.calls.length} tools\n`,
        );
      const failed = report.calls.filter(
        (call) => (call.problems.length > 0 || call.missing.length > 0) && !call.excusedBy,
      );
      expect(report.calls.flatMap((call) => call.missing.map((value) => `${call.tool}: ${value}`))).toEqual([]);
      expect(failed.map((call) => `${call.tool} (${call.operation}): ${call.problems.join("; ")}`)).toEqual([]);
      expect(report.corrections.missing).toBe(0);
    },
    600_000,
  );
});

describe("the requests issue 9 found wrong", () => {
  it("S3 abort_multipart_upload sends DELETE /{Bucket}/{Key}?uploadId=…, never DeleteObject", async () => {
    const path = join(DIRECTORY_ROOT, "amazonaws.com/s3.json");
    const model = await modelFrom(path);
    const { file } = toolsFileFor(
      model,
      model.tools.filter((tool) => ["abort_multipart_upload", "get_bucket_tagging"].includes(tool.name)),
    );
    const client = await connect(file, {
      ...credentialEnv(file.api.securitySchemes),
      [file.api.baseUrlEnv]: upstream.url,
    });
    try {
      const abort = await callAndCapture(client, upstream, "abort_multipart_upload", {
        Bucket: "joL",
        Key: "Svt",
        uploadId: "pv0up",
      });
      expect(abort.requests.map((request) => `${request.method} ${request.rawUrl}`)).toEqual([
        "DELETE /joL/Svt?uploadId=pv0up",
      ]);
      const tagging = await callAndCapture(client, upstream, "get_bucket_tagging", { Bucket: "joL", tagging: true });
      expect(tagging.requests.map((request) => `${request.method} ${request.rawUrl}`)).toEqual([
        "GET /joL?tagging=true",
      ]);
    } finally {
      await client.close();
    }
  });

  it.each([
    ["trello.com.json", ["key", "token"]],
    ["googleapis.com/drive.json", ["key"]],
  ])("%s: every tool sends each configured credential exactly once and asks for none", async (spec, names) => {
    const path = join(DIRECTORY_ROOT, spec);
    const model = await modelFrom(path);
    const { file } = toolsFileFor(model, sampleTools(model.tools));
    const env = credentialEnv(file.api.securitySchemes);
    const client = await connect(file, {
      ...env,
      [file.api.baseUrlEnv]: `${upstream.url}${basePathOf(file.api.baseUrl)}`,
    });
    const configured = (name: string) => {
      const scheme = file.api.securitySchemes.find(
        (candidate) => candidate.kind === "apiKey" && candidate.in === "query" && candidate.parameterName === name,
      );
      return scheme?.kind === "apiKey" ? env[scheme.env] : undefined;
    };
    try {
      for (const tool of file.tools) {
        for (const name of [...names, "access_token", "oauth_token"]) {
          expect(
            tool.operation?.parameters.some((parameter) => parameter.in === "query" && parameter.name === name),
            `${tool.name} asks for ${name}`,
          ).toBe(false);
        }
        const { requests } = await callAndCapture(client, upstream, tool.name, synthesiseArguments(tool)!);
        expect(requests, tool.name).toHaveLength(1);
        for (const name of names)
          expect(requests[0]!.query.getAll(name), `${tool.name} ${name}`).toEqual([configured(name)]);
        if (spec.startsWith("googleapis"))
          expect(requests[0]!.headers.authorization, tool.name).toMatch(/^Bearer cfg-/);
      }
    } finally {
      await client.close();
    }
  });
});

async function judgeTool(
  tool: ToolData,
  client: Awaited<ReturnType<typeof connect>>,
  judge: Judge,
  env: Record<string, string>,
  file: Awaited<ReturnType<typeof toolsFileFor>>["file"],
  diagnostics: Diagnostic[],
  report: SpecReport,
): Promise<CallReport> {
  const original = judge.operationFor(tool);
  const call: CallReport = {
    tool: tool.name,
    operation: `${original.method.toUpperCase()} ${original.key}`,
    problems: [],
    missing: [],
  };
  call.problems.push(
    ...credentialArguments(tool, file.api.securitySchemes).map((where) => `the ${where} credential is a tool argument`),
  );
  const args = synthesiseArguments(tool);
  if (!args) return { ...call, skipped: "no valid argument object could be generated" };
  const { requests, result } = await callAndCapture(client, upstream, tool.name, args);
  if (requests.length !== 1) {
    const text =
      result?.content
        ?.map((part) => ("text" in part ? part.text : ""))
        .join(" ")
        .slice(0, 300) ?? "";
    return { ...call, skipped: `${requests.length} requests sent: ${text}` };
  }
  const request = requests[0]!;
  call.problems.push(...(await judge.judge(original, request, basePathOf(file.api.baseUrl), tool)));
  call.missing = await missingValues(args, request);
  const counts = credentialCounts(request, env);
  for (const [variable, count] of Object.entries(counts))
    if (count > 1) call.problems.push(`credential ${variable} sent ${count} times`);
  for (const { scheme: schemeName } of tool.operation?.credentialParameters ?? []) {
    const scheme = file.api.securitySchemes.find((candidate) => candidate.name === schemeName);
    if (scheme && scheme.kind !== "basic" && counts[scheme.env] !== 1)
      call.problems.push(`credential ${scheme.env} sent ${counts[scheme.env]} times, expected once`);
  }
  const excusedBy = excuse(tool, diagnostics);
  if (excusedBy) call.excusedBy = excusedBy;

  const corrupted = corrupt(tool, args);
  if (corrupted) {
    const { requests: after } = await callAndCapture(client, upstream, tool.name, corrupted);
    if (after.length === 1) {
      report.corrections.sent++;
      const missing = await missingValues(args, after[0]!);
      if (missing.length > 0) {
        report.corrections.missing++;
        call.problems.push(`after auto-correction, ${missing.join(", ")} not sent`);
      }
    }
  }
  return call;
}

function writeSummary(): void {
  const calls = reports.flatMap((report) => report.calls);
  const judged = calls.filter((call) => !call.skipped);
  const failed = judged.filter((call) => call.problems.length > 0 || call.missing.length > 0);
  const summary = {
    mode: FULL ? "full" : "subset",
    specs: reports.length,
    tools: calls.length,
    judged: judged.length,
    skipped: calls.length - judged.length,
    failed: failed.length,
    excused: failed.filter((call) => call.excusedBy).length,
    missingValues: judged.reduce((sum, call) => sum + call.missing.length, 0),
    corrections: reports.reduce((sum, report) => sum + report.corrections.sent, 0),
    correctionsMissing: reports.reduce((sum, report) => sum + report.corrections.missing, 0),
  };
  const dir = join(process.cwd(), ".cache", "corpus");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, `${FULL ? "wire" : "wire-subset"}${ONLY.length > 0 ? "-only" : ""}.json`),
    JSON.stringify({ summary, reports }, null, 2),
  );
  console.log(`wire contract: ${JSON.stringify(summary)}`);
}
