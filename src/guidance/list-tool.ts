/**
 * The list or search tool of the resource a tool acts on: by route (GET on the collection, or a
 * search-like child of it) for OpenAPI operations, by name (get_pet → list_pets) for JSON Schema tools.
 */
import type { ToolModel } from "../model/ir.js";
import { isItem, key, type LinkIndex } from "./links.js";
import { words } from "./schema-util.js";

const LISTY = /(^|[^a-z])(search|find|list|query|all)/i;

/** The list/search tool for the resource `tool` acts on (404 guidance, next steps), if the API has one. */
export function findListTool(tool: ToolModel, index: LinkIndex): string | undefined {
  const info = index.info.get(tool);
  if (info) {
    let collection: string[] | undefined;
    if (isItem(info)) collection = info.shape.slice(0, -1);
    else if (info.method !== "get") {
      // POST /pets → /pets; an action under an item (POST /pets/{id}/feed) → /pets.
      const itemIdx = info.shape.lastIndexOf("{}");
      collection = itemIdx >= 1 && info.shape.length - itemIdx === 2 ? info.shape.slice(0, itemIdx) : info.shape;
    }
    if (!collection || collection.length === 0) return undefined;
    const list = index.byRoute.get(`get ${key(collection)}`);
    if (list && list.tool !== tool) return list.tool.name;
    const search = (index.children.get(key(collection)) ?? []).find(
      (c) => c.method === "get" && !isItem(c) && LISTY.test(c.shape[c.shape.length - 1] ?? ""),
    );
    return search && search.tool !== tool ? search.tool.name : undefined;
  }
  // No HTTP binding (JSON Schema input): go by names, get_pet → list_pets / search_pets.
  const ws = words(tool.name);
  if (
    ws.length < 2 ||
    !["get", "update", "delete", "remove", "patch", "set", "fetch", "read", "create", "edit"].includes(ws[0]!)
  ) {
    return undefined;
  }
  const noun = ws.slice(1).join("");
  const plural = /[^aeiou]y$/.test(noun)
    ? noun.slice(0, -1) + "ies"
    : /(s|x|z|ch|sh)$/.test(noun)
      ? noun + "es"
      : noun + "s";
  for (const verb of ["list", "search", "find", "query", "getall"]) {
    for (const n of [plural, noun]) {
      const hit = index.byName.get(verb + n);
      if (hit && hit !== tool) return hit.name;
    }
  }
  return undefined;
}
