/**
 * The start of a tool's guidance JSON in a large API's data/tools.json, made before the example worker joins
 * (src/generate.ts, two threads only).
 *
 * A guidance object is `{hints, links, examples?, pagination?, listTool?, producers?}` (src/guidance/guide.ts
 * `withExamples`): its hints and links are made before any example, and are most of its bytes (Stripe: 1.26 of
 * 1.57 MB). Serialised after the join they were most of the ≈ 12 ms emit spent on the guidance in the run's serial
 * tail; made while the worker still computes, emit then serialises only what follows them (the examples, and the
 * producer calls, which are completed after the join).
 *
 * A head is used only for a guidance whose first two members are the very hints and links it was made from, and
 * nothing changes those once guidance is prepared (producer calls are completed in place, but hints and links hold
 * none), so the text is `JSON.stringify` of what emit would serialise.
 */
import type { ToolGuidance } from "../model/ir.js";
import { hintsJson } from "../guidance/hints.js";

/** What guidance holds before its examples. */
export type GuidanceWithoutExamples = Pick<ToolGuidance, "hints" | "links">;

/** By hints object: the JSON text `{"hints":…,"links":…` and the links it was made with. */
const heads = new WeakMap<object, { links: object; text: string }>();

/** Makes the head of `guidance`'s JSON (see `guidanceJson`). */
export function serialiseHead({ hints, links }: GuidanceWithoutExamples): void {
  heads.set(hints, headOf({ hints, links }));
}

function headOf({ hints, links }: GuidanceWithoutExamples): { links: object; text: string } {
  return { links, text: `{"hints":${hintsJson(hints)},"links":${JSON.stringify(links)}` };
}

/**
 * `JSON.stringify(guidance)`, from the head made ahead when there is one for these hints and links, else from one made
 * now (the hints' text is mostly the input schema's, made once: see `hintsJson`).
 */
export function guidanceJson(guidance: object): string {
  const { hints, links, ...rest } = guidance as Partial<GuidanceWithoutExamples>;
  if (!hints || !links || !startsWithHintsAndLinks(guidance)) return JSON.stringify(guidance);
  const made = heads.get(hints);
  const head = made?.links === links ? made : headOf({ hints, links });
  // The other members in their order, with JSON's own handling of each (`{` and `}` around them dropped or kept).
  const others = JSON.stringify(rest);
  return others === "{}" ? `${head.text}}` : `${head.text},${others.slice(1)}`;
}

function startsWithHintsAndLinks(guidance: object): boolean {
  const keys = Object.keys(guidance);
  return keys[0] === "hints" && keys[1] === "links";
}
