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
  return "#" + tokens.map((token) => "/" + escapePointerToken(token)).join("");
}

export function childPointer(pointer: string, ...tokens: Array<string | number>): string {
  return pointer + tokens.map((token) => "/" + escapePointerToken(token)).join("");
}
