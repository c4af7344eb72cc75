// Spawn → complete tools/list on stdio, per protocol generation, for a bookshop-size API
// (samples/library-openapi31.yaml) and a GitHub-size one (@octokit/openapi), in per-operation
// and discovery modes:
//  - v2 Client pinned to 2026-07-28: connect (server/discover in a throwaway sibling process,
//    then the real one) + listTools (all pages);
//  - v1 Client (2025-11-25): spawn + initialize + listTools;
//  - raw JSON-RPC (no client-side work): 2025 initialize + tools/list (lib.mjs startupAndList).
// Median and best of 5 runs each (BENCH_RUNS to change), with the 1-minute load average at the end
// of each row: on a shared machine, numbers are only comparable at similar load.
//
//   npx tsc -p . && node test/bench/eras.mjs
//   BENCH_SPECS=github BENCH_MODES=per-operation node test/bench/eras.mjs   (a subset)
import { mkdtempSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as StdioV1 } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Client as ClientV2 } from "@modelcontextprotocol/client";
import { StdioClientTransport as StdioV2 } from "@modelcontextprotocol/client/stdio";
import { generate } from "../../dist/src/generate.js";
import { installDeps, percentile, REPO, startupAndList, table, typecheck } from "./lib.mjs";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const only = (list, variable, key) =>
  process.env[variable] ? list.filter((item) => process.env[variable].split(",").includes(key(item))) : list;
const SPECS = only(
  [
    { name: "bookshop", from: join(REPO, "samples/library-openapi31.yaml"), env: "BOOKSHOP" },
    { name: "github", from: join(REPO, "node_modules/@octokit/openapi/generated/api.github.com.json"), env: "GITHUB" },
  ],
  "BENCH_SPECS",
  (spec) => spec.name,
);
const MODES = only(["per-operation", "discovery"], "BENCH_MODES", (mode) => mode);

async function build(spec) {
  const dir = join(mkdtempSync(join(tmpdir(), "cgm-bench-eras-")), spec.name);
  await generate({ from: spec.from, out: dir, name: spec.name });
  installDeps(dir);
  const built = typecheck(dir);
  if (!built.ok) throw new Error(`${spec.name} does not compile:\n${built.output}`);
  const { spawnSync } = await import("node:child_process");
  spawnSync(process.execPath, [join(dir, "node_modules", "typescript", "bin", "tsc"), "-p", dir], { stdio: "inherit" });
  return dir;
}

async function withClient(makeClient, makeTransport) {
  const started = performance.now();
  const client = makeClient();
  await client.connect(makeTransport());
  const { tools } = await client.listTools();
  const ms = performance.now() - started;
  await client.close();
  return { ms, tools: tools.length };
}

const params = (entry, env) => ({
  command: process.execPath,
  args: [entry],
  env: { PATH: process.env.PATH, ...env },
  stderr: "ignore",
});
const ways = {
  "v2 pinned 2026-07-28": (entry, env) =>
    withClient(
      () => new ClientV2({ name: "bench", version: "1" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } }),
      () => new StdioV2(params(entry, env)),
    ),
  "v1 (2025-11-25)": (entry, env) =>
    withClient(
      () => new ClientV1({ name: "bench", version: "1" }),
      () => new StdioV1(params(entry, env)),
    ),
  "raw JSON-RPC (2025)": (entry, env) => startupAndList(entry, env),
};

const rows = [];
for (const spec of SPECS) {
  const dir = await build(spec);
  const entry = join(dir, "dist", "index.js");
  for (const mode of MODES) {
    const env = { [`${spec.env}_BASE_URL`]: "http://127.0.0.1:9", [`${spec.env}_TOOLS`]: mode };
    for (const [way, run] of Object.entries(ways)) {
      const results = [];
      for (let i = 0; i < RUNS; i++) results.push(await run(entry, env));
      const sorted = results.map((result) => result.ms).sort((a, b) => a - b);
      const median = percentile(sorted, 50).toFixed(0);
      rows.push([spec.name, mode, way, results[0].tools, median, sorted[0].toFixed(0), loadavg()[0].toFixed(1)]);
      process.stderr.write(`${rows.at(-1).join(" | ")}\n`);
    }
  }
}
console.log(table(["API", "mode", "client", "tools listed", "median ms", "best ms", "load"], rows));
