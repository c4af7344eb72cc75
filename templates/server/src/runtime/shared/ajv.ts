/**
 * The one Ajv configuration shared by the generator (which compiles every
 * schema and checks every example at generation time) and the generated
 * server (which compiles each schema once at start-up). Sharing it means an
 * example that passed at generation time passes at run time too.
 */
import { Ajv2020 } from "ajv/dist/2020.js";
import * as formatsModule from "ajv-formats";

type AddFormats = (ajv: Ajv2020) => Ajv2020;
const addFormats =
  (formatsModule as unknown as { default: AddFormats }).default ?? (formatsModule as unknown as AddFormats);

export function createAjv(): Ajv2020 {
  const ajv = new Ajv2020({
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
