/**
 * Which model cache entries carry nothing for the model as a whole: an operation entry without warnings, credential
 * notes, signing headers or added schemes, and a guidance entry without warnings. Read from the writer's text, not
 * parsed: a text-only regeneration (./text-edit.ts) stands on every entry being plain, and the cache's save records
 * whether they all are (./model-record.ts).
 */
import type { OperationOutcome } from "../model/openapi.js";

/** How an operation entry without warnings, credential notes, signing headers or added schemes ends (before its schemas). */
const PLAIN_END = '"diagnostics":[],"credentialNotes":[],"addedSchemes":0}';
const DRAFT_START = '{"draft":';
/** How a plain entry with a draft ends, and the whole of one without (an operation that makes no tool). */
const DRAFT_END = `,${PLAIN_END}`;
const NO_TOOL = `{${PLAIN_END}`;

/** Whether an operation entry's text is a plain one's (see the module comment): one making a tool, or none. */
export function plainOperationText(text: string): "tool" | "none" | undefined {
  // The entry's main text ends at its first tab, if any (compared in place: no substring made).
  const tab = text.indexOf("\t");
  const mainEnd = tab < 0 ? text.length : tab;
  if (text.startsWith(DRAFT_START) && text.endsWith(DRAFT_END, mainEnd)) return "tool";
  return mainEnd === NO_TOOL.length && text.startsWith(NO_TOOL) ? "none" : undefined;
}

/** As `plainOperationText` reads an entry's text, of the outcome it stands for (its members as JSON.stringify writes them). */
export function plainOutcome(outcome: OperationOutcome): "tool" | "none" | undefined {
  const members = Object.keys(outcome)
    .filter((key) => outcome[key as keyof OperationOutcome] !== undefined)
    .join();
  const layout = members === "draft,diagnostics,credentialNotes,addedSchemes" ? "tool" : "none";
  if (layout === "none" && members !== "diagnostics,credentialNotes,addedSchemes") return undefined;
  const nothing =
    outcome.diagnostics.length === 0 && outcome.credentialNotes.length === 0 && outcome.addedSchemes === 0;
  return nothing ? layout : undefined;
}

/** How the writer begins and ends the text of a tool's guidance without warnings (`{ guidance, diagnostics }`). */
export const GUIDANCE_HEAD = '{"guidance":';
export const NO_WARNINGS = ',"diagnostics":[]}';

/** Whether a guidance entry's text is the writer's for guidance without warnings (its guidance not parsed). */
export function holdsNoWarnings(text: string): boolean {
  return text.startsWith(GUIDANCE_HEAD) && text.endsWith(NO_WARNINGS);
}
