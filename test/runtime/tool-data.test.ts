import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { openToolsFile } from "../../templates/server/src/runtime/shared/tool-data.js";

const dir = mkdtempSync(join(tmpdir(), "cgm-tool-data-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let count = 0;
function dataFile(text: string): URL {
  const path = join(dir, `tools-${count++}.json`);
  writeFileSync(path, text);
  return pathToFileURL(path);
}

const api = {
  name: "tricky-mcp",
  title: 'Braces } { and brackets ] [ in "quotes"',
  instructions: 'A backslash \\ then a quote \\" and "}", "]" inside strings; unicode \u00e9 \u2028.',
  securitySchemes: [{ name: "k", kind: "apiKey", in: "header", parameterName: "X-Key", env: "K" }],
  nested: { deeper: [{ a: "}}}" }, []] },
};
const tools = [{ name: "get_thing", description: "{" }];

describe("openToolsFile", () => {
  it("reads api on its own, exactly as a full parse would, whatever its strings hold", () => {
    for (const text of [
      JSON.stringify({ api, tools }),
      JSON.stringify({ api, tools }, null, 2),
      `  \n${JSON.stringify({ api, tools })}`,
    ]) {
      const file = openToolsFile(dataFile(text));
      expect(file.api).toEqual(JSON.parse(text).api);
      expect(file.tools).toEqual(tools);
    }
  });

  it("falls back to a full parse when api is not the first key", () => {
    const file = openToolsFile(dataFile(JSON.stringify({ tools, api })));
    expect(file.api).toEqual(api);
    expect(file.tools).toEqual(tools);
  });

  it("parses the operations only when asked for, and names a damaged file with the fix", () => {
    const text = JSON.stringify({ api, tools });
    const file = openToolsFile(dataFile(text.slice(0, text.indexOf('"tools":') + 12)));
    expect(file.api).toEqual(api);
    expect(() => file.tools).toThrow(/tools-\d+\.json: not valid JSON \(.+\) — the data file is damaged: regenerate/);
  });
});
