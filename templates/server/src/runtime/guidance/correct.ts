/**
 * Argument preparation: fuzzy-correct unknown keys, validate, and on failure
 * compute `corrective_params` (corrective.ts) — a complete argument object that passes the
 * validator, built from the caller's own values wherever possible.
 *
 * Never silent: every rename is reported in `corrections` and `warnings`; an
 * unknown key that cannot be confidently renamed fails the call with a
 * suggestion (it is never dropped). Defaults are reported in `resolved_inputs`
 * but NOT added to the arguments sent upstream (the API applies its own).
 */
import { CONFIRM_ARG, type Correction, type GuidedError } from "../call/types.js";
import { isPlainObject } from "../shared/json.js";
import type { ToolData } from "../shared/tool-data.js";
import { buildCorrectiveParams } from "./corrective.js";
import { invalidArgumentsError, type ArgumentProblems } from "./errors.js";
import { AUTO_CORRECT, LIST, rankMatches } from "./fuzzy.js";
import { analyzeErrors, unknownKeyIssue, type AnalyzedIssue } from "./issues.js";
import { toolIndex, type ToolIndex } from "./tool-index.js";
import { runValidator, type Validator } from "./validator.js";

export interface PreparedOk {
  ok: true;
  /** Arguments to send upstream: the caller's, with confident renames applied and `_confirm` removed. */
  args: Record<string, unknown>;
  /** The values actually in effect: `args` plus schema defaults for omitted parameters. */
  resolved_inputs: Record<string, unknown>;
  corrections: Correction[];
  warnings: string[];
  /** The caller sent `"_confirm": true` (see confirmationRequiredError). */
  confirmed: boolean;
}

export interface PreparedFailure {
  ok: false;
  error: GuidedError;
  /** The tool's input schema does not compile, so the arguments could not be checked: a server bug, not the caller's. */
  schemaError?: string;
}

export type PreparedArguments = PreparedOk | PreparedFailure;

/**
 * Prepares a tool call's arguments: strips `_confirm`, auto-corrects confident
 * key typos (> AUTO_CORRECT), validates, and on failure returns a guided
 * INVALID_ARGUMENTS error (with verified `corrective_params` when possible).
 * `args` is never mutated.
 */
export function prepareArguments(
  tool: ToolData,
  args: unknown,
  validate: Validator,
  /** The call was already confirmed by the tool that routed it (discovery / dispatch `_confirm`). */
  routed: { confirmed?: boolean } = {},
): PreparedArguments {
  const index = toolIndex(tool);
  const input = args === undefined || args === null ? {} : args;
  if (!isPlainObject(input)) {
    return fail(tool, validate, index, {
      received: args,
      working: {},
      unknown: [],
      corrections: [],
      warnings: [],
      notObject: true,
      confirmed: routed.confirmed === true,
    });
  }

  let working: Record<string, unknown> = input;
  let confirmed = false;
  const corrections: Correction[] = [];
  const warnings: string[] = [];
  const unknown: AnalyzedIssue[] = [];
  let copied = false;
  const copy = () => {
    if (!copied) {
      working = { ...working };
      copied = true;
    }
  };

  for (const key of Object.keys(input)) {
    if (index.known.has(key)) continue;
    if (key === CONFIRM_ARG && !index.declaresConfirm) {
      copy();
      confirmed = working[key] === true;
      if (working[key] !== true)
        warnings.push(
          `"${CONFIRM_ARG}" must be the boolean true to confirm; received ${JSON.stringify(working[key])}.`,
        );
      delete working[key];
      continue;
    }
    if (index.extraAllowed(key)) continue;
    const ranked = rankMatches(key, index.candidates, { min: LIST, limit: 3 });
    const best = ranked[0];
    const second = ranked[1];
    if (
      best &&
      best.score > AUTO_CORRECT &&
      (!second || best.score - second.score >= 0.03) &&
      !Object.prototype.hasOwnProperty.call(working, best.name)
    ) {
      copy();
      working[best.name] = working[key];
      delete working[key];
      corrections.push({ from: key, to: best.name, confidence: best.score });
      warnings.push(
        `Unknown parameter "${key}" was auto-corrected to "${best.name}" (confidence ${best.score}). Use "${best.name}" next time.`,
      );
      continue;
    }
    const issue = unknownKeyIssue([key], input[key], [...index.known]);
    if (
      issue.issue.did_you_mean !== undefined &&
      Object.prototype.hasOwnProperty.call(input, issue.issue.did_you_mean as string)
    ) {
      issue.issue.fix = `Remove "${key}" ("${String(issue.issue.did_you_mean)}" is already set)`;
    }
    unknown.push(issue);
  }

  if (corrections.length) {
    // Keep the caller's key order: a renamed key stays where it was.
    const renamed = new Map(corrections.map((c) => [c.from, c.to]));
    const ordered: Record<string, unknown> = {};
    for (const key of Object.keys(input)) {
      const name = renamed.get(key) ?? key;
      if (Object.prototype.hasOwnProperty.call(working, name)) ordered[name] = working[name];
    }
    working = ordered;
  }

  if (unknown.length === 0 && runValidator(validate, working).valid) {
    const resolved: Record<string, unknown> = { ...working };
    for (const [name, value] of index.defaults) if (!(name in resolved)) resolved[name] = value;
    return { ok: true, args: working, resolved_inputs: resolved, corrections, warnings, confirmed };
  }
  return fail(tool, validate, index, {
    received: args,
    working,
    unknown,
    corrections,
    warnings,
    notObject: false,
    confirmed: (confirmed || routed.confirmed === true) && !index.declaresConfirm,
  });
}

interface FailureInput {
  received: unknown;
  working: Record<string, unknown>;
  unknown: AnalyzedIssue[];
  corrections: Correction[];
  warnings: string[];
  notObject: boolean;
  /** The caller confirmed: the corrected call keeps `"_confirm": true`, so it does not stop at the gate again. */
  confirmed: boolean;
}

function fail(tool: ToolData, validate: Validator, index: ToolIndex, f: FailureInput): PreparedFailure {
  let analyzed: AnalyzedIssue[];
  let schemaError: string | undefined;
  if (f.notObject) {
    analyzed = [
      {
        issue: {
          field: "(arguments)",
          code: "INVALID_TYPE",
          problem: `Arguments must be a JSON object, received ${Array.isArray(f.received) ? "array" : typeof f.received}`,
          received: f.received,
          expected: "object",
          fix: `Send an object of named parameters, e.g. ${JSON.stringify(tool.guidance.examples?.minimal ?? {})}`,
        },
        segments: [],
        keyword: "type",
        params: { type: "object" },
      },
    ];
  } else {
    // Validate may have been skipped (unknown keys only); run it for the full picture.
    const check = runValidator(validate, f.working);
    schemaError = check.schemaError;
    const ajvIssues = analyzeErrors(tool, f.working, check.errors);
    const unknownFields = new Set(f.unknown.map((u) => u.issue.field));
    analyzed = [
      ...f.unknown,
      ...ajvIssues.filter((a) => !(a.issue.code === "UNKNOWN_PARAMETER" && unknownFields.has(a.issue.field))),
    ];
  }
  const problems: ArgumentProblems = {
    received: f.received,
    issues: analyzed.map((a) => a.issue),
    corrections: f.corrections,
    warnings: f.warnings,
    not_object: f.notObject,
  };
  const corrective = buildCorrectiveParams(tool, f.notObject ? {} : f.working, f.unknown, validate, index);
  if (corrective.params)
    problems.corrective_params = f.confirmed ? { ...corrective.params, [CONFIRM_ARG]: true } : corrective.params;
  if (corrective.exampleFields.length) problems.example_fields = corrective.exampleFields;
  if (corrective.note) problems.corrective_note = corrective.note;
  return { ok: false, error: invalidArgumentsError(tool, problems), ...(schemaError !== undefined && { schemaError }) };
}

/** A destructive tool needs `"_confirm": true` before it runs (see confirmationRequiredError). */
export function needsConfirmation(tool: ToolData, prepared: PreparedOk): boolean {
  return tool.annotations.destructiveHint && !prepared.confirmed;
}
