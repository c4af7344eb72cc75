/**
 * The wire contract's judge (wire.ts) on small specs: what it does for
 * openapi-backend where openapi-backend does not model OpenAPI (each case is a
 * real spec's shape that made it report a correct request as wrong), and that
 * it still reports a wrong request in each of those shapes.
 */
import { describe, expect, it } from "vitest";
import type { RecordedRequest } from "../helpers/upstream.js";
import type { ToolData } from "../../src/model/ir.js";
import { Judge, outsideServedSchema } from "./wire.js";

function request(method: string, url: string, headers: Record<string, string> = {}, body = ""): RecordedRequest {
  const parsed = new URL(url, "http://upstream");
  return { method, path: parsed.pathname, query: parsed.searchParams, rawUrl: url, headers, body };
}

function spec(paths: Record<string, unknown>, components: Record<string, unknown> = {}) {
  return { openapi: "3.0.0", info: { title: "t", version: "1" }, paths, components };
}

const ok = { responses: { "200": { description: "ok" } } };

async function judge(document: ReturnType<typeof spec>, key: string, method: string, sent: RecordedRequest) {
  const judgeOf = new Judge(document);
  const operation = (document.paths[key] as Record<string, Record<string, unknown>>)[method]!;
  return judgeOf.judge({ method, key, operation }, sent, "");
}

describe("wire judge", () => {
  it("splits two parameters in one path segment itself (healthcare.gov, gitea)", async () => {
    const document = spec({
      "/blog/{pageName}{mediaTypeExtension}": {
        get: {
          ...ok,
          parameters: [
            { in: "path", name: "mediaTypeExtension", required: true, schema: { type: "string", enum: [".json"] } },
            { in: "path", name: "pageName", required: true, schema: { type: "string" } },
          ],
        },
      },
      "/commits/{sha}.{diffType}": {
        get: {
          ...ok,
          parameters: [
            { in: "path", name: "sha", required: true, schema: { type: "integer" } },
            { in: "path", name: "diffType", required: true, schema: { type: "string", enum: ["diff", "patch"] } },
          ],
        },
      },
    });
    const blog = "/blog/{pageName}{mediaTypeExtension}";
    expect(await judge(document, blog, "get", request("GET", "/blog/my.page.json"))).toEqual([]);
    expect(await judge(document, blog, "get", request("GET", "/blog/my-page.xml"))).toEqual([
      "path /blog/my-page.xml does not split into the parameters of /blog/{pageName}{mediaTypeExtension}",
    ]);
    const commits = "/commits/{sha}.{diffType}";
    expect(await judge(document, commits, "get", request("GET", "/commits/42.patch"))).toEqual([]);
    expect(await judge(document, commits, "get", request("GET", "/commits/abc.diff"))).toEqual([
      'path sha "abc": data must be integer',
    ]);
  });

  it("follows $refs with JSON-pointer escapes into other paths (spacetraders, Ex Libris, Nexmo)", async () => {
    const document = spec({
      "/register": {
        post: {
          ...ok,
          requestBody: {
            content: {
              "application/json": {
                schema: { type: "object", required: ["symbol"], properties: { symbol: { type: "string" } } },
              },
            },
          },
        },
      },
      "/agents/{id}": {
        put: {
          ...ok,
          parameters: [{ in: "path", name: "id", required: true, schema: { type: "string" } }],
          requestBody: {
            content: {
              "application/json": {
                schema: { $ref: "#/paths/~1register/post/requestBody/content/application~1json/schema" },
              },
            },
          },
        },
      },
    });
    const json = { "content-type": "application/json" };
    expect(await judge(document, "/agents/{id}", "put", request("PUT", "/agents/a", json, '{"symbol":"x"}'))).toEqual(
      [],
    );
    expect(await judge(document, "/agents/{id}", "put", request("PUT", "/agents/a", json, '{"name":"x"}'))).toEqual([
      "openapi-backend: /requestBody must have required property 'symbol'",
    ]);
  });

  it("lets an operation's parameter override the path item's, and moves the others down (rawg.io)", async () => {
    const document = spec({
      "/games/{id}": {
        parameters: [
          { in: "path", name: "id", required: true, schema: { type: "integer" } },
          { in: "query", name: "lang", required: true, schema: { type: "string" } },
        ],
        get: { ...ok, parameters: [{ in: "path", name: "id", required: true, schema: { type: "string" } }] },
      },
    });
    expect(await judge(document, "/games/{id}", "get", request("GET", "/games/portal-2?lang=en"))).toEqual([]);
    expect(await judge(document, "/games/{id}", "get", request("GET", "/games/portal-2"))).toEqual([
      "openapi-backend: /query must have required property 'lang'",
    ]);
  });

  it("gives each operation its own copy of a path item's $ref'd parameter (AWS: shared X-Amz-* headers)", async () => {
    const document = spec(
      {
        "/jobs": {
          parameters: [{ $ref: "#/components/parameters/Token" }],
          get: ok,
          post: { ...ok, parameters: [{ in: "query", name: "dry", schema: { type: "boolean" } }] },
        },
      },
      { parameters: { Token: { in: "header", name: "X-Token", required: true, schema: { type: "string" } } } },
    );
    const judgeOf = new Judge(document);
    for (const method of ["get", "post"]) {
      const operation = (document.paths["/jobs"] as Record<string, Record<string, unknown>>)[method]!;
      expect(
        await judgeOf.judge({ method, key: "/jobs", operation }, request(method, "/jobs", { "x-token": "t" }), ""),
      ).toEqual([]);
      expect(await judgeOf.judge({ method, key: "/jobs", operation }, request(method, "/jobs"), "")).toEqual([
        "openapi-backend: /header must have required property 'x-token'",
      ]);
    }
  });

  it("ignores Content-Type, Accept and Authorization header parameters, as OpenAPI 3 says (climate.com)", async () => {
    const document = spec({
      "/uploads/{id}": {
        put: {
          ...ok,
          parameters: [
            { in: "path", name: "id", required: true, schema: { type: "string" } },
            { in: "header", name: "Content-Type", required: true, schema: { type: "string" } },
            { in: "header", name: "Content-Range", required: true, schema: { type: "string" } },
          ],
        },
      },
    });
    const range = { "content-range": "bytes 0-1/2" };
    expect(await judge(document, "/uploads/{id}", "put", request("PUT", "/uploads/u", range))).toEqual([]);
    expect(await judge(document, "/uploads/{id}", "put", request("PUT", "/uploads/u"))).toEqual([
      "openapi-backend: /header must have required property 'content-range'",
    ]);
  });

  it("still checks a fragment naming the Accept header against the request (MediaLive's `#accept`)", async () => {
    const document = spec({
      "/thumbnail#accept": {
        get: {
          ...ok,
          parameters: [
            { in: "header", name: "accept", required: true, schema: { type: "string", enum: ["image/jpeg"] } },
          ],
        },
      },
    });
    expect(
      await judge(document, "/thumbnail#accept", "get", request("GET", "/thumbnail", { accept: "image/jpeg" })),
    ).toEqual([]);
    expect(await judge(document, "/thumbnail#accept", "get", request("GET", "/thumbnail"))).toEqual([
      "fragment #accept: header accept is missing",
    ]);
  });

  it("reads a JSON string body as the JSON text it is (contribly, openalpr)", async () => {
    const document = spec({
      "/media": {
        post: {
          ...ok,
          requestBody: { required: true, content: { "application/json": { schema: { type: "string" } } } },
        },
      },
    });
    const json = { "content-type": "application/json" };
    expect(await judge(document, "/media", "post", request("POST", "/media", json, '"aGVsbG8="'))).toEqual([]);
    expect(await judge(document, "/media", "post", request("POST", "/media", json, "aGVsbG8="))).toHaveLength(1);
    expect(await judge(document, "/media", "post", request("POST", "/media", json, "42"))).toEqual([
      "openapi-backend: /requestBody must be string",
    ]);
  });

  it("does not count a complaint inside a depth-limit stub wrapped in allOf (AWS Batch's logConfiguration)", () => {
    const stub = {
      type: "object",
      description: "Log options (nested structure (depth limit); contents not constrained here)",
    };
    const tool = {
      inputSchema: {
        type: "object",
        properties: {
          container: {
            type: "object",
            properties: {
              log: { allOf: [stub, { description: "The log configuration." }] },
              image: { type: "string" },
            },
          },
        },
      },
      operation: { body: { mode: "flattened", properties: { container: "container" } } },
    } as unknown as ToolData;
    expect(outsideServedSchema(tool, "/requestBody/container/log", "required")).toBe(true);
    expect(outsideServedSchema(tool, "/requestBody/container", "required")).toBe(false);
    expect(outsideServedSchema(tool, "/requestBody/container/image", "type")).toBe(false);
  });

  it("does not count a complaint at a body whose oneOf branches are stubs (Nexmo Messages, size-bounded depth)", () => {
    const stub = { description: "(nested structure (depth limit); contents not constrained here)" };
    const body = (schema: object) =>
      ({
        inputSchema: { type: "object", properties: { body: schema } },
        operation: { body: { mode: "property", arg: "body" } },
      }) as unknown as ToolData;
    const stubbed = body({ oneOf: [{ oneOf: [{ allOf: [stub, { type: "object", ...stub }] }] }] });
    expect(outsideServedSchema(stubbed, "/requestBody", "required")).toBe(true);
    const constrained = body({ oneOf: [{ type: "object", required: ["to"], properties: { to: { type: "string" } } }] });
    expect(outsideServedSchema(constrained, "/requestBody", "required")).toBe(false);
  });
});
