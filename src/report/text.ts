/**
 * The change report from the text of `data/tools.json`, without parsing the
 * whole previous file: a regeneration usually changes a few tools of many
 * (GitHub's file is 6 MB), and a tool whose JSON text is byte for byte the
 * same in both generations has no change to report. So the tools both texts
 * share at the start and at the end are set aside, and only the ones between
 * are parsed and compared (see `compareTools`, which reports nothing for an
 * identical tool and matches renames by pointer among the others only).
 */
import type { ToolData } from "../model/ir.js";
import { compareTools, type ChangeReport } from "./index.js";
import { jsonStringEnd } from "../load/index.js";

/**
 * The report between the previous generation's tools file and this one's
 * (`nextText`, holding `next`), or undefined when the previous text is not a
 * tools file (as when its JSON does not parse).
 */
export function compareToolsText(
  previousText: string,
  nextText: string,
  next: readonly ToolData[],
): ChangeReport | undefined {
  const before = toolSpans(previousText);
  const after = toolSpans(nextText);
  if (!before || !after || after.length !== next.length) {
    const tools = parsed<{ tools?: ToolData[] }>(previousText)?.tools;
    return Array.isArray(tools) ? compareTools(tools, next) : undefined;
  }
  const same = (i: number, j: number) =>
    before[i]![1] - before[i]![0] === after[j]![1] - after[j]![0] &&
    previousText.slice(before[i]![0], before[i]![1]) === nextText.slice(after[j]![0], after[j]![1]);
  let lead = 0;
  while (lead < before.length && lead < after.length && same(lead, lead)) lead++;
  let trail = 0;
  while (
    trail < before.length - lead &&
    trail < after.length - lead &&
    same(before.length - 1 - trail, after.length - 1 - trail)
  )
    trail++;
  const previous: ToolData[] = [];
  for (const [start, end] of before.slice(lead, before.length - trail)) {
    const tool = parsed<ToolData>(previousText.slice(start, end));
    if (tool === undefined) return undefined;
    previous.push(tool);
  }
  return compareTools(previous, next.slice(lead, next.length - trail));
}

/** JSON text's value, or undefined when it does not parse (a damaged previous file reports nothing, as before). */
function parsed<T>(text: string): T | undefined {
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

/**
 * Where each tool's JSON is in a compact tools file (`{"api":…,"tools":[…]}`,
 * as written for APIs with many tools), or undefined for any other layout
 * (the indented file of a small API, a file from another generator version).
 */
export function toolSpans(text: string): Array<[number, number]> | undefined {
  const prefix = '{"api":';
  if (!text.startsWith(prefix)) return undefined;
  let index = valueEnd(text, prefix.length);
  const member = ',"tools":[';
  if (index < 0 || !text.startsWith(member, index)) return undefined;
  index += member.length;
  const spans: Array<[number, number]> = [];
  if (text.charCodeAt(index) === 93 /* ] */) index++;
  else
    for (;;) {
      const end = valueEnd(text, index);
      if (end < 0) return undefined;
      spans.push([index, end]);
      const code = text.charCodeAt(end);
      index = end + 1;
      if (code === 93 /* ] */) break;
      if (code !== 44 /* , */) return undefined;
    }
  return text.startsWith("}", index) && text.length - index <= 2 ? spans : undefined;
}

/** The index just after the object, array or string starting at `start` in compact JSON, or -1. */
function valueEnd(text: string, start: number): number {
  const first = text.charCodeAt(start);
  if (first === 34 /* " */) return jsonStringEnd(text, start);
  if (first !== 123 /* { */ && first !== 91 /* [ */) return -1;
  let depth = 0;
  for (let index = start; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 34) {
      index = jsonStringEnd(text, index) - 1;
      if (index < 0) return -1;
    } else if (code === 123 || code === 91) depth++;
    else if ((code === 125 /* } */ || code === 93) && --depth === 0) return index + 1;
  }
  return -1;
}
