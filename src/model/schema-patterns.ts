/**
 * Patterns that would make Ajv fail to compile a tool's whole schema, or make its validation hang, are dropped
 * where they stand, each with a located warning, rather than losing the tool or freezing the server: a `pattern`
 * that is not a string, not ECMA-262, or that can backtrack exponentially (regex-safety.ts), and invalid
 * `patternProperties` keys. Other keywords Ajv cannot compile stay a located generation error (fail closed: a
 * typo such as `type: strnig` must not silently become a permissive server).
 */
import type { Diagnostic, JsonSchema } from "./ir.js";
import { childPointer } from "../diagnostics.js";
import { isObject } from "../normalise/index.js";
import { pointerAt, type Where } from "./schema-keywords.js";
import { exponentialBacktracking } from "./regex-safety.js";

/** A short rendering of a wrong keyword value for a message. */
function shown(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  if (isObject(value)) return "an object";
  return String(JSON.stringify(value)).slice(0, 40);
}

/**
 * A pattern Ajv cannot compile would make the whole tool's validator fail;
 * drop just that keyword, and say where, rather than lose the tool.
 */
export function checkPattern(out: JsonSchema, where: Where, diagnostics: Diagnostic[]): void {
  if (out.pattern !== undefined) checkPatternKeyword(out, where, diagnostics);
  // Checked with or without a `pattern` beside it (it used to be only with one).
  if (isObject(out.patternProperties)) checkPatternPropertiesKeys(out.patternProperties, where, diagnostics);
}

function checkPatternKeyword(out: JsonSchema, where: Where, diagnostics: Diagnostic[]): void {
  const pointer = childPointer(pointerAt(where), "pattern");
  if (typeof out.pattern !== "string") {
    const message = `pattern is ${shown(out.pattern)}, not a string, so it is not enforced`;
    diagnostics.push({ pointer, severity: "warning", message, fix: "write the regular expression as a string" });
    delete out.pattern;
    return;
  }
  try {
    new RegExp(out.pattern, "u");
  } catch {
    diagnostics.push({
      pointer,
      severity: "warning",
      message: `pattern ${JSON.stringify(out.pattern)} is not a valid ECMA-262 regular expression, so it is not enforced`,
      fix: "rewrite the pattern in ECMA-262 syntax",
    });
    delete out.pattern;
    return;
  }
  dropCatastrophicPattern(out, out.pattern, where, diagnostics);
}

function checkPatternPropertiesKeys(keyed: Record<string, unknown>, where: Where, diagnostics: Diagnostic[]): void {
  for (const key of Object.keys(keyed)) {
    try {
      new RegExp(key, "u");
    } catch {
      delete keyed[key];
      diagnostics.push({
        pointer: childPointer(pointerAt(where), "patternProperties", key),
        severity: "warning",
        message: "patternProperties key is not a valid ECMA-262 regular expression, so it is not enforced",
        fix: "rewrite it in ECMA-262 syntax",
      });
    }
  }
}

/** A pattern left out is quoted in the description up to this length; kilobyte-long ones only mentioned. */
const MAX_PATTERN_IN_TEXT = 200;

/**
 * Ajv tests a pattern by backtracking, so one whose time grows exponentially with a non-matching value would let
 * one long argument freeze the server (and a client's Ajv checking an outputSchema): such a pattern is not copied.
 */
function dropCatastrophicPattern(out: JsonSchema, pattern: string, where: Where, diagnostics: Diagnostic[]): void {
  const hazard = exponentialBacktracking(pattern);
  if (!hazard) return;
  delete out.pattern;
  // The agent still needs the rule the API enforces: said in words, as a cut-off stub says what it left out.
  const rule = pattern.length <= MAX_PATTERN_IN_TEXT ? `must match ${JSON.stringify(pattern)}` : "must match a pattern";
  const said = typeof out.description === "string" && out.description !== "" ? `${out.description} ` : "";
  out.description = `${said}(${rule}; checked by the API, not here)`;
  // A rewrite longer than a line would bury the message; the culprit names the place to change.
  const example = hazard.rewrite && hazard.rewrite.length <= 200 ? ` (e.g. "${hazard.rewrite}")` : "";
  diagnostics.push({
    pointer: childPointer(pointerAt(where), "pattern"),
    severity: "warning",
    message:
      hazard.kind === "too complex to analyse"
        ? "this pattern is too large to prove it cannot take exponential time on a non-matching value"
        : `this pattern can take exponential time on a non-matching value (${hazard.kind} ${quoted(hazard.culprits)})`,
    fix:
      "left out of validation so one bad argument cannot freeze the server; the API still enforces it. " +
      `Rewrite it without ${hazard.kind === "nested quantifier" ? "nested repetition" : "ambiguity"}${example} to have it checked`,
  });
}

/** `"a" and "b"` as written in the spec (not JSON-escaped), each cut to 80 characters: a pattern can be kilobytes long. */
function quoted(parts: string[]): string {
  return parts.map((part) => `"${part.length > 80 ? part.slice(0, 79) + "…" : part}"`).join(" and ");
}
