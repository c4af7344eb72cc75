/**
 * OpenAPI parameters of one operation: which ones count (path-level merged with operation-level, transport headers
 * left out), their schema, their wire binding, and the warnings about parameters that cannot be sent faithfully.
 */
import { childPointer } from "../diagnostics.js";
import { isObject, type SpecObject } from "../normalise/index.js";
import type { Diagnostic, JsonSchema, OperationBinding, ParameterBinding } from "./ir.js";
import { toJsonSchema, type SchemaContext } from "./schema.js";
import { adoptExample } from "./spec-examples.js";
import { htmlToMarkdown } from "./spec-cleanup.js";

type ParameterLocation = ParameterBinding["in"];

/** Headers OpenAPI says are controlled by the transport and must be ignored as parameters. */
export const IGNORED_HEADERS = new Set(["accept", "content-type", "authorization"]);

export interface RawParameter {
  name: string;
  in: ParameterLocation;
  required?: boolean;
  description?: string;
  deprecated?: boolean;
  style?: string;
  explode?: boolean;
  allowReserved?: boolean;
  schema?: unknown;
  content?: unknown;
  example?: unknown;
  examples?: unknown;
}

/** Path-level parameters, overridden by operation-level ones with the same name and location. */
export function collectParameters(
  pathItem: SpecObject,
  operation: SpecObject,
  pointer: string,
  diagnostics: Diagnostic[],
): Array<{ parameter: RawParameter; pointer: string; own: boolean }> {
  const merged = new Map<string, { parameter: RawParameter; pointer: string; own: boolean }>();
  const pathPointer = pointer.slice(0, pointer.lastIndexOf("/"));
  // `own`: the operation's, which the model reaches once per reaching the operation (a path item's, once per method).
  const add = (list: unknown, base: string, own: boolean) => {
    if (!Array.isArray(list)) return;
    list.forEach((parameter, index) => {
      const where = childPointer(base, "parameters", index);
      if (!isObject(parameter) || typeof parameter.name !== "string" || typeof parameter.in !== "string") {
        diagnostics.push({
          pointer: where,
          severity: "warning",
          message: "parameter without a name or location is ignored",
          fix: "give it `name` and `in`",
        });
        return;
      }
      if (!["path", "query", "header", "cookie"].includes(parameter.in)) {
        diagnostics.push({
          pointer: childPointer(where, "in"),
          severity: "warning",
          message: `parameter location "${parameter.in}" is not supported and is ignored`,
          fix: "use path, query, header or cookie",
        });
        return;
      }
      if (parameter.in === "header" && IGNORED_HEADERS.has(parameter.name.toLowerCase())) return;
      merged.set(`${parameter.in}:${parameter.name}`, {
        parameter: parameter as unknown as RawParameter,
        pointer: where,
        own,
      });
    });
  };
  add(pathItem.parameters, pathPointer, false);
  add(operation.parameters, pointer, true);
  return [...merged.values()];
}

/** `reachedOnce`: the model reaches this parameter once in the run (see `SchemaContext.once`), unless it is shared. */
export function parameterSchema(
  parameter: RawParameter,
  pointer: string,
  context: SchemaContext,
  reachedOnce = false,
): { schema: JsonSchema; json: boolean } {
  let source: unknown = parameter.schema;
  let json = false;
  const holders: unknown[] = [parameter];
  if (source === undefined && isObject(parameter.content)) {
    const [mediaType, media] = Object.entries(parameter.content)[0] ?? [];
    if (isObject(media)) source = media.schema;
    json = typeof mediaType === "string" && /json/i.test(mediaType);
    holders.push(parameter.content, media);
  }
  const once = reachedOnce && context.memo?.unsharedHolders(...holders) === true;
  const schema = toJsonSchema(
    source ?? { type: "string" },
    childPointer(pointer, "schema"),
    once ? { ...context, once } : context,
  );
  if (parameter.in === "path") withoutNull(schema);
  if (parameter.description && typeof parameter.description === "string")
    schema.description = htmlToMarkdown(parameter.description);
  if (parameter.deprecated === true) schema.deprecated = true;
  adoptExample(schema, parameter);
  return { schema, json };
}

/**
 * A path segment cannot carry `null` (the runtime refuses it: the request would
 * address another resource), so a `nullable` path parameter (nbg.gr's
 * `consentId`) is offered without null and the agent is told so up front.
 */
function withoutNull(schema: JsonSchema): void {
  if (Array.isArray(schema.type)) {
    const types = (schema.type as unknown[]).filter((type) => type !== "null");
    if (types.length > 0) schema.type = types.length === 1 ? types[0] : types;
  }
  if (Array.isArray(schema.enum)) schema.enum = (schema.enum as unknown[]).filter((value) => value !== null);
  for (const keyword of ["anyOf", "oneOf"] as const) {
    const branches = schema[keyword];
    if (!Array.isArray(branches)) continue;
    const kept = (branches as unknown[]).filter((branch) => !(isObject(branch) && branch.type === "null"));
    if (kept.length > 0) schema[keyword] = kept;
  }
}

export function bindingFor(parameter: RawParameter, arg: string, required: boolean, json: boolean): ParameterBinding {
  const defaultStyle = parameter.in === "query" || parameter.in === "cookie" ? "form" : "simple";
  const style = (typeof parameter.style === "string" ? parameter.style : defaultStyle) as ParameterBinding["style"];
  const explode = typeof parameter.explode === "boolean" ? parameter.explode : style === "form";
  const binding: ParameterBinding = { arg, name: parameter.name, in: parameter.in, required, style, explode };
  if (parameter.allowReserved === true) binding.allowReserved = true;
  if (json) binding.json = true;
  return binding;
}

/**
 * `Accept` is the transport's header, not an argument; but a required one the
 * spec pins to a single value (MediaLive's thumbnail: `image/jpeg`) is sent as is.
 */
export function declaredAccept(pathItem: SpecObject, operation: SpecObject): NonNullable<OperationBinding["fixed"]> {
  const parameters = [
    ...(Array.isArray(pathItem.parameters) ? pathItem.parameters : []),
    ...(Array.isArray(operation.parameters) ? operation.parameters : []),
  ];
  const accept = parameters.find(
    (parameter) =>
      isObject(parameter) &&
      parameter.in === "header" &&
      String(parameter.name).toLowerCase() === "accept" &&
      parameter.required === true,
  );
  const values =
    isObject(accept) && isObject(accept.schema) && Array.isArray(accept.schema.enum) ? accept.schema.enum : [];
  return values.length === 1 && typeof values[0] === "string"
    ? [{ in: "header", name: "Accept", value: values[0] }]
    : [];
}

/**
 * The `Authorization` header is the security scheme's, never an argument; a
 * spec that requires it as a parameter but declares no security for the
 * operation leaves nothing to fill it from (GoToTraining).
 */
export function warnIfAuthorizationUncovered(
  pathItem: SpecObject,
  operation: SpecObject,
  pointer: string,
  diagnostics: Diagnostic[],
): void {
  const parameters = [
    ...(Array.isArray(pathItem.parameters) ? pathItem.parameters : []),
    ...(Array.isArray(operation.parameters) ? operation.parameters : []),
  ];
  const required = parameters.some(
    (parameter) =>
      isObject(parameter) &&
      parameter.in === "header" &&
      String(parameter.name).toLowerCase() === "authorization" &&
      parameter.required === true,
  );
  if (!required) return;
  diagnostics.push({
    pointer,
    severity: "warning",
    message:
      "the Authorization header is required but no security scheme covers this operation, so this operation cannot be called faithfully: the header is never sent",
    fix: "declare the security scheme (components.securitySchemes and `security`), or set the header in src/hooks.ts",
  });
}

/**
 * OpenAPI defines `form`, `simple`, `label`, `matrix` and the delimited styles
 * only for scalars, flat arrays and flat objects; an array of objects or an
 * object with nested values (AWS EC2's `TagSpecification`, `Filter`) has no
 * defined wire form. Such values are sent as JSON text, which the API may not read.
 */
export function warnIfUnserialisable(
  parameter: RawParameter,
  schema: JsonSchema,
  pointer: string,
  diagnostics: Diagnostic[],
): void {
  if (parameter.style === "deepObject") return;
  const items = isObject(schema.items) ? (schema.items as JsonSchema) : undefined;
  const values = isObject(schema.properties) ? Object.values(schema.properties as Record<string, JsonSchema>) : [];
  const nested = (items !== undefined && isContainer(items)) || values.some(isContainer);
  if (!nested) return;
  diagnostics.push({
    pointer: childPointer(pointer, "schema"),
    severity: "warning",
    message: `${parameter.in} parameter "${parameter.name}" holds nested values, which its style "${parameter.style ?? "default"}" cannot serialise, so this operation cannot be called faithfully: nested values are sent as JSON text`,
    fix: "use `style: deepObject` (query), `content: application/json`, or flatten the parameter",
  });
}

export function isContainer(schema: unknown): boolean {
  if (!isObject(schema)) return false;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes("object") || types.includes("array") || isObject(schema.properties) || schema.items !== undefined)
    return true;
  return ["allOf", "anyOf", "oneOf"].some(
    (keyword) => Array.isArray(schema[keyword]) && (schema[keyword] as unknown[]).some(isContainer),
  );
}
