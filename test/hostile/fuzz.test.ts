/**
 * Property-based tests (fast-check) for everything that turns spec strings
 * into code or names: the escaping helpers in src/emit/escape.ts, the naming
 * functions in src/model/names.ts, and the spec parser, which may only ever
 * fail with a GeneratorError.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { GeneratorError } from "../../src/diagnostics.js";
import { codeLiteral, identifier } from "../../src/emit/escape.js";
import { parseSpecText } from "../../src/load/index.js";
import {
  ARG_NAME_PATTERN,
  argName,
  assignUniqueNames,
  baseToolName,
  fitLength,
  snakeCase,
  TOOL_NAME_PATTERN,
  type NameRequest,
} from "../../src/model/names.js";

const RUNS = { numRuns: 400 };

/** Fragments that attack generated code, mixed into arbitrary text. */
const ATTACKS = [
  "*/",
  "/*",
  "//",
  "`",
  "${",
  "}",
  "${process.exit(7)}",
  '"',
  "'",
  "\\",
  "\\u",
  "\u2028",
  "\u2029",
  "\n",
  "\r",
  "\0",
  "</script>",
  "<script>",
  "<!--",
  "-->",
  "]]>",
  "{{",
  "}}",
  "{{{api.name}}}",
  "__proto__",
  "constructor",
  "prototype",
  "class",
  "await",
  "yield",
  "let",
  "eval",
  "arguments",
  "\uD800",
  "\uDFFF",
  "😀",
  "é",
  "\u0301",
  "İ",
];

const hostileString = fc.oneof(
  { weight: 1, arbitrary: fc.string({ unit: "binary" }) },
  {
    weight: 2,
    arbitrary: fc
      .array(fc.oneof(fc.constantFrom(...ATTACKS), fc.string()), { maxLength: 12 })
      .map((parts) => parts.join("")),
  },
);

const jsonLike = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    hostileString,
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(hostileString, tie("value"), { maxKeys: 4 }),
  ),
})).value;

/** Evaluation contexts a literal must survive without ending them early. */
function evaluate(code: string): unknown {
  return new Function(code)();
}

describe("codeLiteral", () => {
  it("round-trips every JSON value through evaluation", () => {
    fc.assert(
      fc.property(jsonLike, (value) => {
        const literal = codeLiteral(value);
        const expected = JSON.parse(JSON.stringify(value)) as unknown;
        expect(evaluate(`return (${literal});`)).toEqual(expected);
        // It is also still JSON (package.json uses it), unless a `__proto__` key forces the JSON.parse form.
        if (!literal.startsWith("JSON.parse(")) expect(JSON.parse(literal)).toEqual(expected);
      }),
      RUNS,
    );
  });

  it("never ends a block comment, line comment, template literal or <script> element", () => {
    fc.assert(
      fc.property(jsonLike, (value) => {
        const literal = codeLiteral(value);
        expect(literal).not.toMatch(/\*\/|[\n\r\u2028\u2029`]|\$\{|<\/script|<!--|-->/i);
        expect(evaluate(`/* ${literal} */ return 1;`)).toBe(1);
        expect(evaluate(`// ${literal}\nreturn 2;`)).toBe(2);
        // Inside a template literal's text the literal is only text: no substitution, no early end.
        expect(typeof evaluate(`return \`${literal}\`;`)).toBe("string");
        expect(evaluate(`return \`\${${literal}}\`;`)).toBe(String(evaluate(`return (${literal});`)));
      }),
      RUNS,
    );
  });

  it("keeps the string exactly, whatever it holds", () => {
    fc.assert(
      fc.property(hostileString, (text) => {
        expect(evaluate(`return ${codeLiteral(text)};`)).toBe(text);
      }),
      RUNS,
    );
  });

  it("keeps a `__proto__` key an own property instead of setting the prototype", () => {
    const value = JSON.parse('{"__proto__": {"polluted": true}, "a": [{"__proto__": 1}]}') as Record<string, unknown>;
    const evaluated = evaluate(`return ${codeLiteral(value)};`) as Record<string, unknown>;
    expect(Object.hasOwn(evaluated, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(evaluated)).toBe(Object.prototype);
    expect(evaluated.polluted).toBeUndefined();
    expect(JSON.stringify(evaluated)).toBe(JSON.stringify(value));
  });

  it("turns undefined into null rather than into no code at all", () => {
    expect(codeLiteral(undefined)).toBe("null");
  });
});

describe("identifier", () => {
  const VALID = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
  it("always yields a valid, bindable TypeScript identifier, deterministically", () => {
    fc.assert(
      fc.property(hostileString, fc.constantFrom("", "tool_", "handle_", "$", "x"), (name, prefix) => {
        const id = identifier(name, prefix);
        expect(id).toMatch(VALID);
        expect(identifier(name, prefix)).toBe(id);
        // Bindable in strict-mode module code, and not shadowing anything that matters.
        expect(evaluate(`"use strict"; const ${id} = 41; return ${id} + 1;`)).toBe(42);
      }),
      RUNS,
    );
  });

  it("prefixes reserved words and leading digits", () => {
    for (const word of [
      "class",
      "await",
      "yield",
      "let",
      "enum",
      "eval",
      "arguments",
      "default",
      "delete",
      "function",
      "import",
    ]) {
      expect(identifier(word, "")).toBe(`_${word}`);
    }
    expect(identifier("7up", "")).toBe("_7up");
    expect(identifier("", "")).toBe("_");
  });
});

describe("names", () => {
  it("snakeCase yields lowercase words joined by single underscores, deterministically", () => {
    fc.assert(
      fc.property(hostileString, (text) => {
        const name = snakeCase(text);
        expect(name).toMatch(/^([a-z0-9]+(_[a-z0-9]+)*)?$/);
        expect(snakeCase(text)).toBe(name);
      }),
      RUNS,
    );
  });

  const method = fc.constantFrom("get", "put", "post", "delete", "options", "head", "patch", "trace");
  it("baseToolName always matches the MCP tool-name pattern", () => {
    fc.assert(
      fc.property(fc.option(hostileString, { nil: undefined }), method, hostileString, (operationId, verb, path) => {
        const name = baseToolName(operationId, verb, path);
        expect(name).toMatch(TOOL_NAME_PATTERN);
        expect(baseToolName(operationId, verb, path)).toBe(name);
      }),
      RUNS,
    );
  });

  it("fitLength keeps valid names valid and within the limit, and keeps short names as they are", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-zA-Z0-9_-]{1,200}$/), fc.integer({ min: 16, max: 64 }), (name, max) => {
        const fitted = fitLength(name, max);
        expect(fitted.length).toBeLessThanOrEqual(max);
        expect(fitted).toMatch(TOOL_NAME_PATTERN);
        if (name.length <= max) expect(fitted).toBe(name);
        expect(fitLength(name, max)).toBe(fitted);
      }),
      RUNS,
    );
  });

  it("argName always matches the argument pattern, and never names an Object.prototype member", () => {
    fc.assert(
      fc.property(hostileString, (wire) => {
        const arg = argName(wire);
        expect(arg).toMatch(ARG_NAME_PATTERN);
        expect(Object.prototype).not.toHaveProperty([arg]); // a key path, so "." is a key, not a path to parse
        expect(argName(wire)).toBe(arg);
        if (ARG_NAME_PATTERN.test(wire) && !(wire in Object.prototype)) expect(arg).toBe(wire);
      }),
      RUNS,
    );
    for (const wire of ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"]) {
      expect(argName(wire)).toMatch(ARG_NAME_PATTERN);
      expect(Object.prototype).not.toHaveProperty(argName(wire));
    }
  });

  it("assignUniqueNames always yields unique valid names, independent of order", () => {
    const request = fc.record({
      // Few distinct bases, so collisions are common; some at the length limit.
      base: fc.oneof(
        fc.constantFrom("list", "get_item", "a", "x".repeat(64), "list_1234"),
        fc.stringMatching(/^[a-z0-9_-]{1,64}$/),
      ),
      explicit: fc.boolean(),
    });
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(request, hostileString), { selector: ([, identity]) => identity, maxLength: 40 }),
        (entries) => {
          const requests: NameRequest[] = entries.map(([{ base, explicit }, identity]) => ({
            base,
            explicit,
            identity,
          }));
          const names = assignUniqueNames(requests);
          expect(new Set(names).size).toBe(names.length);
          for (const name of names) expect(name).toMatch(TOOL_NAME_PATTERN);
          // Deterministic, and a name depends on its own request, not on the order of the others.
          expect(assignUniqueNames(requests)).toEqual(names);
          const reversed = assignUniqueNames([...requests].reverse()).reverse();
          expect(reversed).toEqual(names);
        },
      ),
      RUNS,
    );
  });
});

describe("parseSpecText", () => {
  const yamlish = fc
    .array(
      fc.oneof(
        fc.constantFrom(
          "openapi: 3.1.0\n",
          "a: &x [1, 2]\n",
          "b: *x\n",
          "c: *missing\n",
          "d: &y [*y]\n",
          "<<: *x\n",
          "? [a, b]\n: c\n",
          "%YAML 1.2\n---\n",
          "...\n",
          "!!binary aGk=\n",
          "!!set {a, b}\n",
          "!custom x\n",
          "- [",
          "]",
          "{",
          "}",
          "  ",
          "\t",
          "- ",
          ": ",
          '"',
          "'",
          "#",
          "|\n  text\n",
          ">-\n  folded\n",
          "\uFEFF",
          "\0",
          "__proto__: {polluted: true}\n",
          "e: !!int abc\n",
          "f: 1e999\n",
          "[[[[[[[[[[",
          "]]]]]]]]]]",
          '{"a":',
          "null",
          "~",
        ),
        fc.string(),
      ),
      { maxLength: 16 },
    )
    .map((parts) => parts.join(""));

  it("returns a value or throws a GeneratorError, never anything else", () => {
    fc.assert(
      fc.property(fc.oneof(yamlish, fc.string({ unit: "binary" }), fc.json()), (text) => {
        try {
          parseSpecText(text, "fuzz.yaml");
        } catch (error) {
          expect(error).toBeInstanceOf(GeneratorError);
          expect((error as GeneratorError).message).toMatch(/^fuzz\.yaml/);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it("refuses alias bombs, self-containing aliases and absurd nesting with a located message", () => {
    const level = (n: number) =>
      `l${n}: &l${n} [${Array(10)
        .fill(`*l${n - 1}`)
        .join(", ")}]`;
    const bomb = ["l0: &l0 [x, x, x, x, x, x, x, x, x, x]", ...Array.from({ length: 9 }, (_, i) => level(i + 1))].join(
      "\n",
    );
    const cases = [
      bomb,
      "a: &a [*a]\n",
      "a: *nope\n",
      "[".repeat(100_000) + "]".repeat(100_000),
      '{"a":'.repeat(50_000) + "1" + "}".repeat(50_000),
    ];
    for (const text of cases) {
      expect(() => parseSpecText(text, "hostile.yaml")).toThrow(GeneratorError);
    }
    expect(() => parseSpecText('{"a":'.repeat(50_000) + "1" + "}".repeat(50_000), "deep.json")).toThrow(
      /deep\.json#\/a\/a\/.*nested more than \d+ levels/,
    );
  });
});
