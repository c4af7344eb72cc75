import { CONFIRM_ARG } from "../call/types.js";
import { isPlainObject } from "../shared/json.js";
import type { ToolData } from "../shared/tool-data.js";
import { prepareName, type PreparedName } from "./fuzzy.js";

/**
 * What argument preparation needs to know about a tool, computed once per
 * tool: its parameter names (exact and fuzzy), defaults and identifiers.
 */
export interface ToolIndex {
  known: Set<string>;
  candidates: PreparedName[];
  extraAllowed: (key: string) => boolean;
  defaults: [string, unknown][];
  declaresConfirm: boolean;
  identifiers: Set<string>;
}

const indexes = new WeakMap<ToolData, ToolIndex>();
export const ID_NAME = /(^id$|_id$|[a-z0-9]Id$|ID$|^uuid$|_uuid$|Uuid$)/;

export function toolIndex(tool: ToolData): ToolIndex {
  let index = indexes.get(tool);
  if (index) return index;
  const schema = tool.inputSchema;
  const props = isPlainObject(schema["properties"]) ? (schema["properties"] as Record<string, unknown>) : {};
  const known = new Set(Object.keys(props));
  const additional = schema["additionalProperties"];
  const patterns: RegExp[] = [];
  if (isPlainObject(schema["patternProperties"])) {
    for (const p of Object.keys(schema["patternProperties"] as object)) {
      try {
        patterns.push(new RegExp(p, "u"));
      } catch {
        /* skip */
      }
    }
  }
  const extraAllowed =
    additional === true || isPlainObject(additional)
      ? () => true
      : patterns.length
        ? (key: string) => patterns.some((r) => r.test(key))
        : () => false;
  const defaults: [string, unknown][] = [];
  for (const [name, hint] of Object.entries(tool.guidance.hints.typed)) {
    if (hint.default !== undefined) defaults.push([name, hint.default]);
  }
  const identifiers = new Set<string>();
  for (const p of tool.operation?.parameters ?? []) if (p.in === "path") identifiers.add(p.arg);
  for (const k of known) if (ID_NAME.test(k)) identifiers.add(k);
  index = {
    known,
    candidates: [...known].map(prepareName),
    extraAllowed,
    defaults,
    declaresConfirm: known.has(CONFIRM_ARG),
    identifiers,
  };
  indexes.set(tool, index);
  return index;
}
