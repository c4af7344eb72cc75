/**
 * Which operations a server exposes. The same filter runs in the generator
 * (`--include-tags` and friends) and when the server starts (flags or
 * `<PREFIX>_INCLUDE_TAGS`...), so both mean exactly the same thing.
 */
import type { ToolData } from "./tool-data.js";

export interface ToolFilter {
  includeTags?: string[];
  excludeTags?: string[];
  /** Globs (`*`, `?`) matched against the tool name and the operationId. */
  includeOperations?: string[];
  excludeOperations?: string[];
  /** HTTP methods to keep, e.g. `["get", "post"]`. */
  methods?: string[];
  /** Keep only tools that do not change anything (GET/HEAD/OPTIONS, read-only handlers). */
  readOnly?: boolean;
}

const SAFE_METHODS = new Set(["get", "head", "options"]);

export function isEmptyFilter(filter: ToolFilter): boolean {
  return (
    !filter.readOnly &&
    [filter.includeTags, filter.excludeTags, filter.includeOperations, filter.excludeOperations, filter.methods].every(
      (list) => !list || list.length === 0,
    )
  );
}

export function filterTools<
  T extends Pick<ToolData, "name" | "category" | "tags" | "operationId" | "operation" | "annotations">,
>(tools: readonly T[], filter: ToolFilter): T[] {
  if (isEmptyFilter(filter)) return [...tools];
  const lower = (values: string[] | undefined) => values?.map((value) => value.toLowerCase());
  const includeTags = lower(filter.includeTags);
  const excludeTags = lower(filter.excludeTags);
  const methods = lower(filter.methods);
  const includeOps = filter.includeOperations?.map(globToRegExp);
  const excludeOps = filter.excludeOperations?.map(globToRegExp);
  return tools.filter((tool) => {
    const tags = (tool.tags && tool.tags.length > 0 ? tool.tags : [tool.category]).map((tag) => tag.toLowerCase());
    const ids = [tool.name, tool.operationId].filter((id): id is string => typeof id === "string");
    const method = tool.operation?.method;
    if (includeTags?.length && !tags.some((tag) => includeTags.includes(tag))) return false;
    if (excludeTags?.length && tags.some((tag) => excludeTags.includes(tag))) return false;
    if (includeOps?.length && !includeOps.some((glob) => ids.some((id) => glob.test(id)))) return false;
    if (excludeOps?.length && excludeOps.some((glob) => ids.some((id) => glob.test(id)))) return false;
    if (methods?.length && (!method || !methods.includes(method))) return false;
    if (filter.readOnly && !(method ? SAFE_METHODS.has(method) : tool.annotations.readOnlyHint)) return false;
    return true;
  });
}

export function globToRegExp(glob: string): RegExp {
  const source = glob
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  return new RegExp(`^${source}$`, "i");
}

/** `"a, b ,c"` → `["a", "b", "c"]`; for comma-separated flags and env vars. */
export function parseList(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const items = value
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);
  return items.length > 0 ? items : undefined;
}
