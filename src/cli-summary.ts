/**
 * What the CLI prints after a generation: the tools and warnings, the files it
 * merged or left in conflict, and the one next command (install, then how to
 * connect Claude Code and Claude Desktop).
 */
import { join, relative } from "node:path";
import { formatDiagnostic } from "./diagnostics.js";
import { credentialEnvNames } from "../templates/server/src/runtime/shared/credentials.js";
import type { GenerateOptions, GenerateResult } from "./generate.js";
import type { Diagnostic } from "./model/ir.js";
import type { PackageManager } from "./install.js";
import type { PlannedFile } from "./write/index.js";

/** Distinct warnings listed in full; then a count of the rest. */
const MAX_LISTED_WARNINGS = 20;
/** Further places listed under a warning that recurs. */
const MAX_LISTED_PLACES = 3;

/** Spec text on a terminal: control characters (escape sequences included) could rewrite the screen. */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, "\uFFFD");
}

export function summary(result: GenerateResult, options: GenerateOptions, installedWith?: PackageManager): string {
  const lines: string[] = [];
  const { model, write } = result;
  const out = relative(process.cwd(), write.outDir) || ".";
  if (options.check) {
    const stale = result.stale ?? [];
    const conflicted = result.conflicted ?? [];
    const changing = stale.filter((path) => !conflicted.includes(path));
    if (stale.length === 0) lines.push(`${out} is up to date with ${options.from}.`);
    if (changing.length > 0)
      lines.push(
        `${out} is stale: ${changing.length} generated file(s) would change (${changing.slice(0, 5).join(", ")}${changing.length > 5 ? ", …" : ""}). Run create-guided-mcp regenerate ${out}.`,
      );
    for (const path of conflicted)
      lines.push(
        `${join(out, path)} has unresolved conflict markers (<<<<<<< yours … >>>>>>> generated): resolve them.`,
      );
  } else if (options.dryRun) {
    lines.push(`Dry run: nothing written. ${model.tools.length} tools from ${model.api.title}:`);
    for (const tool of model.tools) {
      const route = tool.operation ? `${tool.operation.method.toUpperCase()} ${tool.operation.path}` : "handler";
      lines.push(`  ${tool.name.padEnd(40)} ${route}`);
    }
    lines.push(`Files (${out}):`);
    for (const entry of write.plan) lines.push(`  ${entry.action.padEnd(10)} ${entry.path}`);
  } else {
    lines.push(
      `${write.fresh ? "Generated" : "Regenerated"} ${model.tools.length} tools for ${model.api.title} in ${out}`,
    );
    lines.push(...mergeLines(write.plan));
  }
  if (result.reportText && result.report && result.report.changes.length > 0)
    lines.push("", result.reportText.trimEnd(), "");
  if (result.diagnostics.length > 0 && !options.check) lines.push(...warningLines(result.diagnostics));
  if (!options.dryRun && !options.check && write.fresh) lines.push(...nextSteps(result, out, installedWith));
  return printable(lines.join("\n")) + "\n";
}

/** Diagnostics with the same text (severity, message and fix) at several places. */
export interface DiagnosticGroup {
  first: Diagnostic;
  /** The other places, in the order found. */
  morePointers: string[];
}

/** Groups diagnostics by their text, in order of first appearance: a spec often repeats one mistake many times. */
export function groupDiagnostics(diagnostics: Diagnostic[]): DiagnosticGroup[] {
  const groups = new Map<string, DiagnosticGroup>();
  for (const diagnostic of diagnostics) {
    const key = JSON.stringify([diagnostic.severity, diagnostic.message, diagnostic.fix ?? null]);
    const group = groups.get(key);
    if (group) group.morePointers.push(diagnostic.pointer);
    else groups.set(key, { first: diagnostic, morePointers: [] });
  }
  return [...groups.values()];
}

/**
 * Each distinct warning once, at its first place, then where else it occurs: Stripe's 219 warnings are
 * three distinct ones, and listing the first 20 of 219 hid two of them.
 */
function warningLines(diagnostics: Diagnostic[]): string[] {
  const groups = groupDiagnostics(diagnostics);
  const distinct = groups.length < diagnostics.length ? `, ${groups.length} distinct` : "";
  const lines = [`${diagnostics.length} warning(s)${distinct}:`];
  for (const { first, morePointers } of groups.slice(0, MAX_LISTED_WARNINGS)) {
    lines.push(`  ${first.severity}: ${formatDiagnostic(first)}`);
    if (morePointers.length === 0) continue;
    const listed = morePointers.slice(0, MAX_LISTED_PLACES).join(", ");
    const rest = morePointers.length > MAX_LISTED_PLACES ? ` and ${morePointers.length - MAX_LISTED_PLACES} more` : "";
    lines.push(`    the same at ${morePointers.length} more place(s): ${listed}${rest}`);
  }
  if (groups.length > MAX_LISTED_WARNINGS) lines.push(`  … and ${groups.length - MAX_LISTED_WARNINGS} more distinct`);
  return lines;
}

/** What happened to generated files the user had edited: merged, conflicting, or (without a base) parked beside. */
function mergeLines(plan: PlannedFile[]): string[] {
  const lines: string[] = [];
  for (const entry of plan) {
    const notes = (entry.notes ?? []).map((note) => `    ${note}`);
    if (entry.action === "merged") lines.push(`  merged your edits of ${entry.path} with the new generation`, ...notes);
    else if (entry.action === "conflict") lines.push(`  CONFLICT in ${entry.path}:`, ...notes);
    else if (entry.action === "kept-edit")
      lines.push(`  kept your edit of ${entry.path} (the generator has no change for it)`);
    else if (entry.action === "sidecar")
      lines.push(
        `  kept your edit of ${entry.path}; no merge base was recorded (generated by an older version), so the new version is ${entry.path}.new`,
      );
  }
  return lines;
}

/** The one next command, then how to connect the two Claude clients (the README has the rest). */
function nextSteps(result: GenerateResult, out: string, installedWith: PackageManager | undefined): string[] {
  const { api } = result.model;
  const entry = join(result.write.outDir, "dist", "index.js");
  const envs = credentialEnvNames(api.securitySchemes);
  const claudeCode = `claude mcp add ${api.name}${envs.map((env) => ` -e ${env}=…`).join("")} -- node ${entry}`;
  const lines = [`README: ${join(out, "README.md")} (credentials, every client, the tools)`];
  if (installedWith)
    lines.push(`Installed and built with ${installedWith}. Next, connect Claude Code:`, `  ${claudeCode}`);
  else
    lines.push("Next:", `  cd ${out} && npm install && npm run build`, "Then connect Claude Code:", `  ${claudeCode}`);
  lines.push(
    `Claude Desktop: add "${api.name}" to mcpServers in claude_desktop_config.json with command "node" and args ["${entry}"]${envs.length > 0 ? `, and env ${envs.join(", ")}` : ""}.`,
  );
  lines.push("Try it without a client: npm start (stdio), or npm start -- --transport http --port 3000.");
  return lines;
}
