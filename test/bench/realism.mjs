// Example realism: the share of example strings that look like random tokens.
//
// Agents copy examples, and `owner: "PDvE"` teaches nothing. Counted are the
// string values in every tool's `full` example whose schema has no enum,
// const, format or pattern (those are dictated by the spec); a value is a
// "random token" when it is a mixed-case alphanumeric run that is not a word,
// a Capitalised word or camelCase words (`gItmB4ITw`, `FLeAwlahG`, `9wTUu9T96`).
//
//   node test/bench/realism.mjs      (after `npm run build`) prints the table in the README.
import { readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DIRECTORY_ROOT } from "../corpus/directory.mjs";
import { REPO } from "./lib.mjs";

const RUN = /^[A-Za-z0-9]{3,}$/;
const WORDS = /^[A-Z]?[a-z]+(?:[A-Z][a-z]+)*[0-9]*$/;

/** True for a mixed-case alphanumeric run that is not a word or camelCase words. */
export function looksRandom(value) {
  return RUN.test(value) && /[a-z]/.test(value) && /[A-Z]/.test(value) && !WORDS.test(value);
}

const isObject = (v) => typeof v === "object" && v !== null && !Array.isArray(v);

/** The schema and its allOf/anyOf/oneOf parts (a few levels deep). */
function parts(schema, depth = 0) {
  if (!isObject(schema) || depth > 4) return [];
  const out = [schema];
  for (const key of ["allOf", "anyOf", "oneOf"]) {
    if (Array.isArray(schema[key])) for (const branch of schema[key]) out.push(...parts(branch, depth + 1));
  }
  return out;
}

function constrained(schema) {
  return parts(schema).some((p) => "enum" in p || "const" in p || "format" in p || "pattern" in p);
}

function propertySchema(schema, key) {
  for (const p of parts(schema)) if (isObject(p.properties) && isObject(p.properties[key])) return p.properties[key];
  for (const p of parts(schema)) if (isObject(p.additionalProperties)) return p.additionalProperties;
  return undefined;
}

function itemSchema(schema, index) {
  for (const p of parts(schema)) {
    if (Array.isArray(p.prefixItems) && isObject(p.prefixItems[index])) return p.prefixItems[index];
    if (isObject(p.items)) return p.items;
  }
  return undefined;
}

function walk(value, schema, path, visit) {
  if (typeof value === "string") visit(value, schema, path);
  else if (Array.isArray(value)) value.forEach((v, i) => walk(v, itemSchema(schema, i), `${path}/${i}`, visit));
  else if (isObject(value))
    for (const [k, v] of Object.entries(value)) walk(v, propertySchema(schema, k), `${path}/${k}`, visit);
}

/**
 * Over tools carrying `inputSchema` and `guidance.examples`: how many free
 * strings there are, how many look random, and a few of those.
 */
export function measureRealism(tools) {
  let strings = 0;
  const random = [];
  for (const tool of tools) {
    const example = tool.guidance?.examples?.full;
    if (!example) continue;
    walk(example, tool.inputSchema, "", (value, schema, path) => {
      if (schema !== undefined && constrained(schema)) return;
      strings++;
      if (looksRandom(value)) random.push({ tool: tool.name, path, value });
    });
  }
  return {
    strings,
    random: random.length,
    share: strings === 0 ? 0 : random.length / strings,
    examples: random.slice(0, 8),
  };
}

/** The APIs the README reports: GitHub, Stripe and every sample. */
export function realismSpecs() {
  const samples = readdirSync(join(REPO, "samples"))
    .filter((f) => /\.(ya?ml|json)$/.test(f) && f !== "library-components.yaml")
    .map((f) => [f, join(REPO, "samples", f)]);
  return [
    ["GitHub", createRequire(import.meta.url).resolve("@octokit/openapi/generated/api.github.com.json")],
    ["Stripe", join(DIRECTORY_ROOT, "stripe.com.json")],
    ...samples,
  ];
}

/** Generator stages up to guidance, from `dist/`. */
export async function guidedTools(spec) {
  const dist = (p) => join(REPO, "dist", "src", p);
  const { loadSpec } = await import(dist("load/index.js"));
  const { normaliseSpec } = await import(dist("normalise/index.js"));
  const { dereferenceSpec } = await import(dist("dereference/index.js"));
  const { buildModel } = await import(dist("model/index.js"));
  const { addGuidance } = await import(dist("guidance/index.js"));
  const model = buildModel(await dereferenceSpec(normaliseSpec(await loadSpec(spec)), {}), {});
  return addGuidance(model, { seed: 1 }).tools;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log("| API | free example strings | random-looking | share |");
  console.log("| --- | --- | --- | --- |");
  let strings = 0;
  let random = 0;
  for (const [label, spec] of realismSpecs()) {
    const m = measureRealism(await guidedTools(spec));
    console.log(`| ${label} | ${m.strings} | ${m.random} | ${(m.share * 100).toFixed(1)}% |`);
    if (!label.includes("."))
      for (const e of m.examples.slice(0, 4))
        console.error(`  ${label} ${e.tool}${e.path}: ${JSON.stringify(e.value)}`);
    if (label.includes(".")) {
      strings += m.strings;
      random += m.random;
    }
  }
  console.log(
    `| samples (all) | ${strings} | ${random} | ${((strings === 0 ? 0 : random / strings) * 100).toFixed(1)}% |`,
  );
}
