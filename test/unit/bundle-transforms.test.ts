/**
 * The CLI bundle defers what yargs' help layout (string-width, three versions) made at start-up: an
 * Intl.Segmenter and Unicode-property regexes (rolldown.config.mjs). The deferred modules must measure
 * every string exactly as the originals do.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
// @ts-expect-error -- the build config is plain JavaScript
import { lazyRegexes, lazySegmenter } from "../../rolldown.config.mjs";
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
