/**
 * The command line: a thin layer over `generate()`. Exit codes: 0 success,
 * 1 bad input (the message names the file and location) or, with --check, a
 * stale project; 2 usage error; 130 prompts cancelled (Ctrl-C).
 *
 * Without a spec, a person at a terminal is asked for it (see interactive.ts);
 * with a spec on the command line, flags and defaults apply and nothing is asked.
 */
import { cpSync, existsSync, readdirSync } from "node:fs";
import { relative, resolve } from "node:path";
import yargs, { type Argv } from "yargs";
import { hideBin } from "yargs/helpers";
import { GeneratorError } from "./diagnostics.js";
import { parseShipList, REGISTRY_NAME_PATTERN, SHIP_TARGETS, type ShipTarget } from "./emit/ship.js";
import { DEFAULT_TEMPLATES } from "./emit/template-files.js";
import { isEmptyFilter, parseList, type ToolFilter } from "../templates/server/src/runtime/shared/filter.js";
import type { ToolMode } from "../templates/server/src/runtime/shared/tool-data.js";
import { DEFAULT_AUTO_THRESHOLD } from "../templates/server/src/runtime/config/settings.js";
import { generate, generatorVersion, regenerationOptions, type GenerateOptions } from "./generate.js";
import type { askMissing } from "./interactive.js";
import { detectPackageManager, installAndBuild, type PackageManager } from "./install.js";
import { summary } from "./cli-summary.js";

const EXIT_BAD_INPUT = 1;
const EXIT_STALE = 1;
const EXIT_USAGE = 2;
const EXIT_CANCELLED = 130;

class UsageError extends Error {}

type CommonArgs = {
  tools?: ToolMode | undefined;
  "include-tags"?: string | undefined;
  "exclude-tags"?: string | undefined;
  "include-ops"?: string | undefined;
  "exclude-ops"?: string | undefined;
  methods?: string | undefined;
  "read-only": boolean;
  force: boolean;
  "dry-run": boolean;
  check: boolean;
  templates: string | undefined;
  "allow-remote-refs": boolean;
  "allow-external-refs": boolean;
  quiet: boolean;
  ship?: string | undefined;
  "mcp-name"?: string | undefined;
  "forward-authorization"?: boolean | undefined;
};

function commonOptions<T>(args: Argv<T>) {
  return args
    .option("force", {
      type: "boolean",
      default: false,
      describe: "Write into a non-empty folder, and replace generated files you edited",
    })
    .option("dry-run", {
      type: "boolean",
      default: false,
      describe: "Print the tools, files and change report without writing anything",
    })
    .option("check", {
      type: "boolean",
      default: false,
      describe: "Exit 1 if the project is stale against the spec (for CI); writes nothing",
    })
    .option("templates", {
      type: "string",
      describe: "Folder whose files override the default templates with the same relative path",
    })
    .option("allow-remote-refs", { type: "boolean", default: false, describe: "Resolve $ref to http(s) URLs" })
    .option("allow-external-refs", {
      type: "boolean",
      default: false,
      describe: "Resolve $ref to files outside the spec's folder",
    })
    .option("quiet", { type: "boolean", default: false, describe: "Print only errors and the summary" })
    .option("tools", {
      choices: ["per-operation", "dispatch", "discovery", "auto"] as const,
      describe: "How tools are exposed (default auto: per-operation up to 40 tools, discovery above)",
    })
    .option("include-tags", { type: "string", describe: "Only operations with one of these tags (comma-separated)" })
    .option("exclude-tags", { type: "string", describe: "Leave out operations with any of these tags" })
    .option("include-ops", {
      type: "string",
      describe: "Only operations whose tool name or operationId matches one of these globs",
    })
    .option("exclude-ops", { type: "string", describe: "Leave out operations matching any of these globs" })
    .option("methods", { type: "string", describe: "Only these HTTP methods, e.g. get,post" })
    .option("read-only", { type: "boolean", default: false, describe: "Only safe methods (GET/HEAD/OPTIONS)" })
    .option("mcp-name", {
      type: "string",
      describe: "MCP Registry name for server.json and package.json mcpName, e.g. io.github.you/petstore-mcp",
    })
    .option("forward-authorization", {
      type: "boolean",
      describe:
        "HTTP transport: send each MCP request's bearer token upstream as Authorization, so every user acts as themselves (off by default; read the README's warning)",
    })
    .option("ship", {
      type: "string",
      describe: `Distribution files to generate: a comma-separated list of ${SHIP_TARGETS.join(", ")}, or all (default), or none`,
    });
}

export async function main(argv: string[] = hideBin(process.argv)): Promise<number> {
  let exitCode: number | undefined;
  const run = (task: () => Promise<number>) => async () => {
    exitCode = await task();
  };

  const parser = yargs(argv)
    .scriptName("create-guided-mcp")
    .usage("Generate a TypeScript MCP server whose tools guide agents to success.")
    .command(
      "$0 [spec]",
      "Generate a project from an API description (or update an earlier generation)",
      (args) =>
        commonOptions(args)
          .positional("spec", { type: "string", describe: "The API description (same as --from)" })
          .option("from", {
            type: "string",
            describe: "OpenAPI 2.0/3.0/3.1 or JSON Schema document: a file path or an http(s) URL",
          })
          .option("out", { type: "string", describe: "Output folder (default ./<api-name>-mcp)" })
          .option("name", { type: "string", describe: "Server name (default: from info.title)" })
          .option("yes", {
            alias: "y",
            type: "boolean",
            default: false,
            describe:
              "Never prompt; missing inputs are a usage error (also without a terminal, with CI set, or under an AI agent)",
          })
          .option("install", {
            type: "boolean",
            describe: "Install dependencies and build with the package manager that ran this (default when prompting)",
          })
          .option("skip-install", { type: "boolean", default: false, describe: "Do not install or build" }),
      (args) => run(() => runFirst(args))(),
    )
    .command(
      "regenerate [dir]",
      "Regenerate an existing project from its spec with the options it was made with",
      (args) =>
        commonOptions(args)
          .positional("dir", { type: "string", default: ".", describe: "The generated project" })
          .option("from", { type: "string", describe: "Use this spec instead of the recorded one" }),
      (args) =>
        run(async () => {
          const recorded = await regenerationOptions(args.dir);
          return runGenerate({
            ...recorded,
            ...(args.from ? { from: args.from } : {}),
            ...commonGenerateOptions(args),
            ...(args.templates ? {} : recorded.templatesDir ? { templatesDir: recorded.templatesDir } : {}),
          });
        })(),
    )
    .command(
      "templates <action>",
      "Work with the templates: `eject` copies the defaults out for editing",
      (args) =>
        args.positional("action", { choices: ["eject"] as const, describe: "What to do" }).option("out", {
          type: "string",
          default: "./guided-mcp-templates",
          describe: "Where to copy the default templates",
        }),
      (args) => run(async () => ejectTemplates(args.out))(),
    )
    .example("$0", "In a terminal: asks for the spec, folder and tool mode, then installs and builds")
    .example("$0 openapi.yaml", "Generate ./<api-name>-mcp from a local spec")
    .example("$0 --from https://example.com/openapi.json --out petstore-mcp", "Generate from a URL")
    .example("$0 --from openapi.yaml --dry-run", "List the tools and files that would be written")
    .example("$0 --from tools.schema.json --out my-tools", "JSON Schema input: tools whose handlers you write")
    .example("$0 regenerate ./petstore-mcp --check", "In CI: fail if the project is stale against its spec")
    .example(
      "$0 templates eject --out my-templates",
      "Copy the templates out, edit them, then pass --templates my-templates",
    )
    .strict()
    .help()
    // Our own version: yargs' default reads the nearest package.json above the working directory (a user's project).
    .version(generatorVersion())
    .wrap(Math.min(110, process.stdout.columns ?? 100))
    .fail((message, error) => {
      if (error) throw error;
      // Throwing stops yargs from running the command's handler after a usage error.
      throw new UsageError(message);
    });

  skipHelpCache(parser);
  try {
    await parser.parseAsync();
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`create-guided-mcp: ${error.message}\nRun create-guided-mcp --help for usage.\n`);
      return EXIT_USAGE;
    }
    if (error instanceof GeneratorError) {
      process.stderr.write(`create-guided-mcp: ${error.message}\n`);
      return EXIT_BAD_INPUT;
    }
    throw error;
  }
  return exitCode ?? 0;
}

/**
 * After the handler of a command other than the default one (`regenerate`), yargs renders the whole help text and
 * keeps it in case the handler asks to show it (≈ 15–20 ms, more than a warm regeneration's guidance stage); ours
 * never do, and `--help` renders its own. Through yargs' internal methods, so a yargs without them changes nothing.
 */
function skipHelpCache(parser: Argv): void {
  type Usage = { cacheHelpMessage?: () => void };
  const internal = parser as unknown as { getInternalMethods?: () => { getUsageInstance?: () => Usage | undefined } };
  const usage = internal.getInternalMethods?.().getUsageInstance?.();
  if (usage && typeof usage.cacheHelpMessage === "function") usage.cacheHelpMessage = () => {};
}

type FirstRunArgs = CommonArgs & {
  spec?: string | undefined;
  from?: string | undefined;
  out?: string | undefined;
  name?: string | undefined;
  yes: boolean;
  install?: boolean | undefined;
  "skip-install": boolean;
};

/** The default command: flags as given, or prompts for a person who gave no spec. */
async function runFirst(args: FirstRunArgs): Promise<number> {
  if (args.spec && args.from && args.spec !== args.from)
    throw new UsageError(`the spec is given twice (${args.spec} and --from ${args.from}); pass it once`);
  if (args.install && args["skip-install"])
    throw new UsageError("--install and --skip-install contradict each other; pass one");
  const manager = detectPackageManager(process.env.npm_config_user_agent);
  const explicitInstall = args["skip-install"] ? false : args.install;
  let from = args.from ?? args.spec;
  let prompted: Awaited<ReturnType<typeof askMissing>> | undefined;
  if (!from) {
    // The prompts library loads only for a person at a terminal who gave no spec.
    const { askMissing, currentPromptContext, PromptCancelled, whyNotInteractive } = await import("./interactive.js");
    const why = whyNotInteractive(currentPromptContext(args.yes));
    if (why)
      throw new UsageError(
        `Missing required argument: from\npass the API description as the first argument or with --from (no prompts: ${why})`,
      );
    try {
      prompted = await askMissing(
        {
          out: args.out,
          toolMode: args.tools,
          install: explicitInstall,
          name: args.name,
          allowRemoteRefs: args["allow-remote-refs"],
          allowExternalRefs: args["allow-external-refs"],
        },
        DEFAULT_AUTO_THRESHOLD,
        manager,
      );
    } catch (error) {
      if (error instanceof PromptCancelled) return EXIT_CANCELLED;
      throw error;
    }
    from = prompted.from;
  }
  const out = prompted?.out ?? args.out;
  const toolMode = prompted?.toolMode ?? args.tools;
  const options: GenerateOptions = {
    from,
    ...(out ? { out } : {}),
    ...(args.name ? { name: args.name } : {}),
    ...commonGenerateOptions({ ...args, tools: toolMode, quiet: args.quiet || prompted !== undefined }),
  };
  const install = (prompted?.install ?? explicitInstall ?? false) && !options.dryRun && !options.check;
  return runGenerate(options, install ? manager : undefined);
}

function commonGenerateOptions(args: CommonArgs): Omit<GenerateOptions, "from"> {
  const filter: ToolFilter = {
    ...listOption("includeTags", args["include-tags"]),
    ...listOption("excludeTags", args["exclude-tags"]),
    ...listOption("includeOperations", args["include-ops"]),
    ...listOption("excludeOperations", args["exclude-ops"]),
    ...listOption("methods", args.methods),
    ...(args["read-only"] ? { readOnly: true } : {}),
  };
  return {
    ...(isEmptyFilter(filter) ? {} : { filter }),
    ...(args.tools ? { toolMode: args.tools } : {}),
    ...shipOption(args.ship),
    ...mcpNameOption(args["mcp-name"]),
    ...(args["forward-authorization"] ? { forwardAuthorization: true } : {}),
    force: args.force,
    dryRun: args["dry-run"],
    check: args.check,
    ...(args.templates ? { templatesDir: args.templates } : {}),
    allowRemoteRefs: args["allow-remote-refs"],
    allowExternalRefs: args["allow-external-refs"],
    onProgress: (message) => {
      if (!args.quiet) process.stderr.write(`  ${message}\n`);
    },
  };
}

function shipOption(value: string | undefined): { ship?: ShipTarget[] } {
  try {
    const ship = parseShipList(value);
    return ship ? { ship } : {};
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function mcpNameOption(value: string | undefined): { mcpName?: string } {
  if (value === undefined) return {};
  if (!REGISTRY_NAME_PATTERN.test(value))
    throw new UsageError(
      `--mcp-name ${value} is not a registry name: use <reverse-DNS namespace>/<name>, e.g. io.github.you/petstore-mcp`,
    );
  return { mcpName: value };
}

function listOption<K extends keyof ToolFilter>(key: K, value: string | undefined): Partial<ToolFilter> {
  const list = parseList(value);
  return list ? { [key]: list } : {};
}

async function runGenerate(options: GenerateOptions, installWith?: PackageManager): Promise<number> {
  try {
    const result = await generate(options);
    if (installWith) {
      process.stderr.write(`Installing dependencies and building with ${installWith}…\n`);
      try {
        installAndBuild(result.write.outDir, installWith);
      } catch (error) {
        process.stdout.write(summary(result, options));
        throw error;
      }
    }
    process.stdout.write(summary(result, options, installWith));
    return options.check && result.stale && result.stale.length > 0 ? EXIT_STALE : 0;
  } catch (error) {
    if (error instanceof GeneratorError) {
      process.stderr.write(`create-guided-mcp: ${error.message}\n`);
      return EXIT_BAD_INPUT;
    }
    throw error;
  }
}

function ejectTemplates(out: string): number {
  const target = resolve(out);
  if (existsSync(target) && readdirSync(target).length > 0) {
    throw new GeneratorError(target, "folder is not empty", "choose another --out; eject never overwrites files");
  }
  cpSync(DEFAULT_TEMPLATES(), target, { recursive: true });
  process.stdout.write(
    `Copied the default templates to ${relative(process.cwd(), target) || "."}.\n` +
      `Edit what you need (delete the rest: defaults fill in), add helpers in helpers.mjs if you like, then:\n` +
      `  create-guided-mcp --from <spec> --templates ${relative(process.cwd(), target) || "."}\n`,
  );
  return 0;
}
