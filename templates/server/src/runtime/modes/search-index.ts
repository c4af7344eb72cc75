/**
 * The discovery mode's keyword index: built once (after the first
 * tools/list), searched by `search_operations`.
 */
import { shortDescription } from "../guidance/errors.js";
import type { ToolData } from "../shared/tool-data.js";

const STOPWORDS = new Set(
  "a an the of for to in on by with and or is are be this that from at as it its into via your you all any can will which".split(
    " ",
  ),
);

function stemToken(token: string): string {
  if (token.length > 4 && token.endsWith("ies")) return token.slice(0, -3) + "y";
  if (token.length > 4 && /(ches|shes|sses|xes)$/.test(token)) return token.slice(0, -2);
  if (token.length > 3 && token.endsWith("s") && !/(ss|us|is)$/.test(token)) return token.slice(0, -1);
  return token;
}

export function searchTokens(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((token) => token.length > 1 && !STOPWORDS.has(token))
    .map(stemToken);
}

export interface SearchHit {
  tool: ToolData;
  score: number;
}

/**
 * Keyword index over names, titles, descriptions, tags and paths. Each
 * operation keeps its best field weight per token; a query token scores
 * weight × idf on exact matches and 0.6 × that on prefix matches (`repo`
 * finds `repository`), and the total is scaled by the share of query tokens
 * matched, so operations matching every word come first.
 */
export class SearchIndex {
  private readonly postings = new Map<string, Array<[number, number]>>();
  private vocabulary: string[] = [];
  private readonly byName: Map<string, number>;
  private readonly nameTokens: string[][];
  /** Adjacent path-segment pairs (`terms>sets`): paths that differ only in segment order rank apart. */
  private readonly pathPairs = new Map<string, number[]>();
  /** `/a/{}/b` → operations, for queries that quote a path. */
  private readonly byPath = new Map<string, number[]>();

  constructor(private readonly tools: readonly ToolData[]) {
    this.byName = new Map(tools.map((tool, index) => [tool.name, index]));
    this.nameTokens = tools.map((tool) => [...new Set(searchTokens(tool.name))]);
    tools.forEach((tool, index) => {
      const weights = new Map<string, number>();
      const add = (text: string | undefined, weight: number) => {
        if (!text) return;
        for (const token of searchTokens(text)) if ((weights.get(token) ?? 0) < weight) weights.set(token, weight);
      };
      add(tool.name, 3);
      add(tool.operationId, 2.5);
      add(tool.title, 2);
      for (const tag of tool.tags ?? [tool.category]) add(tag, 2);
      add(tool.category, 2);
      add(tool.operation?.path.replace(/\{[^}]*\}/g, " "), 1.5);
      const description = tool.description ?? "";
      const first = shortDescription(description, 300);
      add(first, 1.5);
      add(description.slice(0, 600), 0.5);
      if (tool.operation) {
        add(tool.operation.method, 0.5);
        for (const pair of orderedPairs(tool.operation.path.replace(/\{[^}]*\}/g, " ")))
          pushTo(this.pathPairs, pair, index);
        pushTo(this.byPath, pathShape(tool.operation.path), index);
      }
      for (const [token, weight] of weights) {
        let list = this.postings.get(token);
        if (!list) this.postings.set(token, (list = []));
        list.push([index, weight]);
      }
    });
    this.vocabulary = [...this.postings.keys()].sort();
  }

  private idf(token: string): number {
    return Math.log(1 + this.tools.length / (this.postings.get(token)?.length ?? this.tools.length));
  }

  search(query: string, options: { category?: string; limit?: number } = {}): { hits: SearchHit[]; total: number } {
    const tokens = [...new Set(searchTokens(query))];
    const category = options.category?.toLowerCase();
    const inCategory = (tool: ToolData) =>
      category === undefined ||
      tool.category.toLowerCase() === category ||
      (tool.tags ?? []).some((tag) => tag.toLowerCase() === category);
    const scores = new Map<number, { score: number; matched: number }>();
    for (const token of tokens) {
      const best = new Map<number, number>();
      const credit = (entries: Array<[number, number]> | undefined, factor: number, idf: number) => {
        for (const [index, weight] of entries ?? []) {
          const value = weight * idf * factor;
          if ((best.get(index) ?? 0) < value) best.set(index, value);
        }
      };
      credit(this.postings.get(token), 1, this.idf(token));
      if (token.length >= 3) {
        // Binary search to the first vocabulary entry >= token, then walk the prefix range.
        let lo = 0;
        let hi = this.vocabulary.length;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (this.vocabulary[mid]! < token) lo = mid + 1;
          else hi = mid;
        }
        for (let i = lo; i < this.vocabulary.length && this.vocabulary[i]!.startsWith(token); i++) {
          const word = this.vocabulary[i]!;
          if (word !== token) credit(this.postings.get(word), 0.6, this.idf(word));
        }
      }
      for (const [index, value] of best) {
        const entry = scores.get(index) ?? { score: 0, matched: 0 };
        entry.score += value;
        entry.matched += 1;
        scores.set(index, entry);
      }
    }
    for (const pair of new Set(orderedPairs(query))) {
      for (const index of this.pathPairs.get(pair) ?? []) {
        const entry = scores.get(index);
        if (entry) entry.score += 1.5;
      }
    }
    for (const quoted of query.match(/\/[^\s]+/g) ?? []) {
      for (const index of this.byPath.get(pathShape(quoted)) ?? [])
        scores.set(index, { score: 1e5, matched: tokens.length || 1 });
    }
    const exact = this.byName.get(query.trim());
    if (exact !== undefined) scores.set(exact, { score: 1e6, matched: tokens.length || 1 });
    const hits: SearchHit[] = [];
    for (const [index, { score, matched }] of scores) {
      const tool = this.tools[index]!;
      if (!inCategory(tool)) continue;
      const coverage = tokens.length ? matched / tokens.length : 1;
      // Of two names matching the same words, the one with fewer other words is the closer match.
      const extra = this.nameTokens[index]!.filter(
        (word) => !tokens.some((token) => word === token || (token.length >= 3 && word.startsWith(token))),
      ).length;
      hits.push({ tool, score: Math.round(((score * coverage * coverage) / (1 + 0.08 * extra)) * 100) / 100 });
    }
    hits.sort((a, b) => b.score - a.score || a.tool.name.localeCompare(b.tool.name));
    return { hits: hits.slice(0, options.limit ?? 10), total: hits.length };
  }
}

function orderedPairs(text: string): string[] {
  const tokens = searchTokens(text);
  return tokens.slice(1).map((token, index) => `${tokens[index]}>${token}`);
}

/** `/sites/{site-id}/lists/` → `/sites/{}/lists`, so a quoted path matches whatever its parameters are called. */
function pathShape(path: string): string {
  return path
    .replace(/\{[^}]*\}/g, "{}")
    .replace(/\/+$/, "")
    .toLowerCase();
}

function pushTo(map: Map<string, number[]>, key: string, index: number): void {
  const list = map.get(key);
  if (list) {
    if (list[list.length - 1] !== index) list.push(index);
  } else map.set(key, [index]);
}
