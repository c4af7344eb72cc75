import { describe, expect, it } from "vitest";
import { missingCredentials } from "../../templates/server/src/runtime/upstream/auth.js";
import { RequestBuildError } from "../../templates/server/src/runtime/upstream/errors.js";
import { buildRequest } from "../../templates/server/src/runtime/upstream/request.js";
import type {
  BodyBinding,
  OperationBinding,
  ParameterBinding,
} from "../../templates/server/src/runtime/shared/tool-data.js";
import { TEST_API } from "../helpers/api-fixture.js";

const api = TEST_API;

function parameter(
  overrides: Partial<ParameterBinding> & Pick<ParameterBinding, "name" | "in" | "style">,
): ParameterBinding {
  return { arg: overrides.name, required: false, explode: false, ...overrides };
}

function binding(overrides: Partial<OperationBinding> = {}): OperationBinding {
  return { method: "get", path: "/things", parameters: [], security: [], ...overrides };
}

function build(op: Partial<OperationBinding>, args: Record<string, unknown>, env: Record<string, string> = {}) {
  return buildRequest(api, binding(op), args, env);
}

/** The part of the URL after the host, exactly as it goes on the wire. */
function target(op: Partial<OperationBinding>, args: Record<string, unknown>): string {
  const { url } = build(op, args);
  return url.pathname + url.search;
}

const array = ["blue", "black", "brown"];
const object = { R: 100, G: 200, B: 150 };

describe("path parameters", () => {
  // The OpenAPI 3 style examples table, for `color`.
  const cases: Array<[ParameterBinding["style"], boolean, unknown, string]> = [
    ["simple", false, "blue", "/v1/c/blue"],
    ["simple", false, array, "/v1/c/blue,black,brown"],
    ["simple", false, object, "/v1/c/R,100,G,200,B,150"],
    ["simple", true, object, "/v1/c/R=100,G=200,B=150"],
    ["label", false, "blue", "/v1/c/.blue"],
    ["label", false, array, "/v1/c/.blue,black,brown"],
    ["label", true, array, "/v1/c/.blue.black.brown"],
    ["label", false, object, "/v1/c/.R,100,G,200,B,150"],
    ["label", true, object, "/v1/c/.R=100.G=200.B=150"],
    ["matrix", false, "blue", "/v1/c/;color=blue"],
    ["matrix", false, array, "/v1/c/;color=blue,black,brown"],
    ["matrix", true, array, "/v1/c/;color=blue;color=black;color=brown"],
    ["matrix", false, object, "/v1/c/;color=R,100,G,200,B,150"],
    ["matrix", true, object, "/v1/c/;R=100;G=200;B=150"],
  ];
  it.each(cases)("%s explode=%s %j", (style, explode, value, expected) => {
    const op = {
      path: "/c/{color}",
      parameters: [parameter({ name: "color", in: "path", style, explode, required: true })],
    };
    expect(target(op, { color: value })).toBe(expected);
  });

  it("uses the arg name to find the value and the wire name for the template", () => {
    const op = {
      path: "/pets/{pet-id}",
      parameters: [parameter({ name: "pet-id", arg: "petId", in: "path", style: "simple" })],
    };
    expect(target(op, { petId: 7 })).toBe("/v1/pets/7");
  });

  it.each([
    ["../admin", "/v1/pets/..%2Fadmin"],
    ["%2F", "/v1/pets/%252F"],
    ["a/b?c#d", "/v1/pets/a%2Fb%3Fc%23d"],
    ["x y", "/v1/pets/x%20y"],
  ])("percent-encodes %j so it stays inside one segment", (value, expected) => {
    const op = { path: "/pets/{id}/photos", parameters: [parameter({ name: "id", in: "path", style: "simple" })] };
    expect(target(op, { id: value })).toBe(`${expected}/photos`);
  });

  it.each([".", "..", ""])("rejects %j, which would address another resource", (value) => {
    const op = { path: "/pets/{id}", parameters: [parameter({ name: "id", in: "path", style: "simple" })] };
    expect(() => build(op, { id: value })).toThrowError(RequestBuildError);
  });

  it("rejects a missing or null path parameter", () => {
    const op = { path: "/pets/{id}", parameters: [parameter({ name: "id", in: "path", style: "simple" })] };
    expect(() => build(op, {})).toThrowError(/needs a value/);
    expect(() => build(op, { id: null })).toThrowError(/needs a value/);
  });

  it("JSON-encodes json parameters", () => {
    const op = { path: "/q/{f}", parameters: [parameter({ name: "f", in: "path", style: "simple", json: true })] };
    expect(target(op, { f: { a: 1 } })).toBe("/v1/q/%7B%22a%22%3A1%7D");
  });
});

describe("query parameters", () => {
  const cases: Array<[ParameterBinding["style"], boolean, unknown, string]> = [
    ["form", true, "blue", "?color=blue"],
    ["form", false, "blue", "?color=blue"],
    ["form", true, array, "?color=blue&color=black&color=brown"],
    ["form", false, array, "?color=blue,black,brown"],
    ["form", true, object, "?R=100&G=200&B=150"],
    ["form", false, object, "?color=R,100,G,200,B,150"],
    ["spaceDelimited", false, array, "?color=blue%20black%20brown"],
    ["spaceDelimited", true, array, "?color=blue&color=black&color=brown"],
    ["spaceDelimited", false, object, "?color=R%20100%20G%20200%20B%20150"],
    ["pipeDelimited", false, array, "?color=blue|black|brown"],
    ["pipeDelimited", true, array, "?color=blue&color=black&color=brown"],
    ["pipeDelimited", false, object, "?color=R|100|G|200|B|150"],
    ["deepObject", true, object, "?color[R]=100&color[G]=200&color[B]=150"],
    ["deepObject", true, { a: { b: 1 }, ids: [7, 8] }, "?color[a][b]=1&color[ids][0]=7&color[ids][1]=8"],
  ];
  it.each(cases)("%s explode=%s %j", (style, explode, value, expected) => {
    const op = { parameters: [parameter({ name: "color", in: "query", style, explode })] };
    expect(build(op, { color: value }).url.search).toBe(expected);
  });

  it("encodes spaces as %20 and reserved characters by default", () => {
    const op = { parameters: [parameter({ name: "q", in: "query", style: "form", explode: true })] };
    expect(build(op, { q: "a b&c=d#e+f/g" }).url.search).toBe("?q=a%20b%26c%3Dd%23e%2Bf%2Fg");
  });

  it("allowReserved keeps reserved characters readable but never &, # or +", () => {
    const op = {
      parameters: [parameter({ name: "q", in: "query", style: "form", explode: true, allowReserved: true })],
    };
    expect(build(op, { q: "a/b:c?d@e,f;g=h&i#j+k" }).url.search).toBe("?q=a/b:c?d@e,f;g=h%26i%23j%2Bk");
  });

  it("JSON-encodes json parameters", () => {
    const op = { parameters: [parameter({ name: "filter", in: "query", style: "form", explode: true, json: true })] };
    expect(build(op, { filter: { a: [1] } }).url.search).toBe("?filter=%7B%22a%22%3A%5B1%5D%7D");
  });

  it("only sends what the caller gave: no defaults, no nulls, booleans as words", () => {
    const op = {
      parameters: [
        parameter({ name: "limit", in: "query", style: "form", explode: true }),
        parameter({ name: "cursor", in: "query", style: "form", explode: true }),
        parameter({ name: "active", in: "query", style: "form", explode: true }),
      ],
    };
    expect(build(op, { cursor: null, active: false }).url.search).toBe("?active=false");
  });

  it("sends a required nullable parameter given null with an empty value (keyserv's `keep=`)", () => {
    const op = {
      parameters: [
        parameter({ name: "keep", in: "query", style: "form", explode: true, required: true }),
        parameter({ name: "cursor", in: "query", style: "form", explode: true }),
        parameter({ name: "filter", in: "query", style: "form", explode: false, required: true, json: true }),
        parameter({ name: "X-Tenant", in: "header", style: "simple", required: true }),
        parameter({ name: "session", in: "cookie", style: "form", required: true }),
      ],
    };
    const request = build(op, { keep: null, cursor: null, filter: null, "X-Tenant": null, session: null });
    expect(request.url.search).toBe("?keep=&filter=null");
    expect(request.headers["x-tenant"]).toBe("");
    expect(request.headers["cookie"]).toBe("session=");
  });

  it("keeps fixed query parameters of the base URL", () => {
    const request = buildRequest(
      api,
      binding({ parameters: [parameter({ name: "q", in: "query", style: "form", explode: true })] }),
      { q: "x" },
      { TEST_BASE_URL: "https://api.example.com/v1?api-version=2024-01-01" },
    );
    expect(request.url.href).toBe("https://api.example.com/v1/things?api-version=2024-01-01&q=x");
  });
});

describe("header and cookie parameters", () => {
  it.each([
    [false, "blue", "blue"],
    [false, array, "blue,black,brown"],
    [false, object, "R,100,G,200,B,150"],
    [true, object, "R=100,G=200,B=150"],
  ])("simple explode=%s %j", (explode, value, expected) => {
    const op = { parameters: [parameter({ name: "X-Color", in: "header", style: "simple", explode })] };
    expect(build(op, { "X-Color": value }).headers["x-color"]).toBe(expected);
  });

  it.each(["a\r\nX-Evil: 1", "a\nb", "a\rb", "a\0b"])("rejects header value %j", (value) => {
    const op = { parameters: [parameter({ name: "X-Trace", arg: "trace", in: "header", style: "simple" })] };
    let caught: unknown;
    try {
      build(op, { trace: value });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(RequestBuildError);
    expect(caught).toMatchObject({ code: "header_injection", subject: "trace" });
  });

  it("rejects line breaks inside structured header values too", () => {
    const op = { parameters: [parameter({ name: "X-Tags", in: "header", style: "simple" })] };
    expect(() => build(op, { "X-Tags": ["ok", "bad\r\nX: y"] })).toThrowError(/line break/);
  });

  it.each([
    [false, "blue", "color=blue"],
    [false, array, "color=blue,black,brown"],
    [true, array, "color=blue; color=black; color=brown"],
    [true, object, "R=100; G=200; B=150"],
    [false, "a; evil=1", "color=a%3B%20evil%3D1"],
  ])("cookie form explode=%s %j", (explode, value, expected) => {
    const op = { parameters: [parameter({ name: "color", in: "cookie", style: "form", explode })] };
    expect(build(op, { color: value }).headers["cookie"]).toBe(expected);
  });
});

describe("bodies", () => {
  function withBody(body: BodyBinding, args: Record<string, unknown>) {
    return build({ method: "post", body }, args);
  }

  it("JSON-encodes property bodies and sets the media type", () => {
    const request = withBody(
      { mode: "property", arg: "body", mediaType: "application/json", required: true },
      { body: { name: "Rex", tags: ["a"] } },
    );
    expect(request.body).toBe('{"name":"Rex","tags":["a"]}');
    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.method).toBe("POST");
  });

  it("treats +json media types as JSON", () => {
    const request = withBody(
      { mode: "property", arg: "patch", mediaType: "application/merge-patch+json", required: true },
      { patch: { a: null } },
    );
    expect(request.body).toBe('{"a":null}');
    expect(request.headers["content-type"]).toBe("application/merge-patch+json");
  });

  it("gathers flattened properties under their body names, omitting what was not given", () => {
    const body: BodyBinding = {
      mode: "flattened",
      properties: { petName: "name", petTag: "tag" },
      mediaType: "application/json",
      required: false,
    };
    expect(withBody(body, { petName: "Rex" }).body).toBe('{"name":"Rex"}');
    expect(withBody(body, {}).body).toBeUndefined();
    expect(withBody({ ...body, required: true }, {}).body).toBe("{}");
  });

  it("sends no body when an optional property body is absent", () => {
    const request = withBody({ mode: "property", arg: "body", mediaType: "application/json", required: false }, {});
    expect(request.body).toBeUndefined();
    expect(request.headers["content-type"]).toBeUndefined();
  });

  it("encodes form bodies with Stripe's bracket convention, arrays indexed", () => {
    const request = withBody(
      {
        mode: "flattened",
        properties: {
          customer: "customer",
          metadata: "metadata",
          items: "items",
          expand: "expand",
          clear: "clear",
          note: "note",
        },
        mediaType: "application/x-www-form-urlencoded",
        required: true,
      },
      {
        customer: "cus_1",
        metadata: { order_id: "6735", "a b": "x&y" },
        items: [{ price: "price_1", quantity: 2 }, { price: "price_2" }],
        expand: ["customer", "invoice"],
        clear: {},
        note: null,
      },
    );
    const form = request.body as URLSearchParams;
    expect([...form]).toEqual([
      ["customer", "cus_1"],
      ["metadata[order_id]", "6735"],
      ["metadata[a b]", "x&y"],
      ["items[0][price]", "price_1"],
      ["items[0][quantity]", "2"],
      ["items[1][price]", "price_2"],
      ["expand[0]", "customer"],
      ["expand[1]", "invoice"],
      ["clear", ""],
      ["note", ""],
    ]);
    expect(form.toString()).toContain("metadata%5Ba+b%5D=x%26y");
    expect(request.headers["content-type"]).toBe("application/x-www-form-urlencoded");
  });

  it("builds multipart bodies as FormData and leaves Content-Type to fetch", () => {
    const request = withBody(
      { mode: "property", arg: "upload", mediaType: "multipart/form-data", required: true },
      { upload: { title: "a", tags: ["x", "y"], meta: { k: 1 } } },
    );
    const form = request.body as FormData;
    expect(form).toBeInstanceOf(FormData);
    expect(form.getAll("tags")).toEqual(["x", "y"]);
    expect(form.get("meta")).toBe('{"k":1}');
    expect(request.headers["content-type"]).toBeUndefined();
  });

  it("sends text/plain bodies as the string itself", () => {
    const request = withBody(
      { mode: "property", arg: "text", mediaType: "text/plain", required: true },
      { text: "hello\nworld" },
    );
    expect(request.body).toBe("hello\nworld");
    expect(request.headers["content-type"]).toBe("text/plain");
  });
});

describe("base URL and origin pinning", () => {
  it("appends the path to the base path", () => {
    for (const base of ["https://x.test/v1", "https://x.test/v1/"]) {
      const request = buildRequest({ ...api, baseUrl: base }, binding({ path: "/pets" }), {}, {});
      expect(request.url.href).toBe("https://x.test/v1/pets");
    }
  });

  it("prefers the env override, ignoring an empty one", () => {
    expect(build({}, {}, { TEST_BASE_URL: "http://127.0.0.1:9999/api" }).url.href).toBe(
      "http://127.0.0.1:9999/api/things",
    );
    expect(build({}, {}, { TEST_BASE_URL: "" }).url.href).toBe("https://api.example.com/v1/things");
  });

  it.each([
    ["", "missing_base_url"],
    ["/relative", "invalid_base_url"],
    ["ftp://x.test", "invalid_base_url"],
    ["https://user:secret@x.test", "invalid_base_url"],
  ])("rejects base URL %j, naming the env var but not the value", (baseUrl, code) => {
    let caught: unknown;
    try {
      buildRequest({ ...api, baseUrl }, binding(), {}, {});
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ code, subject: "TEST_BASE_URL" });
    expect((caught as Error).message).toContain("TEST_BASE_URL");
    expect((caught as Error).message).not.toContain("secret");
  });

  it("never leaves the base origin or path, whatever the template holds", () => {
    for (const path of ["//evil.test/x", "/../../x", "/%2e%2e/x"]) {
      let result: URL | undefined;
      try {
        result = build({ path }, {}).url;
      } catch (error) {
        expect(error).toMatchObject({ code: expect.stringMatching(/origin_mismatch|invalid_path_parameter/) });
        continue;
      }
      expect(result.origin).toBe("https://api.example.com");
      expect(result.pathname.startsWith("/v1/")).toBe(true);
    }
  });
});

describe("auth", () => {
  const allSchemes = (security: string[][]) => binding({ security });

  it.each([
    [[["headerKey"]], { TEST_API_KEY: "k1" }, { headers: { "x-api-key": "k1" } }],
    [[["bearer"]], { TEST_TOKEN: "t1" }, { headers: { authorization: "Bearer t1" } }],
    [
      [["basic"]],
      { TEST_USER: "u", TEST_PASSWORD: "p:w" },
      { headers: { authorization: `Basic ${Buffer.from("u:p:w").toString("base64")}` } },
    ],
    [
      [["basic"]],
      { TEST_USER: "sk_test" },
      { headers: { authorization: `Basic ${Buffer.from("sk_test:").toString("base64")}` } },
    ],
    [[["cookieKey"]], { TEST_SESSION: "s=1" }, { headers: { cookie: "session=s=1" } }],
  ])("applies %j", (security, env, expected) => {
    const request = buildRequest(api, allSchemes(security), {}, env);
    expect(request.headers).toMatchObject(expected.headers);
  });

  it("puts query API keys in the query string", () => {
    const request = buildRequest(api, allSchemes([["queryKey"]]), {}, { TEST_QUERY_KEY: "q k" });
    expect(request.url.search).toBe("?api_key=q%20k");
  });

  it("picks the first satisfied alternative and applies every scheme of an AND-set", () => {
    const security = [["bearer"], ["headerKey", "queryKey"]];
    const request = buildRequest(api, allSchemes(security), {}, { TEST_API_KEY: "k", TEST_QUERY_KEY: "q" });
    expect(request.headers["authorization"]).toBeUndefined();
    expect(request.headers["x-api-key"]).toBe("k");
    expect(request.url.searchParams.get("api_key")).toBe("q");
  });

  it("lets credentials win over a caller-supplied header of the same name", () => {
    const op = binding({
      security: [["headerKey"]],
      parameters: [parameter({ name: "X-API-Key", in: "header", style: "simple" })],
    });
    expect(
      buildRequest(api, op, { "X-API-Key": "from-agent" }, { TEST_API_KEY: "from-env" }).headers["x-api-key"],
    ).toBe("from-env");
  });

  it("merges cookie credentials with cookie parameters", () => {
    const op = binding({
      security: [["cookieKey"]],
      parameters: [parameter({ name: "lang", in: "cookie", style: "form" })],
    });
    expect(buildRequest(api, op, { lang: "en" }, { TEST_SESSION: "abc" }).headers["cookie"]).toBe(
      "lang=en; session=abc",
    );
  });

  it("rejects credentials that would inject headers, naming only the env var", () => {
    let caught: unknown;
    try {
      buildRequest(api, allSchemes([["bearer"]]), {}, { TEST_TOKEN: "secret\r\nX-Evil: 1" });
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ code: "header_injection", subject: "TEST_TOKEN" });
    expect((caught as Error).message).not.toContain("secret");
  });

  describe("missingCredentials", () => {
    it.each([
      [[], {}, []],
      [[["bearer"]], {}, ["TEST_TOKEN"]],
      [[["bearer"]], { TEST_TOKEN: "" }, ["TEST_TOKEN"]],
      [[["bearer"]], { TEST_TOKEN: "t" }, []],
      [[["basic"]], {}, ["TEST_USER"]],
      [[["headerKey", "queryKey"], ["bearer"]], { TEST_API_KEY: "k" }, ["TEST_QUERY_KEY"]],
      [[["headerKey", "queryKey"], ["bearer"]], {}, ["TEST_TOKEN"]],
      [[[], ["bearer"]], {}, []],
      [[["unknownScheme"]], {}, []],
    ])("security %j with env %j needs %j", (security, env, expected) => {
      expect(missingCredentials(api, binding({ security }), env)).toEqual(expected);
    });
  });
});
