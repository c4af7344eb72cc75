/**
 * Every problem the generator reports reads `<where>: <what is wrong> — <how to fix it>`,
 * where <where> is a file (with line:column) or a JSON pointer into the spec.
 */
import { escapePointerToken } from "../templates/server/src/runtime/shared/json.js";
import type { Diagnostic } from "./model/ir.js";

export class GeneratorError extends Error {
  constructor(
    readonly where: string,
    readonly problem: string,
    readonly fix?: string,
  ) {
    super(formatProblem(where, problem, fix));
    this.name = "GeneratorError";
  }
}

export function formatProblem(where: string, problem: string, fix?: string): string {
  return fix ? `${where}: ${problem} — ${fix}` : `${where}: ${problem}`;
}

export function formatDiagnostic(diagnostic: Diagnostic): string {
  return formatProblem(diagnostic.pointer, diagnostic.message, diagnostic.fix);
}

/** Escapes one reference token for a JSON pointer (RFC 6901); shared with the runtime. */
export { escapePointerToken };

export function pointerOf(...tokens: Array<string | number>): string {
  return joinTokens("#", tokens);
}

export function childPointer(pointer: string, ...tokens: Array<string | number>): string {
  return joinTokens(pointer, tokens);
}

/**
 * Concatenated, and a token escaped only when it has `~` or `/`: the model
 * makes tens of thousands of pointers (GitHub: ~20 per operation), and a
 * map, a join and two regex replaces per token showed in its profile.
 */
function joinTokens(pointer: string, tokens: Array<string | number>): string {
  for (const token of tokens) {
    const text = typeof token === "string" ? token : String(token);
    pointer += "/" + (text.includes("~") || text.includes("/") ? escapePointerToken(text) : text);
  }
  return pointer;
}
