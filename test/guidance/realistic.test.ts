/**
 * Issue 13 "Examples that look like real data": the spec's own examples
 * first (parameter `examples` maps, media type examples), then values chosen
 * by name; identifiers stay labelled placeholders that keep their pattern.
 */
import { join } from "node:path";
import { generateMersenne53Randomizer } from "@faker-js/faker";
import { faker } from "@faker-js/faker/locale/en";
import { describe, expect, it } from "vitest";
import { createExampleGenerator } from "../../src/guidance/examples/index.js";
import { createMersenne53, isMersenne53 } from "../../src/guidance/examples/mersenne.js";
import { wasmSeeding } from "../../src/guidance/examples/seeding.js";
import { adjective, noun, slug } from "../../src/guidance/examples/realistic.js";
import { addGuidance } from "../../src/guidance/index.js";
import type { JsonSchema } from "../../src/model/ir.js";
import { createAjv } from "../../templates/server/src/runtime/shared/ajv.js";
import { looksRandom } from "../bench/realism.mjs";
import { modelFrom, SAMPLES } from "../helpers/pipeline.js";

const str = (extra: JsonSchema = {}): JsonSchema => ({ type: "string", ...extra });

/** Argument name → what its realistic example must look like. */
const BY_NAME: Array<[string, JsonSchema, RegExp]> = [
  ["email", str(), /^[a-z0-9._-]+@example\.com$/],
  ["owner", str(), /^[a-z]+(-[a-z']+)+$/],
  ["repo", str(), /^[a-z]+(-[a-z]+)+$/],
  ["title", str({ maxLength: 80 }), /^[A-Z]/],
  ["description", str(), /^[A-Z].* .*\.$/],
  ["homepage_url", str(), /^https:\/\/[a-z.-]+\/$/],
  ["city", str(), /^[A-Z]/],
  ["country", str(), /^[A-Z]/],
  ["phone", str(), /^\+\d{7,}$/],
  ["created_at", str(), /^\d{4}-\d\d-\d\dT/],
  ["uuid", str(), /^[0-9a-f]{8}-[0-9a-f]{4}-/],
  ["sha", str(), /^[0-9a-f]{40}$/],
  ["q", str(), /^[a-z-]+ [a-z-]+$/],
  ["first_name", str(), /^[A-Z][a-z]+/],
  ["author_id", str(), /^author_example$/],
  ["book_id", str({ pattern: "^bk_[a-z0-9]+$" }), /^bk_example$/],
];

describe("realistic examples by name", () => {
  const schema: JsonSchema = {
    type: "object",
    properties: {
      ...Object.fromEntries(BY_NAME.map(([name, s]) => [name, s])),
      per_page: { type: "integer", minimum: 1, maximum: 100 },
      page: { type: "integer" },
      price: { type: "number", minimum: 0 },
      amount: { type: "integer" },
      tags: { type: "array", items: str() },
    },
    required: BY_NAME.map(([name]) => name),
    additionalProperties: false,
  };

  it.each(BY_NAME)("%s", (name, _schema, shape) => {
    const { examples } = createExampleGenerator().build(schema, 7);
    expect(examples?.full[name]).toMatch(shape);
    expect(looksRandom(String(examples?.full[name]))).toBe(false);
  });

  it("numbers by name: pages from 1, limits of 10, prices", () => {
    const full = createExampleGenerator().build(schema, 7).examples!.full;
    expect(full).toMatchObject({ per_page: 10, page: 1, price: 19.99, amount: 2000 });
    // A single realistic item is not repeated to fill the array.
    expect(full["tags"]).toHaveLength(1);
  });

  it("is deterministic and passes the validator", () => {
    const a = createExampleGenerator().build(schema, 7).examples!;
    const b = createExampleGenerator().build(schema, 7).examples!;
    expect(a).toEqual(b);
    const validate = createAjv().compile(schema);
    expect(validate(a.full), JSON.stringify(validate.errors)).toBe(true);
    expect(validate(a.minimal), JSON.stringify(validate.errors)).toBe(true);
  });

  it("a realistic value that breaks the schema is not used", () => {
    const tight: JsonSchema = {
      type: "object",
      properties: { email: str({ maxLength: 5 }), owner: str({ pattern: "^[0-9]+$" }) },
      required: ["email", "owner"],
    };
    const { examples } = createExampleGenerator().build(tight, 1);
    expect(createAjv().compile(tight)(examples!.full)).toBe(true);
  });

  it("the spec's own example wins over a realistic one", () => {
    const own: JsonSchema = { type: "object", properties: { title: str({ examples: ["Dune"] }) }, required: ["title"] };
    expect(createExampleGenerator().build(own, 1).examples!.minimal).toEqual({ title: "Dune" });
  });
});

describe("spec examples and placeholders (samples/catalogue.yaml)", () => {
  it("uses parameter `examples` maps and media type examples, and labels identifiers", async () => {
    const guided = addGuidance(await modelFrom(join(SAMPLES, "catalogue.yaml")), { seed: 1 });
    const tool = (name: string) => guided.tools.find((t) => t.name === name)!;
    // A parameter's `examples` map.
    expect(tool("list_books").guidance.examples!.full["q"]).toBe("dune");
    // The request body's media type example, spread over the flattened arguments.
    expect(tool("create_order").guidance.examples!.minimal).toEqual({ book_id: "bk_dune", quantity: 1 });
    expect(tool("create_order").guidance.examples!.full["note"]).toBe("Gift wrap, please.");
    // Identifiers: placeholders that keep the pattern, labelled in the typed hints.
    expect(tool("get_book").guidance.examples!.minimal).toEqual({ bookId: "bk_example" });
    expect(tool("get_order").guidance.examples!.minimal).toEqual({ orderId: "ord_example" });
    expect(tool("get_book").guidance.hints.typed["bookId"]!.placeholder).toMatch(/placeholder/);
    expect(tool("create_book").guidance.hints.typed["author_id"]!.placeholder).toMatch(/placeholder/);
    expect(tool("create_book").guidance.hints.typed["title"]!.placeholder).toBeUndefined();
    expect(tool("list_books").guidance.hints.typed["q"]!.placeholder).toBeUndefined();
  });
});

// Seeding in JavaScript (never WebAssembly), in WebAssembly from the first seed, and as a run does (JavaScript, then
// WebAssembly once it has reseeded often): the very same words.
describe.each([
  ["JavaScript", { wasmAfter: Infinity }],
  ["WebAssembly", { wasmAfter: 0 }],
  ["as a run seeds", {}],
] as const)("the randomizer behind realistic values, seeding in %s", (_, seeding) => {
  it("draws exactly what faker's own Mersenne Twister draws, across reseeds and state refills", () => {
    const reference = generateMersenne53Randomizer(1);
    const ours = createMersenne53(1, seeding);
    const seeds = [
      0,
      1,
      42,
      2 ** 31 - 1,
      2 ** 31,
      2 ** 32 - 1,
      ...Array.from({ length: 40 }, (_, i) => (i * 2654435761) >>> 0),
    ];
    for (const seed of seeds) {
      reference.seed(seed);
      ours.seed(seed);
      // 1,300 draws = 2,600 words: past the 624-word state several times.
      const expected = Array.from({ length: 1300 }, () => reference.next());
      expect(Array.from({ length: 1300 }, () => ours.next())).toEqual(expected);
    }
  });

  it("draws the same after reseeds that interrupt a partly drawn state", () => {
    // A reseed fills and twists the state only as far as draws reach: interrupt it at every stage.
    const reference = generateMersenne53Randomizer(3);
    const ours = createMersenne53(3, seeding);
    for (const [seed, draws] of [
      [5, 1],
      [6, 0],
      [7, 17],
      [8, 113],
      [9, 200],
      [10, 311],
      [11, 312],
      [12, 313],
      [13, 700],
      [14, 2],
    ] as const) {
      reference.seed(seed);
      ours.seed(seed);
      const expected = Array.from({ length: draws }, () => reference.next());
      expect(Array.from({ length: draws }, () => ours.next())).toEqual(expected);
    }
  });

  it("draws the same words over many seeds, draw counts and refills", () => {
    const reference = generateMersenne53Randomizer(11);
    const ours = createMersenne53(11, seeding);
    for (let round = 0; round < 300; round++) {
      const seed = (round * 2654435761 + 12345) >>> 0;
      reference.seed(seed);
      ours.seed(seed);
      const draws = (round * 37) % 1500;
      const expected = Array.from({ length: draws }, () => reference.next());
      expect(Array.from({ length: draws }, () => ours.next())).toEqual(expected);
    }
  });
});

describe("the WebAssembly seeding", () => {
  it("is made in Node, and seeds the words the recurrence gives, from any word on", () => {
    const seeding = wasmSeeding(624);
    expect(seeding).toBeDefined();
    for (const first of [5489, 0, 2 ** 31 - 1, -1, 123456789]) {
      const expected = new Int32Array(624);
      expected[0] = first;
      for (let i = 1; i < 624; i++)
        expected[i] = (Math.imul(1812433253, expected[i - 1]! ^ (expected[i - 1]! >>> 30)) + i) | 0;
      seeding!.state[0] = first;
      // In two pieces, as a reseed seeds only as far as its draws reach.
      seeding!.seed(1, 405);
      seeding!.seed(405, 624);
      expect(Array.from(seeding!.state)).toEqual(Array.from(expected));
    }
  });
});

describe("the randomizer in use", () => {
  it("is the one the en faker instance draws from", () => {
    const core = (faker as unknown as { fakerCore?: { randomizer?: unknown } }).fakerCore;
    faker.seed(7);
    const drawn = faker.number.int(1_000_000);
    const own = generateMersenne53Randomizer(7);
    // Same value as faker's own randomizer, through ours.
    expect(drawn).toBe(Math.floor(own.next() * 1_000_001));
    expect(isMersenne53(core?.randomizer)).toBe(true);
  });
});

describe("cheaper draws of faker's values", () => {
  it("adjective and noun draw exactly what faker's word.adjective and word.noun draw, seed after seed", () => {
    // Interleaved as the picker calls them (two words, then one noun), and long enough to move the state on.
    const seeds = Array.from({ length: 2000 }, (_, i) => (i * 2654435761) >>> 0);
    for (const seed of seeds) {
      faker.seed(seed);
      const expected = [faker.word.adjective(), faker.word.noun(), faker.word.noun(), faker.word.adjective()];
      faker.seed(seed);
      const ours = [adjective(faker), noun(faker), noun(faker), adjective(faker)];
      expect(ours).toEqual(expected);
      // Both leave faker's randomizer in the same place: the next draw agrees too.
      faker.seed(seed);
      void [faker.word.adjective(), faker.word.noun()];
      const after = faker.number.int(1_000_000);
      faker.seed(seed);
      void [adjective(faker), noun(faker)];
      expect(faker.number.int(1_000_000)).toBe(after);
    }
  });

  it("slug gives what the two regular expressions gave", () => {
    const reference = (text: string): string =>
      text
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, "-")
        .replace(/^-+|-+$/g, "");
    const texts = [
      "",
      "-",
      "--a--",
      "Jane Doe",
      "O'Reilly & Sons, Inc.",
      "  x  ",
      "İstanbul Çay",
      "Ünïcödé—dash",
      "a1-B2_c3",
    ];
    faker.seed(11);
    for (let i = 0; i < 500; i++) texts.push(faker.company.name(), faker.person.fullName(), faker.string.sample(12));
    for (const text of texts) expect(slug(text)).toBe(reference(text));
  });
});
