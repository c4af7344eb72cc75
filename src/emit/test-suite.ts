/**
 * The generated project's own test suite: its code is a template
 * (templates/server/src/runtime/test/), its expectations are data derived here,
 * at generation time, from the model — independently of the runtime's request
 * builder, so the suite catches a runtime, hook or data edit that changes what
 * goes on the wire.
 *
 * For each (sampled) tool: the example arguments, and the request they must
 * produce (method, path, query pairs, headers, JSON body). Serialisations this
 * derivation does not cover (matrix/label/deepObject styles, object-valued
 * parameters, non-JSON bodies) are left out of the expectation and named in
 * `unchecked`, never guessed.
 */
import type { EmitModel, EmitTool } from "./emit-model.js";
import type { OperationBinding, ParameterBinding } from "../../templates/server/src/runtime/shared/tool-data.js";
import type { ExpectedRequest, TestExpectations } from "../../templates/server/src/runtime/shared/test-expectations.js";

export const TEST_EXPECTATIONS_PATH = "src/runtime/test/expectations.json";
/** Above this many tools the suite checks an evenly spread sample, and says so. */
export const MAX_TESTED_TOOLS = 25;

export function testExpectations(model: EmitModel): TestExpectations {
  const sample = sampleTools(model.tools);
  return {
    totalTools: model.tools.length,
    sampled: sample.length < model.tools.length,
    tools: sample.flatMap((tool) => {
      const args = tool.guidance.examples?.full ?? tool.guidance.examples?.minimal;
      if (!args) return [];
      const safe = tool.operation ? ["get", "head", "options"].includes(tool.operation.method) : false;
      const request = tool.operation ? expectedRequest(tool.operation, args) : undefined;
      return [{ name: tool.name, args, safe, handler: Boolean(tool.handler), ...(request ? { request } : {}) }];
    }),
  };
}

function sampleTools(tools: readonly EmitTool[]): readonly EmitTool[] {
  if (tools.length <= MAX_TESTED_TOOLS) return tools;
  return Array.from({ length: MAX_TESTED_TOOLS }, (_, i) => tools[Math.floor((i * tools.length) / MAX_TESTED_TOOLS)]!);
}

type Primitive = string | number | boolean;
const isPrimitive = (value: unknown): value is Primitive =>
  typeof value === "string" || typeof value === "number" || typeof value === "boolean";

export function expectedRequest(binding: OperationBinding, args: Record<string, unknown>): ExpectedRequest {
  const unchecked: string[] = [];
  const query: Array<[string, string]> = [];
  const headers: Record<string, string> = {};
  let path = binding.path;
  for (const parameter of binding.parameters) {
    const value = args[parameter.arg];
    if (value === undefined || value === null) continue;
    if (parameter.in === "path") path = expandPathParameter(path, parameter, value, unchecked);
    else if (parameter.in === "query") query.push(...queryPairs(parameter, value, unchecked));
    else if (parameter.in === "header" && isPrimitive(value) && !parameter.json)
      headers[parameter.name.toLowerCase()] = String(value);
    else unchecked.push(`${parameter.in} parameter ${parameter.name}`);
  }
  const request: ExpectedRequest = { method: binding.method.toUpperCase(), path, query, headers, unchecked };
  const body = binding.body;
  if (body && /json/i.test(body.mediaType)) {
    const value =
      body.mode === "property"
        ? args[body.arg]
        : Object.fromEntries(
            Object.entries(body.properties)
              .filter(([arg]) => args[arg] !== undefined)
              .map(([arg, name]) => [name, args[arg]]),
          );
    if (value !== undefined) request.body = value;
  } else if (body) unchecked.push(`${body.mediaType} body`);
  return request;
}

function expandPathParameter(path: string, parameter: ParameterBinding, value: unknown, unchecked: string[]): string {
  if (parameter.style !== "simple" || !isPrimitive(value) || parameter.json) {
    unchecked.push(`path parameter ${parameter.name}`);
    return path;
  }
  return path.split(`{${parameter.name}}`).join(encodeURIComponent(String(value)));
}

function queryPairs(parameter: ParameterBinding, value: unknown, unchecked: string[]): Array<[string, string]> {
  if (parameter.style === "form" && !parameter.json) {
    if (isPrimitive(value)) return [[parameter.name, String(value)]];
    if (Array.isArray(value) && value.every(isPrimitive)) {
      return parameter.explode
        ? value.map((item) => [parameter.name, String(item)])
        : [[parameter.name, value.map(String).join(",")]];
    }
    if (typeof value === "object" && !Array.isArray(value) && Object.values(value as object).every(isPrimitive)) {
      const entries = Object.entries(value as Record<string, Primitive>);
      // form + explode spreads an object's properties into the query; without explode it is `name=k1,v1,k2,v2`.
      return parameter.explode
        ? entries.map(([key, item]) => [key, String(item)])
        : [[parameter.name, entries.flat().map(String).join(",")]];
    }
  }
  unchecked.push(`query parameter ${parameter.name}`);
  return [];
}
