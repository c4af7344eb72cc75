/**
 * The first run as people expect from an `npm create` tool: in a terminal,
 * missing inputs are asked for. Nothing here runs unless `canPrompt` says a
 * person is at the keyboard, so CI, pipes, `--yes` and AI agents get the plain
 * usage error instead of a prompt that would hang.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { relative, resolve } from "node:path";
import * as prompts from "@clack/prompts";
import { dereferenceSpec } from "./dereference/index.js";
import { GeneratorError } from "./diagnostics.js";
import { isUrl, loadSpec } from "./load/index.js";
import { buildModel } from "./model/index.js";
import { normaliseSpec } from "./normalise/index.js";
import { MANIFEST_PATH } from "./write/index.js";
import type { ToolMode } from "../templates/server/src/runtime/shared/tool-data.js";

/**
 * Environment variables that AI coding agents set in the shells they drive.
 * An agent cannot answer a prompt, so any of these (non-empty, not "0"/"false") turns prompts off.
 * CLAUDECODE: Claude Code; CURSOR_AGENT: Cursor's agent; GEMINI_CLI: Gemini CLI;
 * CODEX_SANDBOX / CODEX_SANDBOX_NETWORK_DISABLED: OpenAI Codex CLI; AGENT: the cross-tool convention (e.g. AGENT=amp).
 */
export const AGENT_ENV_HINTS = [
  "CLAUDECODE",
  "CURSOR_AGENT",
  "GEMINI_CLI",
  "CODEX_SANDBOX",
  "CODEX_SANDBOX_NETWORK_DISABLED",
  "AGENT",
] as const;

export interface PromptContext {
  yes: boolean;
  env: NodeJS.ProcessEnv;
  stdinIsTTY: boolean;
  stdoutIsTTY: boolean;
}

function isSet(value: string | undefined): boolean {
  return value !== undefined && value !== "" && value !== "0" && value.toLowerCase() !== "false";
}

/** Why prompts are off, or undefined when a person seems to be at a terminal. */
export function whyNotInteractive(context: PromptContext): string | undefined {
  if (context.yes) return "--yes";
  if (!context.stdinIsTTY || !context.stdoutIsTTY) return "not a terminal";
  if (isSet(context.env.CI)) return "CI is set";
  const agent = AGENT_ENV_HINTS.find((name) => isSet(context.env[name]));
  return agent ? `${agent} is set (an AI agent seems to drive)` : undefined;
}

export function currentPromptContext(yes: boolean): PromptContext {
  return {
    yes,
    env: process.env,
    stdinIsTTY: Boolean(process.stdin.isTTY),
    stdoutIsTTY: Boolean(process.stdout.isTTY),
  };
}

export interface Answers {
  from: string;
  out: string;
  toolMode: ToolMode;
  install: boolean;
}

export interface Known {
  from?: string | undefined;
  out?: string | undefined;
  toolMode?: ToolMode | undefined;
  install?: boolean | undefined;
  name?: string | undefined;
  allowRemoteRefs: boolean;
  allowExternalRefs: boolean;
}

export class PromptCancelled extends Error {}

/** Asks for whatever `known` lacks. Throws PromptCancelled on Ctrl-C / Esc. */
export async function askMissing(known: Known, autoThreshold: number, packageManager: string): Promise<Answers> {
  prompts.intro("create-guided-mcp");
  let from = known.from;
  let preview: SpecPreview | undefined;
  while (!from || !preview) {
    from ??= answered(
      await prompts.text({
        message: "OpenAPI or JSON Schema document (path or http(s) URL)",
        placeholder: "./openapi.yaml",
        validate: checkSpecSource,
      }),
    ).trim();
    preview = await previewWithSpinner(from, known);
    if (!preview) from = undefined;
  }
  const out =
    known.out ??
    answered(
      await prompts.text({ message: "Output folder", initialValue: `./${preview.name}`, validate: checkOutFolder }),
    ).trim();
  const recommended: ToolMode = preview.tools > autoThreshold ? "discovery" : "per-operation";
  const toolMode =
    known.toolMode ??
    answered(
      await prompts.select<ToolMode>({
        message: `Tool mode (${preview.tools} operations)`,
        initialValue: recommended,
        options: toolModeOptions(recommended, autoThreshold),
      }),
    );
  const install =
    known.install ??
    answered(
      await prompts.confirm({ message: `Install dependencies and build with ${packageManager}?`, initialValue: true }),
    );
  prompts.outro(`Generating ${out}`);
  return { from, out, toolMode, install };
}

function toolModeOptions(
  recommended: ToolMode,
  threshold: number,
): Array<{ value: ToolMode; label: string; hint?: string }> {
  const options: Array<{ value: ToolMode; label: string; hint: string }> = [
    { value: "per-operation", label: "per-operation", hint: "one tool per operation: best for small APIs" },
    { value: "discovery", label: "discovery", hint: "search + describe + call meta-tools: best for large APIs" },
    { value: "dispatch", label: "dispatch", hint: "one tool that takes the operation name" },
    { value: "auto", label: "auto", hint: `decided when the server starts: per-operation up to ${threshold} tools` },
  ];
  return options.map((option) =>
    option.value === recommended ? { ...option, hint: `recommended for this API's size — ${option.hint}` } : option,
  );
}

function answered<T>(value: T): Exclude<T, symbol> {
  if (prompts.isCancel(value)) {
    prompts.cancel("Cancelled: nothing was written.");
    throw new PromptCancelled();
  }
  return value as Exclude<T, symbol>;
}

/** Checked on every submit, before the spec is read: a missing file is named at once. */
export function checkSpecSource(value: string | undefined): string | undefined {
  const source = (value ?? "").trim();
  if (source === "") return "Enter a file path or an http(s) URL";
  if (isUrl(source)) {
    try {
      new URL(source);
      return undefined;
    } catch {
      return `${source} is not a valid URL`;
    }
  }
  if (!existsSync(source)) return `${resolve(source)} does not exist`;
  if (!statSync(source).isFile()) return `${resolve(source)} is a folder; enter the spec file inside it`;
  return undefined;
}

export function checkOutFolder(value: string | undefined): string | undefined {
  const out = (value ?? "").trim();
  if (out === "") return "Enter a folder";
  const dir = resolve(out);
  if (!existsSync(dir)) return undefined;
  if (!statSync(dir).isDirectory()) return `${dir} is a file`;
  if (readdirSync(dir).length > 0 && !existsSync(resolve(dir, MANIFEST_PATH)))
    return `${relative(process.cwd(), dir) || "."} is not empty; choose a new folder`;
  return undefined;
}

interface SpecPreview {
  name: string;
  tools: number;
}

async function previewWithSpinner(from: string, known: Known): Promise<SpecPreview | undefined> {
  const spin = prompts.spinner();
  spin.start(`Reading ${from}`);
  try {
    const preview = await previewSpec(from, known);
    spin.stop(`Read ${from}: ${preview.tools} operations`);
    return preview;
  } catch (error) {
    if (!(error instanceof GeneratorError)) throw error;
    spin.error(error.message);
    return undefined;
  }
}

/** The first stages of the pipeline, enough to name the project and count its operations. */
async function previewSpec(from: string, known: Known): Promise<SpecPreview> {
  const normalised = normaliseSpec(await loadSpec(from));
  const dereferenced = await dereferenceSpec(normalised, {
    allowRemoteRefs: known.allowRemoteRefs,
    allowExternalFiles: known.allowExternalRefs,
  });
  const model = buildModel(dereferenced, known.name ? { name: known.name } : {});
  return { name: model.api.name, tools: model.tools.length };
}
