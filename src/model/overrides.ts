/** `x-mcp` on the root, a path item or an operation: hide it, or override its name, title and description. */
import { childPointer } from "../diagnostics.js";
import { isObject } from "../normalise/index.js";
import type { Diagnostic } from "./ir.js";

/**
 * `x-mcp` on the root, a path item or an operation: `false` hides it; an
 * object overrides `name`, `title`, `description` and `hidden`. Names and
 * descriptions apply only at the operation level; `hidden` inherits downwards.
 */
export interface McpOverride {
  hidden?: boolean;
  name?: string;
  title?: string;
  description?: string;
}

export function readMcpExtension(value: unknown, pointer: string, diagnostics: Diagnostic[]): McpOverride {
  if (value === undefined) return {};
  if (value === false) return { hidden: true };
  if (value === true) return { hidden: false };
  if (!isObject(value)) {
    diagnostics.push({
      pointer,
      severity: "warning",
      message: "x-mcp must be false or an object",
      fix: "use `x-mcp: false` to hide, or an object with name/title/description/hidden",
    });
    return {};
  }
  const override: McpOverride = {};
  if (typeof value.hidden === "boolean") override.hidden = value.hidden;
  for (const key of ["name", "title", "description"] as const) {
    if (value[key] === undefined) continue;
    if (typeof value[key] === "string" && (value[key] as string).trim()) override[key] = (value[key] as string).trim();
    else
      diagnostics.push({
        pointer: childPointer(pointer, key),
        severity: "warning",
        message: `x-mcp.${key} must be a non-empty string`,
        fix: "fix or remove it",
      });
  }
  if (override.name !== undefined && !/^[a-zA-Z0-9_-]{1,64}$/.test(override.name)) {
    diagnostics.push({
      pointer: childPointer(pointer, "name"),
      severity: "warning",
      message: `x-mcp.name "${override.name}" is not a valid tool name, so it is normalised`,
      fix: "use 1-64 characters from [a-zA-Z0-9_-]",
    });
  }
  return override;
}

export function mergeOverrides(root: McpOverride, path: McpOverride, operation: McpOverride): McpOverride {
  const hidden = operation.hidden ?? path.hidden ?? root.hidden ?? false;
  return { ...operation, hidden };
}
