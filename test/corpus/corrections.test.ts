/**
 * Issue "Guidance layer": for corrupted calls (misspelt parameter, wrong type,
 * missing required field, out-of-range value, enum typo), resending
 * `corrective_params` unchanged must succeed. Over a corpus of corrupted calls
 * generated from real specs, this measures the share that become valid (the
 * README reports it) and checks that an offered `corrective_params` is never
 * itself invalid.
 */
import { afterAll, describe, expect, it } from "vitest";
import { toToolData } from "../../src/emit/index.js";
import { addGuidance } from "../../src/guidance/index.js";
import type { ToolData } from "../../src/model/ir.js";
import { compileInputValidators } from "../../src/model/validators.js";
import { prepareArguments } from "../../templates/server/src/runtime/guidance/correct.js";
import { GUIDANCE_CORPUS_SPECS } from "../helpers/corpus.js";
import { modelFrom } from "../helpers/pipeline.js";

const SPECS = GUIDANCE_CORPUS_SPECS;

type Kind =
  | "misspelt parameter"
  | "wrong type"
  | "missing required"
  | "missing required identifier"
  | "out of range"
  | "enum typo";
type Outcome = "auto-corrected" | "fixed by corrective_params" | "not fixed";
const tally = new Map<Kind, Record<Outcome, number>>();

function record(kind: Kind, outcome: Outcome): void {
  const counts = tally.get(kind) ?? { "auto-corrected": 0, "fixed by corrective_params": 0, "not fixed": 0 };
  counts[outcome]++;
  tally.set(kind, counts);
}

/** Deterministic corruptions of a valid argument object, one per kind where the schema allows it. */
function corruptions(tool: ToolData, valid: Record<string, unknown>): Array<[Kind, Record<string, unknown>]> {
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = (tool.inputSchema.required as string[] | undefined) ?? [];
  const keys = Object.keys(valid);
  const result: Array<[Kind, Record<string, unknown>]> = [];
  const key = keys.find((name) => name.length >= 5 && /^[a-z_]+$/i.test(name));
  if (key) {
    // Swap two letters in the middle: the classic typo (`per_page` → `per_pgae`).
    const at = Math.floor(key.length / 2);
    const typo = key.slice(0, at) + key[at + 1] + key[at] + key.slice(at + 2);
    if (typo !== key && !(typo in properties)) {
      const { [key]: value, ...rest } = valid;
      result.push(["misspelt parameter", { ...rest, [typo]: value }]);
    }
  }
  const numeric = keys.find((name) => typeof valid[name] === "number");
  if (numeric) result.push(["wrong type", { ...valid, [numeric]: String(valid[numeric]) }]);
  const requiredKey = required.find((name) => name in valid);
  if (requiredKey) {
    const { [requiredKey]: _dropped, ...rest } = valid;
    // By design the server never invents an identifier (or anything for a destructive call):
    // a schema-valid made-up id would act on the wrong resource. Those are counted apart.
    const pathParameter = tool.operation?.parameters.some(
      (parameter) => parameter.arg === requiredKey && parameter.in === "path",
    );
    const identifier =
      pathParameter || /(^id$|_id$|Id$|_ids$|Ids$)/.test(requiredKey) || tool.annotations.destructiveHint;
    result.push([identifier ? "missing required identifier" : "missing required", rest]);
  }
  const bounded = keys.find((name) => typeof valid[name] === "number" && typeof properties[name]?.maximum === "number");
  if (bounded) result.push(["out of range", { ...valid, [bounded]: (properties[bounded]!.maximum as number) + 1 }]);
  const enumKey = keys.find(
    (name) =>
      Array.isArray(properties[name]?.enum) && typeof valid[name] === "string" && (valid[name] as string).length >= 4,
  );
  if (enumKey) {
    const value = valid[enumKey] as string;
    const typo = value.slice(0, -1);
    if (!(properties[enumKey]!.enum as unknown[]).includes(typo))
      result.push(["enum typo", { ...valid, [enumKey]: typo }]);
  }
  return result;
}

describe("corrective_params on corrupted calls over real specs", () => {
  it.each(SPECS.map((spec) => [spec.split("/").slice(-2).join("/"), spec]))("%s", async (_label, spec) => {
    const model = await modelFrom(spec);
    const validators = compileInputValidators(model);
    const guided = addGuidance(model, { seed: 1, validators });
    for (const guidedTool of guided.tools) {
      const tool = toToolData(guidedTool);
      const validate = validators.get(tool.name)!;
      const example = tool.guidance.examples?.full;
      if (!example || Object.keys(example).length === 0) continue;
      for (const [kind, corrupted] of corruptions(tool, example)) {
        const prepared = prepareArguments(tool, corrupted, validate);
        if (prepared.ok) {
          expect(validate(prepared.args), `${tool.name} ${kind}: auto-corrected args must be valid`).toBe(true);
          record(kind, "auto-corrected");
          continue;
        }
        const corrective = prepared.error.corrective_params;
        if (corrective === undefined) {
          record(kind, "not fixed");
          continue;
        }
        // Resending corrective_params unchanged must succeed.
        expect(
          prepareArguments(tool, corrective, validate).ok,
          `${tool.name} ${kind}: corrective_params ${JSON.stringify(corrective).slice(0, 200)} must pass`,
        ).toBe(true);
        record(kind, "fixed by corrective_params");
      }
    }
  });

  afterAll(() => {
    const rows = [...tally].map(([kind, counts]) => {
      const total = counts["auto-corrected"] + counts["fixed by corrective_params"] + counts["not fixed"];
      const fixed = counts["auto-corrected"] + counts["fixed by corrective_params"];
      return `| ${kind} | ${total} | ${counts["auto-corrected"]} | ${counts["fixed by corrective_params"]} | ${counts["not fixed"]} | ${((100 * fixed) / total).toFixed(1)}% |`;
    });
    const measured = [...tally].filter(([kind]) => kind !== "missing required identifier").map(([, counts]) => counts);
    const floorAll = measured.reduce(
      (sum, counts) => sum + counts["auto-corrected"] + counts["fixed by corrective_params"] + counts["not fixed"],
      0,
    );
    const floorFixed = measured.reduce(
      (sum, counts) => sum + counts["auto-corrected"] + counts["fixed by corrective_params"],
      0,
    );
    const all = [...tally.values()].reduce(
      (sum, counts) => sum + counts["auto-corrected"] + counts["fixed by corrective_params"] + counts["not fixed"],
      0,
    );
    const fixedAll = [...tally.values()].reduce(
      (sum, counts) => sum + counts["auto-corrected"] + counts["fixed by corrective_params"],
      0,
    );
    console.log(
      [
        "| corruption | calls | auto-corrected | fixed by corrective_params | not fixed | share valid |",
        "| --- | --- | --- | --- | --- | --- |",
        ...rows,
        `| all but identifiers | ${floorAll} | | | | ${((100 * floorFixed) / floorAll).toFixed(1)}% |`,
        `| all | ${all} | | | | ${((100 * fixedAll) / all).toFixed(1)}% |`,
      ].join("\n"),
    );
    // A floor, so a regression in the correction logic fails the suite.
    expect(floorFixed / floorAll).toBeGreaterThan(0.9);
  });
});
