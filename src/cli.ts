/**
 * The command line: a thin layer over `generate()`. Exit codes: 0 success,
 * 1 bad input (the message names the file and location), 2 usage error.
 */
import { relative } from "node:path";
import yargs from "yargs";
import { hideBin } from "yargs/helpers";
import { formatDiagnostic, GeneratorError } from "./diagnostics.js";
import { generate, type GenerateOptions, type GenerateResult } from "./generate.js";

const EXIT_BAD_INPUT = 1;
const EXIT_USAGE = 2;
const MAX_LISTED_WARNINGS = 20;

export async function main(argv: string[] = hideBin(process.argv)): Promise<number> {
  let exitCode = 0;
  const parser = yargs(argv)
    .scriptName("create-guided-mcp")
    .usage("$0 --from <spec> [--out <dir>]\n\nGenerate a TypeScript MCP server whose tools guide agents to success.")
    .option("from", { type: "string", describe: "OpenAPI 2.0/3.0/3.1 or JSON Schema document: a file path or an http(s) URL", demandOption: "pass the API description with --from" })
    .option("out", { type: "string", describe: "Output folder (default ./<api-name>-mcp)" })
    .option("name", { type: "string", describe: "Server name (default: from info.title)" })
    .option("force", { type: "boolean", default: false, describe: "Write into a non-empty folder, and replace generated files you edited" })
    .option("dry-run", { type: "boolean", default: false, describe: "Print the tools and files without writing anything" })
    .option("templates", { type: "string", describe: "Folder whose files override the default templates with the same relative path" })
    .option("allow-remote-refs", { type: "boolean", default: false, describe: "Resolve $ref to http(s) URLs" })
    .option("allow-external-refs", { type: "boolean", default: false, describe: "Resolve $ref to files outside the spec's folder" })
    .option("quiet", { type: "boolean", default: false, describe: "Print only errors and the summary" })
    .example("$0 --from openapi.yaml", "Generate ./<api-name>-mcp from a local spec")
    .example("$0 --from https://petstore3.swagger.io/api/v3/openapi.json --out petstore-mcp", "Generate from a URL")
    .example("$0 --from openapi.yaml --dry-run", "List the tools and files that would be written")
    .example("$0 --from tools.schema.json --out my-tools", "JSON Schema input: tools whose handlers you write")
    .strict()
    .help()
    .version()
    .wrap(Math.min(110, process.stdout.columns ?? 100))
    .fail((message, error) => {
      if (error) throw error;
      process.stderr.write(`create-guided-mcp: ${message}\nRun create-guided-mcp --help for usage.\n`);
      exitCode = EXIT_USAGE;
    });

  const args = await parser.parseAsync();
  if (exitCode !== 0) return exitCode;
  if (!args.from) return EXIT_USAGE;

  const options: GenerateOptions = {
    from: args.from,
    ...(args.out ? { out: args.out } : {}),
    ...(args.name ? { name: args.name } : {}),
    force: args.force,
    dryRun: args["dry-run"],
    ...(args.templates ? { templatesDir: args.templates } : {}),
    allowRemoteRefs: args["allow-remote-refs"],
    allowExternalRefs: args["allow-external-refs"],
    onProgress: (message) => {
      if (!args.quiet) process.stderr.write(`  ${message}\n`);
    },
  };
  try {
    const result = await generate(options);
    process.stdout.write(summary(result, options));
    return 0;
  } catch (error) {
    if (error instanceof GeneratorError) {
      process.stderr.write(`create-guided-mcp: ${error.message}\n`);
      return EXIT_BAD_INPUT;
    }
    throw error;
  }
}

function summary(result: GenerateResult, options: GenerateOptions): string {
  const lines: string[] = [];
  const { model, write } = result;
  const out = relative(process.cwd(), write.outDir) || ".";
  if (options.dryRun) {
    lines.push(`Dry run: nothing written. ${model.tools.length} tools from ${model.api.title}:`);
    for (const tool of model.tools) {
      const route = tool.operation ? `${tool.operation.method.toUpperCase()} ${tool.operation.path}` : "handler";
      lines.push(`  ${tool.name.padEnd(40)} ${route}`);
    }
    lines.push(`Files (${out}):`);
    for (const entry of write.plan) lines.push(`  ${entry.action.padEnd(10)} ${entry.path}`);
  } else {
    lines.push(`Generated ${model.tools.length} tools for ${model.api.title} in ${out}`);
    const conflicts = write.plan.filter((entry) => entry.action === "conflict");
    for (const entry of conflicts) lines.push(`  kept your edit of ${entry.path}; the new version is ${entry.path}.new`);
  }
  const warnings = result.diagnostics;
  if (warnings.length > 0) {
    lines.push(`${warnings.length} warning(s):`);
    for (const diagnostic of warnings.slice(0, MAX_LISTED_WARNINGS)) lines.push(`  ${diagnostic.severity}: ${formatDiagnostic(diagnostic)}`);
    if (warnings.length > MAX_LISTED_WARNINGS) lines.push(`  … and ${warnings.length - MAX_LISTED_WARNINGS} more`);
  }
  if (!options.dryRun) {
    lines.push("Next:", `  cd ${out}`, "  npm install && npm run build", "  npm start            # stdio; or: npm start -- --transport http --port 3000");
    lines.push("  See README.md there for credentials and client configuration.");
  }
  return lines.join("\n") + "\n";
}
