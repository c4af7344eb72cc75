/**
 * The tie-break of producer ranking (src/guidance/best.ts): names in the order an English collator gives, with
 * derived names (`[a-z0-9_]`) compared without ICU. Checked against `Intl.Collator("en")` itself.
 */
import { describe, expect, it } from "vitest";
import { byLocale, keepBest, type RankedEntry } from "../../src/guidance/best.js";

const english = new Intl.Collator("en");
const sign = (n: number): number => Math.sign(n);

/** A small deterministic generator (mulberry32): the same cases on every run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function names(alphabet: string, count: number, seed: number): string[] {
  const next = random(seed);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    let name = "";
    const length = Math.floor(next() * 7);
    for (let j = 0; j < length; j++) name += alphabet[Math.floor(next() * alphabet.length)];
    out.push(name);
  }
  return out;
}

describe("byLocale", () => {
  it("orders derived names as an English collator does (every pair of 300 random names)", () => {
    // Few letters, so names share prefixes and differ at every kind of character.
    const list = names("ab_09yz", 300, 7);
    let compared = 0;
    for (const a of list)
      for (const b of list) {
        expect(sign(byLocale(a, b)), `${a} vs ${b}`).toBe(sign(english.compare(a, b)));
        compared++;
      }
    expect(compared).toBe(90_000);
  });

  it("puts `_` before digits and digits before letters, and a prefix first", () => {
    expect(byLocale("a_b", "a1")).toBeLessThan(0);
    expect(byLocale("a9", "aa")).toBeLessThan(0);
    expect(byLocale("get_pet", "get_pet_photos")).toBeLessThan(0);
    expect(byLocale("get_pets", "get_pet_photos")).toBeGreaterThan(0);
    expect(byLocale("list", "list")).toBe(0);
  });

  it("leaves other names to the collator: case, hyphens and other characters", () => {
    const list = [...names("aA-_1.é", 120, 11), "Get-Pet", "get_pet", "getPet", "GET_PET", "get-pet", "get_pet2"];
    for (const a of list)
      for (const b of list) expect(sign(byLocale(a, b)), `${a} vs ${b}`).toBe(sign(english.compare(a, b)));
  });
});

describe("keepBest", () => {
  it("keeps the first three of a stable sort by rank, then name", () => {
    const next = random(3);
    const pool = names("abc_1", 40, 5);
    for (let round = 0; round < 200; round++) {
      const offered: RankedEntry[] = [];
      for (let i = 0; i < 12; i++)
        offered.push({ rank: [Math.floor(next() * 2), Math.floor(next() * 3)], name: pool[Math.floor(next() * 40)]! });
      const best: RankedEntry[] = [];
      for (const entry of offered) keepBest(best, entry, 3);
      const sorted = [...offered].sort(
        (x, y) => x.rank[0]! - y.rank[0]! || x.rank[1]! - y.rank[1]! || english.compare(x.name, y.name),
      );
      expect(best).toEqual(sorted.slice(0, 3));
      expect(best.every((entry, i) => entry === sorted[i])).toBe(true);
    }
  });
});
