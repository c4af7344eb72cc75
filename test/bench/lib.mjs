// Shared pieces of the benchmark scripts: timing child processes, a real MCP
// client, and a cached npm install per dependency set (as the tests use).
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

export const REPO = resolve(new URL("../..", import.meta.url).pathname);
export const CLI = join(REPO, "bin", "create-guided-mcp.js");

/** Runs a command under GNU time; returns wall seconds, peak RSS (MB) and the exit status. */
export function timed(command, args, options = {}) {
  const started = performance.now();
  const run = spawnSync("/usr/bin/time", ["-f", "%M", command, ...args], {
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
    ...options,
  });
  const seconds = (performance.now() - started) / 1000;
  const rssLine = run.stderr.trim().split("\n").pop() ?? "0";
  return { seconds, peakMb: Number(rssLine) / 1024, status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** One shared `npm install` per distinct dependency set, linked into the project. */
export function installDeps(projectDir) {
  const pkg = JSON.parse(readFileSync(join(projectDir, "package.json"), "utf8"));
  const deps = { dependencies: pkg.dependencies ?? {}, devDependencies: pkg.devDependencies ?? {} };
  const hash = createHash("sha256").update(JSON.stringify(deps)).digest("hex").slice(0, 12);
  const dir = join(REPO, ".cache", "generated-deps", hash);
  if (!existsSync(join(dir, ".installed"))) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "deps-cache", private: true, ...deps }, null, 2));
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"], {
      cwd: dir,
      stdio: "inherit",
    });
    writeFileSync(join(dir, ".installed"), "");
  }
  if (!existsSync(join(projectDir, "node_modules")))
    symlinkSync(join(dir, "node_modules"), join(projectDir, "node_modules"), "dir");
}

export function typecheck(projectDir) {
  const tsc = join(projectDir, "node_modules", "typescript", "bin", "tsc");
  if (!existsSync(tsc)) return { ok: false, seconds: 0, output: "no typescript in node_modules" };
  const started = performance.now();
  const run = spawnSync(process.execPath, [tsc, "-p", projectDir], { encoding: "utf8" });
  return {
    ok: run.status === 0,
    seconds: (performance.now() - started) / 1000,
    output: (run.stdout + run.stderr).slice(0, 2000),
  };
}

/**
 * Milliseconds from spawning the server to the complete tools/list answer,
 * over raw JSON-RPC on stdio: an SDK client would add its own time (it
 * compiles every output schema it receives) to the server's.
 */
export async function startupAndList(entry, env = {}, args = []) {
  const started = performance.now();
  const child = spawn(process.execPath, [entry, ...args], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ["pipe", "pipe", "ignore"],
  });
  const send = (message) => child.stdin.write(JSON.stringify(message) + "\n");
  send({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bench", version: "1" } },
  });
  send({ jsonrpc: "2.0", method: "notifications/initialized" });
  send({ jsonrpc: "2.0", id: 2, method: "tools/list", params: {} });
  // Chunks are collected and only scanned for the newline they bring: re-scanning a
  // growing 4 MB string on every 64 KB chunk would time the benchmark, not the server.
  let chunks = [];
  const answer = await new Promise((resolve, reject) => {
    child.stdout.on("data", (chunk) => {
      let start = 0;
      let newline;
      while ((newline = chunk.indexOf(10, start)) >= 0) {
        chunks.push(chunk.subarray(start, newline));
        const line = Buffer.concat(chunks).toString("utf8");
        chunks = [];
        start = newline + 1;
        const message = JSON.parse(line);
        if (message.id === 2) resolve({ message, bytes: Buffer.byteLength(line) });
      }
      if (start < chunk.length) chunks.push(chunk.subarray(start));
    });
    child.once("exit", (code) => reject(new Error(`server exited with ${code}`)));
  });
  const ms = performance.now() - started;
  child.kill();
  return { ms, bytes: answer.bytes, tools: answer.message.result.tools.length };
}

export function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export function table(headers, rows) {
  const lines = [`| ${headers.join(" | ")} |`, `| ${headers.map(() => "---").join(" | ")} |`];
  for (const row of rows) lines.push(`| ${row.join(" | ")} |`);
  return lines.join("\n");
}
