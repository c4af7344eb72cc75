/**
 * Example values that look like real data, chosen by the argument's name
 * (and, failing that, its description): `email` → `jane.doe@example.com`,
 * `owner` → `jane-doe`, `repo` → `quiet-river`, `title` → a book title.
 *
 * Values come from @faker-js/faker through a curated name → generator table,
 * seeded per tool and name, so the same spec always gives the same examples.
 * Identifiers stay obvious placeholders (`author_example`, `bk_example` for a
 * `^bk_` pattern): a realistic-looking made-up id would be mistaken for a real one.
 * A value is offered only when it meets the schema's length and pattern; the
 * caller still validates the whole example.
 */
import { faker } from "@faker-js/faker/locale/en";
import type { JsonSchema } from "../../model/ir.js";
import { identifierStem } from "../identifiers.js";
import { declaredTypes, fitsString, hashString, words } from "../schema-util.js";
import { createMersenne53, type Randomizer } from "./mersenne.js";

type Faker = typeof faker;

/**
 * faker's own randomizer with a cheaper reseed (mersenne.ts), put in place of
 * the en instance's: only this module draws from it, and it seeds before every
 * use. `fakerCore` is faker's internal holder, where every draw reads the
 * randomizer; were it to move, faker's own randomizer stays, with the same
 * values (test/guidance/realistic.test.ts notices).
 */
const core = (faker as unknown as { fakerCore?: { randomizer?: Randomizer } }).fakerCore;
if (core?.randomizer) core.randomizer = createMersenne53(0);

/** What is known about the argument a schema describes. */
export interface ValueRole {
  /** Property (or singular array) name, e.g. `author_id`, `label`. */
  name: string;
  /** Named or described as an identifier. */
  identifier: boolean;
  description?: string;
  /** Name of the enclosing property, if any (`author` for `author.name`). */
  parent?: string;
}

interface StringRule {
  /** Matched against the role's words joined by spaces (`author_email` → "author email"). */
  test: RegExp;
  make: (f: Faker, role: ValueRole) => string;
  /** Too generic to be read from a description's first words. */
  nameOnly?: true;
}

/**
 * Lower case, every run of characters other than `a-z0-9` one dash, none at either end: what
 * `.replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "")` gives, in one pass without the two regex replaces.
 */
export function slug(text: string): string {
  const lower = text.toLowerCase();
  let out = "";
  let gap = false;
  for (let i = 0; i < lower.length; i++) {
    const c = lower.charCodeAt(i);
    if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57)) {
      if (gap && out.length > 0) out += "-";
      out += lower[i];
      gap = false;
    } else gap = true;
  }
  return out;
}

/**
 * faker's `word.adjective()` and `word.noun()` copy their whole word list (`[...list]`, thousands of words) and draw
 * one element of the copy; drawing it from the list itself is the same single draw (`helpers.arrayElement` on equal
 * contents) without the copy. test/guidance/realistic.test.ts compares both over many seeds. The lists are read
 * once per faker instance: `definitions` answers through two proxies (its locale data cannot be changed), slow in
 * code V8 has not optimised, such as the example worker's.
 */
export const adjective = (f: Faker): string => f.helpers.arrayElement(wordLists(f).adjective);
export const noun = (f: Faker): string => f.helpers.arrayElement(wordLists(f).noun);

let listsOwner: Faker | undefined;
let lists: { adjective: readonly string[]; noun: readonly string[] } | undefined;
function wordLists(f: Faker): { adjective: readonly string[]; noun: readonly string[] } {
  if (f !== listsOwner || !lists) {
    lists = { adjective: f.definitions.word.adjective, noun: f.definitions.word.noun };
    listsOwner = f;
  }
  return lists;
}

const personSlug = (f: Faker): string => slug(`${f.person.firstName()} ${f.person.lastName()}`);
const twoWords = (f: Faker): string => `${adjective(f)} ${noun(f)}`;
const placeholder = (role: ValueRole): string => {
  const stem =
    identifierStem(role.name) ??
    (role.parent && words(role.name).join("") === "id" ? words(role.parent).join("_") : undefined);
  return `${stem ?? words(role.name).join("_")}_example`;
};

/** Ordered: the first rule whose pattern matches the name wins. */
const STRING_RULES: StringRule[] = [
  { test: /\b(first|given) ?name$/, make: (f) => f.person.firstName() },
  { test: /\b(last|family|sur) ?name$/, make: (f) => f.person.lastName() },
  {
    test: /\b(full|display|real|contact|person|customer|recipient|sender|author|committer|user|owner|member|assignee|reviewer|creator|tagger|signer|holder) name$/,
    make: (f) => f.person.fullName(),
  },
  { test: /\be ?mail( address)?$/, make: (f) => f.internet.email({ provider: "example.com" }).toLowerCase() },
  {
    test: /\b(user ?name|login|owner|handle|screen name|assignee|creator|author|username|reviewer|actor|member|committer|user|mention|mentioned)$/,
    make: personSlug,
  },
  {
    test: /\b(org|orgs|organi[sz]ation|enterprise|team|workspace|tenant)( (name|slug|login))?$/,
    make: (f) => slug(f.company.name()),
  },
  {
    test: /\b(repo|repository|project|package|app|application|site|space|channel|bucket)( (name|slug))?$/,
    make: (f) => slug(twoWords(f)),
  },
  { test: /\bslug$/, make: (f) => slug(twoWords(f)) },
  {
    test: /\b(sha|commit|commit sha|commit id|hash|digest|tree sha|head sha|base sha)$/,
    make: (f) => f.git.commitSha(),
  },
  { test: /\b(branch|ref|base|head|branch name)$/, make: (f) => f.git.branch() },
  { test: /\b(tag|label|topic|keyword|category|genre|tags|labels|topics|categories)$/, make: noun },
  { test: /\b(title|subject|headline)$/, make: (f) => f.book.title() },
  { test: /\b(file ?name)$/, make: (f) => f.system.fileName() },
  { test: /\b(path|file path|file)$/, make: (f) => `docs/${f.system.fileName()}` },
  { test: /\b(product|item) name$/, make: (f) => f.commerce.productName() },
  { test: /\b(company|employer|business|publisher|vendor|supplier|merchant)( name)?$/, make: (f) => f.company.name() },
  { test: /\b(job|role|position)( title)?$/, make: (f) => f.person.jobTitle() },
  {
    test: /\b(description|summary|body|text|content|message|comment|note|notes|bio|details|about|reason|instructions|prompt|caption|statement)$/,
    make: (f) => f.company.catchPhrase() + ".",
  },
  {
    test: /\b(url|uri|link|href|homepage|website|web site|callback|webhook|redirect|endpoint|return url|image|avatar|icon|logo)$/,
    make: (f) => f.internet.url({ appendSlash: true }),
  },
  { test: /\b(domain|host|hostname|host name)$/, make: (f) => f.internet.domainName() },
  { test: /\b(ip|ip address|ipv4)$/, make: (f) => f.internet.ipv4() },
  { test: /\b(city|town|locality)$/, make: (f) => f.location.city() },
  { test: /\bcountry code$/, make: (f) => f.location.countryCode() },
  { test: /\bcountry$/, make: (f) => f.location.country() },
  {
    test: /\b(street|address|address line|line1|line2|address line1|address line2)$/,
    make: (f) => f.location.streetAddress(),
  },
  { test: /\b(zip|zip code|zipcode|postal code|postcode)$/, make: (f) => f.location.zipCode() },
  {
    test: /\b(phone|mobile|telephone|fax|phone number|tel|mobile number)$/,
    make: (f) => f.phone.number({ style: "international" }),
  },
  { test: /\b(uuid|guid)$/, make: (f) => f.string.uuid() },
  { test: /\b(date|birthday|birthdate|dob|day)$/, make: () => "2024-01-15" },
  {
    test: /\b(at|timestamp|datetime|since|until)$|\b(created|updated|modified|expires|due|published|deleted)( (at|on|time))?$/,
    make: () => "2024-01-15T09:30:00Z",
  },
  {
    test: /^(q|query|search|keywords?|term|terms|search term|search query|search text|text query|filter text)$/,
    make: (f) => twoWords(f),
  },
  { test: /\b(lang|language|locale)$/, make: () => "en" },
  { test: /\bcurrency( code)?$/, make: (f) => f.helpers.arrayElement(["USD", "EUR", "GBP", "JPY"]) },
  { test: /\bcolou?r$/, make: (f) => f.color.human() },
  { test: /\bversion$/, make: (f) => f.system.semver() },
  { test: /\b(time ?zone|tz)$/, make: (f) => f.location.timeZone() },
  { test: /\b(mime type|content type|media type|mime)$/, make: () => "application/json" },
  { test: /\b(isbn)$/, make: (f) => f.commerce.isbn() },
  { test: /\b(price|amount|cost|fee|total)$/, make: (f) => f.commerce.price() },
  {
    test: /\b(token|secret|password|api key|signature|nonce|cursor|etag|code|key|after|before|starting after|ending before)$/,
    make: (_f, role) => placeholder(role),
    nameOnly: true,
  },
  { test: /\b(name)$/, make: (f) => twoWords(f), nameOnly: true },
];

/** Small, sensible numbers by name: pages start at 1, limits are 10, prices 19.99. */
const NUMBER_RULES: Array<{ test: RegExp; integer: number; number?: number }> = [
  { test: /^page$|\bpage (number|index|no)$/, integer: 1 },
  {
    test: /\b(per page|page size|limit|size|count|top|max results|max|first|last|take|max items|results)$/,
    integer: 10,
  },
  { test: /\b(offset|skip|start|start index)$/, integer: 0 },
  { test: /\b(price|amount|cost|fee|total|balance|unit amount|subtotal)$/, integer: 2000, number: 19.99 },
  { test: /\b(quantity|qty)$/, integer: 2 },
  { test: /\byear$/, integer: 2024 },
  { test: /\bmonth$/, integer: 6 },
  { test: /\bday$/, integer: 15 },
  { test: /\bage$/, integer: 30 },
  { test: /\b(lat|latitude)$/, integer: 48, number: 48.8584 },
  { test: /\b(lng|lon|long|longitude)$/, integer: 2, number: 2.2945 },
  { test: /\b(rating|score|stars)$/, integer: 4 },
  { test: /\bport$/, integer: 8080 },
  { test: /\b(timeout|seconds|duration)$/, integer: 30 },
];

/**
 * Picks values for the schemas of one tool. `roles` maps each (original)
 * schema object to the argument it describes; results are cached per schema
 * so every attempt and repair sees the same value.
 */
export function createPicker(roles: Pick<WeakMap<object, ValueRole>, "get">, seed: number) {
  // One entry per schema and type asked (a schema is nearly always asked with one type): a small list rather
  // than a Map per schema, which every shaped node of every tool would allocate.
  const cache = new Map<object, Picked>();
  return (schema: JsonSchema, type: string | undefined): unknown => {
    const role = roles.get(schema);
    if (!role || "enum" in schema || "const" in schema || "format" in schema) return undefined;
    const first = cache.get(schema);
    for (let known = first; known; known = known.next) if (known.type === type) return known.value;
    const value =
      type === "string"
        ? stringValue(schema, role, seed)
        : type === "integer" || type === "number"
          ? numberValue(schema, role, type)
          : undefined;
    cache.set(schema, { type, value, next: first });
    return value;
  };
}

/** A value picked for one schema and type, and the one picked before it for another type. */
interface Picked {
  type: string | undefined;
  value: unknown;
  next: Picked | undefined;
}

export type Picker = ReturnType<typeof createPicker>;

function stringValue(schema: JsonSchema, role: ValueRole, seed: number): string | undefined {
  // Seeding faker refills its whole Mersenne Twister state (624 words), so it
  // happens only before the first candidate that draws from faker: most
  // identifiers never do. Every draw in this module follows a seed, so the
  // values stay the same whether or not an earlier call seeded.
  let seeded = false;
  const seededFaker = (): Faker => {
    if (!seeded) faker.seed((seed ^ hashString(role.name)) >>> 0);
    seeded = true;
    return faker;
  };
  const rule = ruleFor(rolePhrase(role));
  const candidates: Array<() => string> = [];
  if (rule) candidates.push(() => rule.make(seededFaker(), role));
  else if (role.identifier) candidates.push(() => placeholder(role));
  else {
    const byDescription = describedRule(role.description);
    if (byDescription) candidates.push(() => byDescription.make(seededFaker(), role));
    candidates.push(
      () => twoWords(seededFaker()),
      () => noun(seededFaker()),
    );
  }
  if (typeof schema["pattern"] === "string") candidates.push(...prefixed(schema["pattern"], role));
  for (const make of candidates) {
    const value = fitted(schema, make());
    if (value !== undefined) return value;
  }
  return undefined;
}

/** The first string rule matching a phrase; phrases repeat across tools, so the answer is kept. */
const rulesByPhrase = new Map<string, StringRule | undefined>();
function ruleFor(phrase: string): StringRule | undefined {
  if (rulesByPhrase.has(phrase)) return rulesByPhrase.get(phrase);
  const rule = STRING_RULES.find((r) => r.test.test(phrase));
  rulesByPhrase.set(phrase, rule);
  return rule;
}

/** A rule chosen by the first words of the description ("The email address of…", "URL of…"). */
function describedRule(description: string | undefined): StringRule | undefined {
  if (!description) return undefined;
  const opening = description.slice(0, 60);
  if (rulesByOpening.has(opening)) return rulesByOpening.get(opening);
  const head = words(opening).slice(0, 4);
  let rule: StringRule | undefined;
  for (let n = head.length; n >= 1 && !rule; n--) {
    const phrase = head.slice(0, n).join(" ");
    rule = STRING_RULES.find((r) => !r.nameOnly && r.test.test(phrase));
  }
  rulesByOpening.set(opening, rule);
  return rule;
}
/** Large APIs repeat descriptions across operations (Graph: the same field in hundreds of tools). */
const rulesByOpening = new Map<string, StringRule | undefined>();

/** Placeholders that keep a pattern's literal prefix: `^bk_[a-z0-9]+$` → `bk_example`. */
function prefixed(pattern: string, role: ValueRole): Array<() => string> {
  const m = /^\^((?:[A-Za-z0-9_:\-]|\\[-._:/])+)/.exec(pattern);
  const prefix = m ? m[1]!.replace(/\\(.)/g, "$1") : "";
  const stem = identifierStem(role.name) ?? words(role.name).join("_");
  return [`${prefix}example`, `${prefix}example1`, `${prefix}123`, `${prefix}${stem}`].map((v) => () => v);
}

/** The value when it meets the schema, else a word-boundary cut of it that does. */
function fitted(schema: JsonSchema, value: string): string | undefined {
  if (fitsString(schema, value)) return value;
  const max = typeof schema["maxLength"] === "number" ? schema["maxLength"] : undefined;
  if (max === undefined || value.length <= max) return undefined;
  const cut = value
    .slice(0, max)
    .replace(/[\s.,;:-]+\S*$/, "")
    .trim();
  return cut.length > 0 && fitsString(schema, cut) ? cut : undefined;
}

/** The name as words; a bare `name` or `id` is read with its parent's (`author.name` → "author name"). */
function rolePhrase(role: ValueRole): string {
  // Roles belong to an input schema; its tools ask again and again.
  let known = phrases.get(role);
  if (known === undefined) phrases.set(role, (known = phraseOf(role)));
  return known;
}
const phrases = new WeakMap<ValueRole, string>();

function phraseOf(role: ValueRole): string {
  const own = words(role.name);
  const generic = own.length === 1 && (own[0] === "name" || own[0] === "id");
  const parent = role.parent ? words(role.parent).slice(-1) : [];
  return [...(generic ? parent : []), ...own].join(" ");
}

function numberValue(schema: JsonSchema, role: ValueRole, type: string): number | undefined {
  if (role.identifier) return undefined;
  const rule = numberRuleFor(role.name);
  if (!rule) return undefined;
  const value = type === "number" && rule.number !== undefined ? rule.number : rule.integer;
  return fitsNumber(schema, value) ? value : undefined;
}

/** The first number rule matching a name; names repeat across tools (`limit`, `page`), so the answer is kept. */
const numberRulesByName = new Map<string, (typeof NUMBER_RULES)[number] | undefined>();
function numberRuleFor(name: string): (typeof NUMBER_RULES)[number] | undefined {
  if (numberRulesByName.has(name)) return numberRulesByName.get(name);
  const phrase = words(name).join(" ");
  const rule = NUMBER_RULES.find((r) => r.test.test(phrase));
  numberRulesByName.set(name, rule);
  return rule;
}

function fitsNumber(s: JsonSchema, value: number): boolean {
  const num = (k: string): number | undefined => (typeof s[k] === "number" ? (s[k] as number) : undefined);
  if (declaredTypes(s).includes("integer") && !Number.isInteger(value)) return false;
  if (num("minimum") !== undefined && value < num("minimum")!) return false;
  if (num("maximum") !== undefined && value > num("maximum")!) return false;
  if (num("exclusiveMinimum") !== undefined && value <= num("exclusiveMinimum")!) return false;
  if (num("exclusiveMaximum") !== undefined && value >= num("exclusiveMaximum")!) return false;
  const step = num("multipleOf");
  return step === undefined || step <= 0 || Math.abs(value / step - Math.round(value / step)) < 1e-9;
}
