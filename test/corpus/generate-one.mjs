/**
 * Child process of the corpus run: generates one spec into one folder and
 * prints one JSON line describing the outcome. Exit codes: 0 generated,
 * 1 GeneratorError (a clean, located refusal), 3 anything else (a bug).
 * Run with --max-old-space-size; the parent enforces the time limit.
 */
import { generate } from "../../dist/src/generate.js";
import { GeneratorError } from "../../dist/src/diagnostics.js";

const [from, out] = process.argv.slice(2);
const started = performance.now();
const report = (fields) => {
  const { maxRSS } = process.resourceUsage();
  process.stdout.write(
    JSON.stringify({ ms: Math.round(performance.now() - started), maxRssMb: Math.round(maxRSS / 1024), ...fields }) +
      "\n",
  );
};

try {
  const result = await generate({ from, out, force: true, seed: 1 });
  report({
    status: "generated",
    tools: result.model.tools.length,
    handlers: result.model.tools.filter((tool) => tool.handler).length,
    warnings: result.diagnostics.filter((d) => d.severity === "warning").length,
    timings: result.timings,
  });
  process.exitCode = 0;
} catch (error) {
  if (error instanceof GeneratorError) {
    report({ status: "refused", message: error.message, where: error.where, problem: error.problem, fix: error.fix });
    process.exitCode = 1;
  } else {
    report({
      status: "crash",
      message: String(error?.stack ?? error)
        .split("\n")
        .slice(0, 8)
        .join("\n"),
    });
    process.exitCode = 3;
  }
}
