/**
 * The one Ajv configuration shared by the generator (which compiles every
 * schema and checks every example at generation time) and the generated
 * server (which compiles each schema once, at its first use). Sharing it means an
 * example that passed at generation time passes at run time too.
 */
import { createRequire } from "node:module";
import type { Ajv2020 } from "ajv/dist/2020.js";

type AddFormats = (ajv: Ajv2020) => Ajv2020;

/**
 * Ajv and ajv-formats are CommonJS, so they can be required synchronously on
 * first use: loading them costs ~40 ms, which a server would otherwise pay at
 * every start, before any call needs a validator (and a 2026-07-28 client on
 * stdio pays every start twice: its server/discover probe, then the session).
 */
const require = createRequire(import.meta.url);
let loaded: { Ajv: typeof Ajv2020; addFormats: AddFormats } | undefined;

function loadAjv(): NonNullable<typeof loaded> {
  if (loaded) return loaded;
  const { Ajv2020: Ajv } = require("ajv/dist/2020.js") as typeof import("ajv/dist/2020.js");
  const formatsModule = require("ajv-formats") as { default?: AddFormats } & AddFormats;
  return (loaded = { Ajv, addFormats: formatsModule.default ?? formatsModule });
}

export function createAjv(): Ajv2020 {
  const { Ajv, addFormats } = loadAjv();
  const ajv = new Ajv({
    // Report every problem at once, so one error result can fix them all.
    allErrors: true,
    // Spec schemas carry annotations Ajv does not know (x-*, example, xml...).
    strict: false,
    // Coercion would hide the mistakes the guidance layer is meant to explain.
    coerceTypes: false,
    useDefaults: false,
    validateFormats: true,
    // Spec patterns are ECMA-262 regexes written for other engines too; unicode flag accepts most.
    unicodeRegExp: true,
    // Specs use many custom formats (GitHub's `repo.nwo`...): those are annotations, not errors worth a log line per schema.
    logger: {
      log: () => {},
      warn: (...args: unknown[]) => {
        if (!/^unknown format/.test(String(args[0]))) console.warn(...args);
      },
      error: (...args: unknown[]) => console.error(...args),
    },
  });
  addFormats(ajv);
  return ajv;
}
