import { describe, expect, it } from "vitest";
import {
  AUTO_CORRECT,
  LIST,
  SUGGEST,
  confidentMatch,
  rankMatches,
  similarity,
} from "../../templates/server/src/runtime/guidance/fuzzy.js";

describe("similarity", () => {
  it.each([
    // input, candidate, min, max
    ["search", "search", 1, 1],
    ["petid", "petId", 0.95, 0.99],
    ["pet_id", "petId", 0.95, 0.99],
    ["patern", "pattern", AUTO_CORRECT + 0.001, 0.99],
    ["statuss", "status", AUTO_CORRECT + 0.001, 0.99],
    ["offest", "offset", AUTO_CORRECT + 0.001, 0.99],
    ["tag", "tags", AUTO_CORRECT + 0.001, 0.99],
    ["user_search", "search_users", SUGGEST, AUTO_CORRECT],
    ["serach", "search", SUGGEST, 1],
    ["sea", "search", SUGGEST, AUTO_CORRECT],
    ["limt", "limit", SUGGEST, AUTO_CORRECT],
    ["auth", "authenticate", LIST, AUTO_CORRECT],
    ["xyz", "search", 0, LIST - 0.001],
    ["", "search", 0, 0],
    ["colour", "color", SUGGEST, 1],
  ])("%s ~ %s in [%s, %s]", (input, candidate, min, max) => {
    const s = similarity(input, candidate);
    expect(s).toBeGreaterThanOrEqual(min);
    expect(s).toBeLessThanOrEqual(max);
  });

  it("stays within [0, 1]", () => {
    for (const [a, b] of [
      ["a", "b"],
      ["aaaaaaaaaaaa", "a"],
      ["get_pet_by_id", "getPetById"],
      ["x-request-id", "X-Request-Id"],
    ])
      (expect(similarity(a!, b!)).toBeGreaterThanOrEqual(0), expect(similarity(a!, b!)).toBeLessThanOrEqual(1));
  });
});

describe("rankMatches", () => {
  const candidates = ["search", "search_code", "search_files", "list_files", "get_user"];
  it("sorts best first and applies min", () => {
    const ranked = rankMatches("serach", candidates);
    expect(ranked[0]!.name).toBe("search");
    for (let i = 1; i < ranked.length; i++) expect(ranked[i - 1]!.score).toBeGreaterThanOrEqual(ranked[i]!.score);
    expect(ranked.every((m) => m.score >= LIST)).toBe(true);
    expect(rankMatches("serach", candidates, { min: 0.99 })).toEqual([]);
    expect(rankMatches("serach", candidates, { limit: 2 })).toHaveLength(2);
  });
  it("confidentMatch refuses ties", () => {
    expect(confidentMatch("colr", ["color", "colar"], LIST)).toBeUndefined();
    expect(confidentMatch("patern", ["pattern", "filter"], AUTO_CORRECT)?.name).toBe("pattern");
  });
});
