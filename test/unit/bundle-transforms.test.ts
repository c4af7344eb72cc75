/**
 * The CLI bundle defers what yargs' help layout (string-width, three versions) made at start-up: an
 * Intl.Segmenter and Unicode-property regexes (rolldown.config.mjs). The deferred modules must measure
 * every string exactly as the originals do. Likewise yargs' two assertions, made inline with `assert`
 * loaded only to fail, must pass and fail exactly as `assert`'s own.
 */
import { notStrictEqual, strictEqual } from "node:assert";
import { isAscii } from "node:buffer";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
// @ts-expect-error -- the build config is plain JavaScript
import { lazyAssert, lazyBuiltins, lazyRegexes, lazySegmenter } from "../../rolldown.config.mjs";
import { REPO_ROOT } from "../helpers/project.js";

const COPIES = [
  "node_modules/string-width/index.js",
  "node_modules/cliui/node_modules/string-width/index.js",
  "node_modules/wrap-ansi/node_modules/string-width/index.js",
];

const SAMPLES = [
  "",
  "plain ascii",
  "漢字かな交じり",
  "ｶﾀｶﾅ and ＦＵＬＬ",
  "e\u0301 combining, a\u0308",
  "👍🏽 👨‍👩‍👧 🇫🇷 #️⃣ 1\u20E3",
  "\u001B[31mred\u001B[39m text",
  "zero\u200Bwidth\u00AD soft hyphen",
  "हिन्दी ಕನ್ನಡ ไทย",
  "각 한국어",
  "tab\there\u0007bell",
];

/** The module's text with its bare imports pointed at the files they resolve to from its own folder. */
function standalone(file: string, code: string): string {
  const require = createRequire(file);
  return code.replace(/from '([^']+)'/g, (_, name: string) => `from '${pathToFileURL(require.resolve(name)).href}'`);
}

describe("deferred text layout in the CLI bundle", () => {
  it("measures every sample string as each original string-width does", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cgm-width-"));
    for (const [index, copy] of COPIES.entries()) {
      const file = join(REPO_ROOT, copy);
      const original = readFileSync(file, "utf8");
      const deferred = lazyRegexes(lazySegmenter(original)) as string;
      expect(deferred).not.toContain("new Intl.Segmenter();");
      expect(deferred).not.toMatch(/^const \w+ = \/.*\\p\{/m);
      const target = join(dir, `width-${index}.mjs`);
      writeFileSync(target, standalone(file, deferred));
      const lazy = (await import(pathToFileURL(target).href)) as { default: (text: string) => number };
      const eager = (await import(pathToFileURL(file).href)) as { default: (text: string) => number };
      for (const sample of SAMPLES) expect(lazy.default(sample), `${copy}: ${sample}`).toBe(eager.default(sample));
    }
  });
});

/** What each check does: "passes", or the thrown error's class, code and message. */
function outcome(check: () => void): string {
  try {
    check();
    return "passes";
  } catch (error) {
    const { name, code, message } = error as { name: string; code?: string; message: string };
    return `${name} ${code} ${message}`;
  }
}

describe("yargs' assertions in the CLI bundle", () => {
  it("pass and fail as Node's assert does, which loads only to fail", async () => {
    const shim = readFileSync(join(REPO_ROOT, "node_modules/yargs/lib/platform-shims/esm.mjs"), "utf8");
    const inline = lazyAssert(shim) as string;
    expect(inline).not.toMatch(/from 'assert'/);
    // The transformed declarations alone, as a module exporting them.
    const declarations = inline.slice(inline.indexOf("const notStrictEqual"), inline.indexOf("import cliui"));
    const file = join(mkdtempSync(join(tmpdir(), "cgm-assert-")), "assert.mjs");
    writeFileSync(file, `${declarations}\nexport { notStrictEqual, strictEqual };\n`);
    const lazy = (await import(pathToFileURL(file).href)) as {
      notStrictEqual: typeof notStrictEqual;
      strictEqual: typeof strictEqual;
    };
    const object = {};
    const pairs: Array<[unknown, unknown]> = [
      [undefined, undefined],
      ["package.json", undefined],
      ["string", "string"],
      ["string", "number"],
      [NaN, NaN],
      [0, -0],
      [object, object],
      [object, {}],
      [null, undefined],
    ];
    for (const [actual, expected] of pairs) {
      for (const message of [undefined, "a message"]) {
        const label = `${String(actual)} vs ${String(expected)}, ${message}`;
        expect(
          outcome(() => lazy.notStrictEqual(actual, expected, message)),
          label,
        ).toBe(outcome(() => notStrictEqual(actual, expected, message)));
        expect(
          outcome(() => lazy.strictEqual(actual, expected, message)),
          label,
        ).toBe(outcome(() => strictEqual(actual, expected, message)));
      }
    }
  });
});

describe("built-in modules loaded at first use in the CLI bundle", () => {
  it("stand in for child_process and worker_threads, member by member", () => {
    const code = ['let node_child_process = require("node:child_process");', 'let node_fs = require("node:fs");'].join(
      "\n",
    );
    const lazy = lazyBuiltins(code) as string;
    expect(lazy).toContain('let node_fs = require("node:fs");');
    expect(lazy).not.toContain('let node_child_process = require("node:child_process");');
    const members = new Function("require", `${lazy}\nreturn node_child_process;`)(createRequire(import.meta.url)) as {
      spawnSync: unknown;
    };
    expect(members.spawnSync).toBe(createRequire(import.meta.url)("node:child_process").spawnSync);
  });
});

describe("the CLI bundle's text", () => {
  it("is ASCII, so that V8 keeps each script one byte per character (undici's licence comment aside)", () => {
    const dir = join(REPO_ROOT, "dist", "bin");
    const scripts = [...readdirSync(dir).filter((name) => name.endsWith(".js")), "../start.cjs"];
    const wide = scripts.filter((name) => !name.startsWith("undici-") && !isAscii(readFileSync(join(dir, name))));
    expect(wide).toEqual([]);
  });
});
