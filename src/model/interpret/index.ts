/**
 * A generation-time validator that generates no code: Ajv2020's verdicts and error objects (as the
 * server configures Ajv), computed by walking the schema, for the schemas `interpretable` accepts.
 *
 * At generation every distinct input schema is checked (fail closed) and its examples validated a
 * handful of times; compiling each with Ajv, then V8 compiling Ajv's generated code, cost more than all
 * those validations. The server keeps Ajv. A schema outside the interpreter's subset gets `undefined`,
 * and the caller compiles it with Ajv, whose outcome stands.
 *
 * Verdicts and checks are cached per schema object for the process, as Ajv caches a compiled schema
 * per object: a schema is taken as unchanged once validated (the pipeline builds new schema objects
 * in each run and never edits them after the model stage).
 */
import type { ValidateFunction } from "ajv/dist/2020.js";
import type { JsonSchema } from "../ir.js";
import { checkOf } from "./checks.js";
import type { Out } from "./report.js";
import { interpretable } from "./support.js";

export { interpretable } from "./support.js";

/**
 * A validator for `schema` with Ajv's calling convention (`validate(data)` → boolean, `validate.errors`
 * → Ajv's error objects or null; `verbose` adds `schema`, `parentSchema` and `data` to each), or
 * `undefined` when the schema is not the interpreter's to judge.
 */
export function interpretSchema(schema: JsonSchema, options: { verbose: boolean }): ValidateFunction | undefined {
  if (!interpretable(schema)) return undefined;
  const check = checkOf(schema);
  const { verbose } = options;
  const validate = (data: unknown): boolean => {
    const out: Out = { errors: [], verbose };
    check(data, "", "#", out);
    const valid = out.errors.length === 0;
    validate.errors = valid ? null : out.errors;
    return valid;
  };
  validate.errors = null as Out["errors"] | null;
  validate.schema = schema;
  return validate as unknown as ValidateFunction;
}
