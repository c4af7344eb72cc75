/**
 * The contract between the generator and the generated test suite: what
 * src/runtime/test/expectations.json holds for each sampled tool (written by
 * the generator, read by src/runtime/test/tools.test.ts).
 */
export interface ExpectedRequest {
  method: string;
  /** Relative to the base URL's path, with path parameters expanded. */
  path: string;
  /** Decoded name/value pairs, in any order; credential query parameters are not listed. */
  query: Array<[string, string]>;
  /** Lower-cased name -> value; the request may carry more (accept, user-agent, credentials). */
  headers: Record<string, string>;
  body?: unknown;
  /** Parts of the request this derivation does not cover. */
  unchecked: string[];
}

export interface ToolExpectation {
  name: string;
  args: Record<string, unknown>;
  safe: boolean;
  handler: boolean;
  request?: ExpectedRequest;
}

export interface TestExpectations {
  totalTools: number;
  sampled: boolean;
  tools: ToolExpectation[];
}
