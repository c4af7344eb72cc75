import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { guidanceJson, serialiseHead } from "../../src/emit/guidance-head.js";
import { serialiseGuidanceAhead } from "../../src/emit/tool-members.js";
import { assembleToolsFile } from "../../src/cache/tool-texts.js";
import { toToolData } from "../../src/emit/index.js";
import { prepareGuidance } from "../../src/guidance/guide.js";
import { finishGuidance } from "../../src/guidance/index.js";
import type { GuidedTool, ToolGuidance } from "../../src/model/ir.js";
import { modelFrom, SAMPLES } from "../helpers/pipeline.js";

const hints = (): ToolGuidance["hints"] =>
  ({ typed: { id: { placeholder: "an id" } } }) as unknown as ToolGuidance["hints"];

describe("a guidance's hints and links serialised before its examples", () => {
  it("give JSON.stringify of the guidance byte for byte, whatever members follow them", () => {
    const links: ToolGuidance["links"] = [];
    const bare = { hints: hints(), links };
    const full = {
      hints: hints(),
      links,
      examples: { minimal: { id: "é" }, full: { id: "x", n: 1 } },
      pagination: undefined,
      listTool: "list_things",
    };
    for (const guidance of [bare, full]) {
      serialiseHead(guidance);
      expect(guidanceJson(guidance)).toBe(JSON.stringify(guidance));
    }
  });

  it("are not used for other links, or for a guidance whose first members are not its hints and links", () => {
    const guidance = { hints: hints(), links: [] as ToolGuidance["links"] };
    serialiseHead(guidance);
    // Changed since (which guidance never does): the head would be stale, so only the check keeps the text right.
    (guidance.hints as unknown as Record<string, unknown>)["added"] = true;
    const relinked = { hints: guidance.hints, links: [] as ToolGuidance["links"] };
    expect(guidanceJson(relinked)).toBe(JSON.stringify(relinked));
    const reordered = { links: guidance.links, hints: guidance.hints };
    expect(guidanceJson(reordered)).toBe(JSON.stringify(reordered));
  });

  it("make a large API's data/tools.json byte for byte", async () => {
    const model = await modelFrom(join(SAMPLES, "petstore.yaml"));
    // Many copies of the sample's tools, renamed: a large API's compact file.
    const tools = Array.from({ length: 60 }, (_, copy) =>
      model.tools.map((tool) => ({ ...tool, name: `${tool.name}_${copy}` })),
    ).flat();
    const large = { ...model, tools };
    const prepared = prepareGuidance(large, {});
    const own = prepared.tools.flatMap((entry) => ("own" in entry ? [entry.own.guidance] : []));
    expect(own.length).toBe(tools.length);
    serialiseGuidanceAhead(own, tools.length);
    const guided = finishGuidance(large, prepared, { seed: 1 });
    const expected = JSON.stringify({
      api: guided.api,
      tools: guided.tools.map((tool: GuidedTool) => toToolData(tool)),
    });
    expect(assembleToolsFile(guided, [], new Map()).bytes.toString("utf8")).toBe(`${expected}\n`);
  });
});
