/**
 * What changed for agents between two generations: tools added, removed,
 * renamed and changed, each change classified as breaking or not. Input is
 * the previous `data/tools.json` and the new tool data; no I/O here.
 */
import type { JsonSchema, ToolData } from "../model/ir.js";

export type ChangeKind = "added" | "removed" | "renamed" | "changed";

export interface ToolChange {
  kind: ChangeKind;
  tool: string;
  /** The previous name, for renames. */
  from?: string;
  breaking: boolean;
  details: string[];
}

export interface ChangeReport {
  changes: ToolChange[];
  breaking: number;
}

export function compareTools(previous: readonly ToolData[], next: readonly ToolData[]): ChangeReport {
  const before = new Map(previous.map((tool) => [tool.name, tool]));
  const after = new Map(next.map((tool) => [tool.name, tool]));
  const changes: ToolChange[] = [];

  // A tool whose name changed while its operation (pointer) stayed is a rename, not a remove + add.
  const removedByPointer = new Map(
    previous.filter((tool) => !after.has(tool.name)).map((tool) => [tool.pointer, tool]),
  );
  const renamedFrom = new Map<string, ToolData>();
  for (const tool of next) {
    if (before.has(tool.name)) continue;
    const old = removedByPointer.get(tool.pointer);
    if (old) {
      renamedFrom.set(tool.name, old);
      removedByPointer.delete(tool.pointer);
    }
  }

  for (const tool of next) {
    const renamed = renamedFrom.get(tool.name);
    const old = before.get(tool.name) ?? renamed;
    if (!old) {
      changes.push({ kind: "added", tool: tool.name, breaking: false, details: [] });
      continue;
    }
    const differences = compareInputs(old.inputSchema, tool.inputSchema);
    if (
      old.operation &&
      tool.operation &&
      (old.operation.method !== tool.operation.method || old.operation.path !== tool.operation.path)
    ) {
      differences.push({
        breaking: false,
        text: `now ${tool.operation.method.toUpperCase()} ${tool.operation.path} (was ${old.operation.method.toUpperCase()} ${old.operation.path})`,
      });
    }
    if (old.description !== tool.description) differences.push({ breaking: false, text: "description changed" });
    if (renamed) {
      changes.push({
        kind: "renamed",
        tool: tool.name,
        from: renamed.name,
        breaking: true,
        details: differences.map((d) => d.text),
      });
    } else if (differences.length > 0) {
      changes.push({
        kind: "changed",
        tool: tool.name,
        breaking: differences.some((d) => d.breaking),
        details: differences.map((d) => (d.breaking ? `BREAKING: ${d.text}` : d.text)),
      });
    }
  }
  for (const tool of previous) {
    if (!after.has(tool.name) && removedByPointer.has(tool.pointer))
      changes.push({ kind: "removed", tool: tool.name, breaking: true, details: [] });
  }
  const order: Record<ChangeKind, number> = { removed: 0, renamed: 1, changed: 2, added: 3 };
  changes.sort((a, b) => order[a.kind] - order[b.kind] || (a.tool < b.tool ? -1 : 1));
  return { changes, breaking: changes.filter((change) => change.breaking).length };
}

interface Difference {
  breaking: boolean;
  text: string;
}

function compareInputs(before: JsonSchema, after: JsonSchema): Difference[] {
  const differences: Difference[] = [];
  const oldProperties = (before.properties ?? {}) as Record<string, JsonSchema>;
  const newProperties = (after.properties ?? {}) as Record<string, JsonSchema>;
  const oldRequired = new Set((before.required as string[] | undefined) ?? []);
  const newRequired = new Set((after.required as string[] | undefined) ?? []);
  for (const name of Object.keys(newProperties)) {
    if (!(name in oldProperties)) {
      differences.push(
        newRequired.has(name)
          ? { breaking: true, text: `new required parameter \`${name}\`` }
          : { breaking: false, text: `new optional parameter \`${name}\`` },
      );
      continue;
    }
    if (newRequired.has(name) && !oldRequired.has(name))
      differences.push({ breaking: true, text: `parameter \`${name}\` is now required` });
    differences.push(...compareProperty(name, oldProperties[name]!, newProperties[name]!));
  }
  for (const name of Object.keys(oldProperties)) {
    if (!(name in newProperties)) differences.push({ breaking: true, text: `parameter \`${name}\` removed` });
  }
  return differences;
}

function typesOf(schema: JsonSchema): Set<string> {
  const type = schema.type;
  return new Set(Array.isArray(type) ? (type as string[]) : typeof type === "string" ? [type] : []);
}

function compareProperty(name: string, before: JsonSchema, after: JsonSchema): Difference[] {
  const differences: Difference[] = [];
  const oldTypes = typesOf(before);
  const newTypes = typesOf(after);
  const lostTypes = [...oldTypes].filter(
    (type) => !newTypes.has(type) && !(type === "integer" && newTypes.has("number")),
  );
  if (oldTypes.size > 0 && newTypes.size > 0 && lostTypes.length > 0) {
    differences.push({
      breaking: true,
      text: `parameter \`${name}\` type narrowed from ${[...oldTypes].join("|")} to ${[...newTypes].join("|")}`,
    });
  } else if (oldTypes.size === 0 && newTypes.size > 0) {
    differences.push({ breaking: true, text: `parameter \`${name}\` now must be ${[...newTypes].join("|")}` });
  }
  const oldEnum = Array.isArray(before.enum) ? before.enum.map((value) => JSON.stringify(value)) : undefined;
  const newEnum = Array.isArray(after.enum) ? after.enum.map((value) => JSON.stringify(value)) : undefined;
  if (newEnum && (!oldEnum || oldEnum.some((value) => !newEnum.includes(value)))) {
    const removed = oldEnum ? oldEnum.filter((value) => !newEnum.includes(value)) : [];
    differences.push({
      breaking: true,
      text: oldEnum
        ? `parameter \`${name}\` enum narrowed (removed ${removed.join(", ")})`
        : `parameter \`${name}\` now limited to ${newEnum.join(", ")}`,
    });
  } else if (oldEnum && newEnum && newEnum.length > oldEnum.length) {
    differences.push({
      breaking: false,
      text: `parameter \`${name}\` accepts more values (${newEnum.filter((value) => !oldEnum.includes(value)).join(", ")})`,
    });
  }
  for (const [keyword, tighter] of [
    ["minimum", (a: number, b: number) => b > a],
    ["maximum", (a: number, b: number) => b < a],
    ["minLength", (a: number, b: number) => b > a],
    ["maxLength", (a: number, b: number) => b < a],
  ] as const) {
    const oldValue = before[keyword];
    const newValue = after[keyword];
    if (typeof newValue === "number" && (typeof oldValue !== "number" || tighter(oldValue, newValue))) {
      differences.push({ breaking: true, text: `parameter \`${name}\` ${keyword} tightened to ${newValue}` });
    }
  }
  return differences;
}

export function formatReport(report: ChangeReport, heading: string): string {
  const lines = [`## ${heading}`, ""];
  if (report.changes.length === 0) lines.push("No tool changes.");
  for (const change of report.changes) {
    const label = change.breaking ? "BREAKING " : "";
    const title =
      change.kind === "renamed"
        ? `${label}renamed: \`${change.from}\` → \`${change.tool}\``
        : `${label}${change.kind}: \`${change.tool}\``;
    lines.push(`- ${title}`);
    for (const detail of change.details) lines.push(`  - ${detail}`);
  }
  lines.push("", `${report.changes.length} change(s), ${report.breaking} breaking.`, "");
  return lines.join("\n");
}
