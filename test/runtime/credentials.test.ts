/**
 * Credentials go onto a request in one place (upstream/auth.ts applyCredentials), for an operation's call and a
 * long-running operation's status poll alike: same headers, query and cookies, applied last.
 */
import { describe, expect, it } from "vitest";
import { applyCredentials } from "../../templates/server/src/runtime/upstream/auth.js";
import { buildRequest } from "../../templates/server/src/runtime/upstream/request.js";
import type { ApiData, OperationBinding } from "../../templates/server/src/runtime/shared/tool-data.js";
import { TEST_API } from "../helpers/api-fixture.js";

// Without basic auth: bearer and basic would both claim the Authorization header.
const api: ApiData = {
  ...TEST_API,
  securitySchemes: TEST_API.securitySchemes.filter((scheme) => scheme.kind !== "basic"),
};

const all: OperationBinding = {
  method: "get",
  path: "/things",
  parameters: [{ name: "lang", arg: "lang", in: "cookie", style: "form", explode: false, required: false }],
  security: [["headerKey", "queryKey", "cookieKey", "bearer"]],
};
const env = { TEST_API_KEY: "h-key", TEST_QUERY_KEY: "q key/1", TEST_SESSION: "abc", TEST_TOKEN: "tok" };

function poll(url: string, call: Parameters<typeof applyCredentials>[4] = {}) {
  const request = { url: new URL(url), headers: { accept: "application/json" } as Record<string, string> };
  applyCredentials(request, api, all, env, call);
  return request;
}

describe("applyCredentials", () => {
  it("puts each scheme's credential where the scheme says, RFC 3986-encoded, after what is already there", () => {
    const request = poll("https://api.example.com/v1/jobs/7?page=2&q=a%20b");
    expect(request.headers).toEqual({
      accept: "application/json",
      "x-api-key": "h-key",
      authorization: "Bearer tok",
      cookie: "session=abc",
    });
    expect(request.url.search).toBe("?page=2&q=a%20b&api_key=q%20key%2F1");
  });

  it("replaces a query credential the status URL already carries instead of sending it twice", () => {
    expect(poll("https://api.example.com/v1/jobs/7?api_key=echoed&x=1").url.search).toBe("?x=1&api_key=q%20key%2F1");
  });

  it("gives the call and the status poll the same credentials", () => {
    const call = buildRequest(api, all, { lang: "en" }, env);
    const polled = poll(call.url.href.replace(/\?.*$/, ""));
    expect(call.headers["cookie"]).toBe("lang=en; session=abc");
    for (const name of ["x-api-key", "authorization"]) expect(polled.headers[name]).toBe(call.headers[name]);
    expect(polled.url.search).toBe(call.url.search);
  });

  it("sends a forwarded caller token as the Authorization header, whatever the server holds", () => {
    const request = poll("https://api.example.com/v1/x", { forwardedToken: "caller" });
    expect(request.headers["authorization"]).toBe("Bearer caller");
    expect(request.headers["x-api-key"]).toBe("h-key");
  });
});
