/**
 * A guided error as the agent reads it: `renderError` (Markdown) and
 * `renderSchemaHint`. guidance/result.ts puts the text in the `CallToolResult`.
 */
import type { GuidedError, HintLevel, Issue } from "../call/types.js";
import { isPlainObject } from "../shared/json.js";
import { shortDescription } from "./errors.js";
import { renderCallWithNote, seconds } from "./text.js";

function json(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? "null";
}

function inline(value: unknown): string {
  return JSON.stringify(value) ?? "undefined";
}

function renderIssue(issue: Issue, i: number): string {
  const lines = [`${i + 1}. **${issue.field}** (${issue.code}): ${issue.problem}`];
  if (issue.received !== undefined) lines.push(`   - Received: ${inline(issue.received)}`);
  lines.push(`   - Expected: ${issue.expected}`);
  lines.push(`   - Fix: ${issue.fix}`);
  if (issue.did_you_mean !== undefined) lines.push(`   - Did you mean: ${inline(issue.did_you_mean)}`);
  return lines.join("\n");
}

/** Markdown rendering of a schema hint at any level. */
export function renderSchemaHint(hint: unknown, level: HintLevel): string {
  if (!isPlainObject(hint)) return "";
  if (level === "minimal") {
    const req = (hint["required"] as string[] | undefined) ?? [];
    const opt = (hint["optional"] as string[] | undefined) ?? [];
    return `Required: ${req.join(", ") || "(none)"}\nOptional: ${opt.join(", ") || "(none)"}`;
  }
  if (level === "typed") {
    return Object.entries(hint)
      .map(([name, h]) => {
        const t = h as { type?: string; required?: boolean; default?: unknown; enum?: unknown[] };
        const bits = [t.type ?? "any", t.required ? "required" : "optional"];
        if (t.default !== undefined) bits.push(`default ${inline(t.default)}`);
        if (t.enum) bits.push(`one of: ${t.enum.map((v) => (typeof v === "string" ? v : inline(v))).join(", ")}`);
        return `- **${name}** (${bits.join(", ")})`;
      })
      .join("\n");
  }
  const full = hint as {
    description?: string;
    required?: string[];
    properties?: Record<string, Record<string, unknown>>;
  };
  const lines: string[] = [];
  if (full.description) lines.push(shortDescription(full.description, 400) ?? "");
  const required = new Set(full.required ?? []);
  for (const [name, schema] of Object.entries(full.properties ?? {})) {
    const s = schema ?? {};
    const type = Array.isArray(s["type"])
      ? (s["type"] as string[]).join("|")
      : ((s["type"] as string | undefined) ?? (s["enum"] ? "enum" : "any"));
    const c: string[] = [];
    for (const key of [
      "minimum",
      "maximum",
      "exclusiveMinimum",
      "exclusiveMaximum",
      "multipleOf",
      "minLength",
      "maxLength",
      "pattern",
      "format",
      "minItems",
      "maxItems",
    ])
      if (s[key] !== undefined) c.push(`${key} ${inline(s[key])}`);
    if (Array.isArray(s["enum"]))
      c.push(`one of: ${(s["enum"] as unknown[]).map((v) => (typeof v === "string" ? v : inline(v))).join(", ")}`);
    if (s["default"] !== undefined) c.push(`default ${inline(s["default"])}`);
    const desc = typeof s["description"] === "string" ? `: ${shortDescription(s["description"], 160)}` : "";
    lines.push(
      `- **${name}** (${type}, ${required.has(name) ? "required" : "optional"})${desc}` +
        (c.length ? `\n  Constraints: ${c.join(", ")}` : ""),
    );
  }
  return lines.join("\n");
}

/** Markdown for the model, in the style of the self-healing error seed. */
export function renderError(error: GuidedError): string {
  const out: string[] = [`❌ ${error.code}: ${error.message}`];
  if (error.issues.length)
    out.push(`## Issues found (${error.issues.length})\n\n${error.issues.map(renderIssue).join("\n\n")}`);
  if (error.warnings?.length) out.push(`## Warnings\n\n${error.warnings.map((w) => `- ${w}`).join("\n")}`);
  if (error.corrective_params && error.tool)
    out.push(
      `## Corrected call (passes validation)\n\nCall \`${error.tool}\` with:\n\`\`\`json\n${json(error.corrective_params)}\n\`\`\``,
    );
  if (error.suggestions.alternatives?.length)
    out.push(
      `## Similar tools\n\n${error.suggestions.alternatives
        .map((a) => `- ${a.name} (${a.score})${a.description ? `: ${a.description}` : ""}`)
        .join("\n")}`,
    );
  const categories = error.details?.["categories"];
  if (Array.isArray(categories) && categories.length)
    out.push(
      `## Categories\n\n${(categories as Array<{ name: string; count: number }>).map((c) => `${c.name} (${c.count})`).join(", ")}`,
    );
  if (error.details && error.code !== "UNKNOWN_TOOL") {
    const { categories: _c, ...rest } = error.details;
    if (Object.keys(rest).length) out.push(`## Details\n\n\`\`\`json\n${json(rest)}\n\`\`\``);
  }
  if (error.schema_hint !== undefined && error.schema_hint_level) {
    const rendered = renderSchemaHint(error.schema_hint, error.schema_hint_level);
    if (rendered) out.push(`## Tool schema (${error.schema_hint_level})\n\n${rendered}`);
  }
  if (error.valid_example) out.push(`## Valid example\n\n\`\`\`json\n${json(error.valid_example)}\n\`\`\``);
  if (error.retry_after_ms !== undefined) out.push(`Retry after: ${seconds(error.retry_after_ms)}`);
  if (error.recovery_actions?.length)
    out.push(`## Recovery plan\n\n${error.recovery_actions.map((a, i) => `${i + 1}. ${a}`).join("\n")}`);
  if (error.fallback_tool) out.push(`Fallback tool: \`${error.fallback_tool}\``);
  if (error.next_steps.length)
    out.push(
      `## Next steps\n\n${error.next_steps.map((s, i) => `${i + 1}. ${typeof s === "string" ? s : renderCallWithNote(s)}`).join("\n")}`,
    );
  return out.join("\n\n");
}
