/**
 * Absurd specs fail cleanly or succeed within bounds: each is generated in a
 * child process (test/corpus/generate-one.mjs, the corpus runner's worker,
 * using the compiled generator) with a 1 GB heap and a time limit, so a stack
 * overflow, memory exhaustion or hang shows up as a failed test, not a dead run.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/project.js";

const scratch = mkdtempSync(join(tmpdir(), "cgm-limits-"));
const HEAP_MB = 1024;
const TIME_LIMIT_MS = 90_000;

interface Outcome {
  status: "generated" | "refused" | "crash";
  message?: string;
  tools?: number;
  ms: number;
  maxRssMb: number;
}

function generateInChild(name: string, text: string): Outcome {
  const spec = join(scratch, `${name}.json`);
  writeFileSync(spec, text);
  const child = spawnSync(
    process.execPath,
    [
      `--max-old-space-size=${HEAP_MB}`,
      join(REPO_ROOT, "test", "corpus", "generate-one.mjs"),
      spec,
      join(scratch, name),
    ],
    {
      encoding: "utf8",
      timeout: TIME_LIMIT_MS,
    },
  );
  expect(child.error, `did not finish within ${TIME_LIMIT_MS} ms`).toBeUndefined();
  const line = child.stdout.trim().split("\n").pop() ?? "";
  expect(line, `no result (exit ${child.status}): ${child.stderr.slice(-500)}`).toMatch(/^\{/);
  const outcome = JSON.parse(line) as Outcome;
  expect(outcome.status, outcome.message).not.toBe("crash");
  return outcome;
}

/** An OpenAPI document whose one operation takes and returns `schema` (given as JSON text, so any depth can be written). */
function openapi(schemaJson: string, extra = ""): string {
  return (
    `{"openapi":"3.1.0","info":{"title":"Limits","version":"1"},"servers":[{"url":"https://example.com"}],` +
    `"paths":{"/x":{"post":{"operationId":"deep","requestBody":{"content":{"application/json":{"schema":${schemaJson}}}},` +
    `"responses":{"200":{"description":"ok","content":{"application/json":{"schema":${schemaJson}}}}}}}}${extra}}`
  );
}

describe("specs beyond every real API's size", () => {
  it("refuses a schema nested 5000 levels deep with a located message", () => {
    const levels = 5000;
    const deep = '{"type":"object","properties":{"a":'.repeat(levels) + '{"type":"string"}' + "}}".repeat(levels);
    const outcome = generateInChild("nested-5000", openapi(deep));
    expect(outcome.status).toBe("refused");
    expect(outcome.message).toMatch(
      /#\/paths\/~1x\/post\/requestBody\/content\/application~1json\/schema\/properties\/a\/.*nested more than \d+ levels deep/,
    );
  });

  it("refuses a chain of 5000 $refs with a located message", () => {
    const count = 5000;
    const schemas = Array.from({ length: count }, (_, index) =>
      index === count - 1
        ? `"s${index}":{"type":"string"}`
        : `"s${index}":{"type":"object","properties":{"next":{"$ref":"#/components/schemas/s${index + 1}"}}}`,
    ).join(",");
    const outcome = generateInChild(
      "ref-chain-5000",
      openapi('{"$ref":"#/components/schemas/s0"}', `,"components":{"schemas":{${schemas}}}`),
    );
    expect(outcome.status).toBe("refused");
    expect(outcome.message).toMatch(/depth|nested/i);
  });

  it("generates a tool whose argument is a 100,000-value enum, within the time and memory limits", () => {
    const values = JSON.stringify(Array.from({ length: 100_000 }, (_, index) => `value-${index}`));
    const outcome = generateInChild(
      "enum-100k",
      openapi(`{"type":"object","properties":{"choice":{"type":"string","enum":${values}}},"required":["choice"]}`),
    );
    expect(outcome.status, outcome.message).toBe("generated");
    expect(outcome.tools).toBe(1);
    expect(outcome.maxRssMb).toBeLessThan(HEAP_MB + 512);
  });

  it("generates 2000 operations on one path segment each, with unique names", () => {
    const paths = Array.from(
      { length: 2000 },
      (_, index) =>
        `"/r${index}/{id}":{"get":{"parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],"responses":{"200":{"description":"ok"}}}}`,
    ).join(",");
    const outcome = generateInChild(
      "many-ops",
      `{"openapi":"3.1.0","info":{"title":"Many","version":"1"},"paths":{${paths}}}`,
    );
    expect(outcome.status, outcome.message).toBe("generated");
    expect(outcome.tools).toBe(2000);
  });
});
