import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BuiltRequest } from "../../templates/server/src/runtime/upstream/request.js";
import { callUpstream, UpstreamError } from "../../templates/server/src/runtime/upstream/upstream.js";

type Route = (req: IncomingMessage, res: ServerResponse, body: string) => void;

async function listen(routes: Record<string, Route>): Promise<{ server: Server; base: string }> {
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    req.on("end", () => {
      const route = routes[new URL(req.url ?? "/", "http://x").pathname];
      if (route) route(req, res, body);
      else res.writeHead(404).end("no route");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const json = (res: ServerResponse, status: number, value: unknown, type = "application/json") =>
  res.writeHead(status, { "content-type": type, "X-Custom": "Yes" }).end(JSON.stringify(value));

let upstream: { server: Server; base: string };
let otherOrigin: { server: Server; base: string };

beforeAll(async () => {
  otherOrigin = await listen({ "/landing": (_req, res) => json(res, 200, { reached: "other" }) });
  upstream = await listen({
    "/json": (_req, res) => json(res, 200, { ok: true, list: [1, 2] }),
    "/problem": (_req, res) => json(res, 422, { title: "bad" }, "application/problem+json; charset=utf-8"),
    "/text": (_req, res) => res.writeHead(200, { "content-type": "text/plain" }).end("plain words"),
    "/mislabelled": (_req, res) =>
      res.writeHead(502, { "content-type": "application/json" }).end("<html>Bad gateway</html>"),
    "/empty": (_req, res) => res.writeHead(204).end(),
    "/big-error": (_req, res) => res.writeHead(500, { "content-type": "text/plain" }).end("x".repeat(5000)),
    "/echo": (req, res, body) =>
      json(res, 200, { method: req.method, auth: req.headers["authorization"] ?? null, body }),
    "/slow-headers": (_req, res) => setTimeout(() => json(res, 200, {}), 2000),
    "/slow-body": (_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"partial":');
      setTimeout(() => res.end("1}"), 2000);
    },
    "/cut-off": (_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "1000" });
      res.write('{"partial":');
      setTimeout(() => res.destroy(), 20);
    },
    "/huge-declared": (_req, res) =>
      res.writeHead(200, { "content-length": String(2_000_000) }).end("x".repeat(2_000_000)),
    "/huge-streamed": (_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      for (let i = 0; i < 200; i++) res.write("y".repeat(10_000));
      res.end();
    },
    "/redirect-same": (_req, res) => res.writeHead(302, { location: "/json" }).end(),
    "/redirect-post": (_req, res) => res.writeHead(303, { location: "/echo" }).end(),
    "/redirect-other": (_req, res) => res.writeHead(302, { location: `${otherOrigin.base}/landing` }).end(),
  });
});

afterAll(async () => {
  upstream.server.closeAllConnections();
  otherOrigin.server.closeAllConnections();
  await new Promise((resolve) => upstream.server.close(resolve));
  await new Promise((resolve) => otherOrigin.server.close(resolve));
});

function get(path: string, extra: Partial<BuiltRequest> = {}): BuiltRequest {
  return { url: new URL(path, upstream.base), method: "GET", headers: {}, ...extra };
}

const limits = { timeoutMs: 1000, maxResponseBytes: 1_000_000 };

async function failure(promise: Promise<unknown>): Promise<UpstreamError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(UpstreamError);
    return error as UpstreamError;
  }
  throw new Error("expected the call to fail");
}

describe("callUpstream", () => {
  it("parses JSON bodies and lower-cases headers", async () => {
    const response = await callUpstream(get("/json"), limits);
    expect(response).toMatchObject({ status: 200, ok: true, body: { ok: true, list: [1, 2] } });
    expect(response.headers["x-custom"]).toBe("Yes");
    expect(response.url).toBe(`${upstream.base}/json`);
    expect(response.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("parses +json error bodies and reports non-2xx as not ok", async () => {
    const response = await callUpstream(get("/problem"), limits);
    expect(response).toMatchObject({ status: 422, ok: false, body: { title: "bad" } });
  });

  it("returns text for text and for JSON that does not parse", async () => {
    expect((await callUpstream(get("/text"), limits)).body).toBe("plain words");
    const mislabelled = await callUpstream(get("/mislabelled"), limits);
    expect(mislabelled).toMatchObject({ status: 502, body: "<html>Bad gateway</html>" });
  });

  it("gives undefined for an empty body", async () => {
    const response = await callUpstream(get("/empty"), limits);
    expect(response).toMatchObject({ status: 204, body: undefined, bodyText: "" });
  });

  it("trims bodyText but keeps the full body", async () => {
    const response = await callUpstream(get("/big-error"), { ...limits, maxBodyTextChars: 100 });
    expect(response.status).toBe(500);
    expect(response.bodyText.startsWith("x".repeat(100))).toBe(true);
    expect(response.bodyText).toContain("4900 more characters");
    expect((response.body as string).length).toBe(5000);
  });

  it("sends method, headers and body", async () => {
    const response = await callUpstream(
      get("/echo", {
        method: "POST",
        headers: { authorization: "Bearer t", "content-type": "application/json" },
        body: '{"a":1}',
      }),
      limits,
    );
    expect(response.body).toEqual({ method: "POST", auth: "Bearer t", body: '{"a":1}' });
  });

  it("times out waiting for headers", async () => {
    const error = await failure(callUpstream(get("/slow-headers"), { ...limits, timeoutMs: 200 }));
    expect(error.kind).toBe("timeout");
    expect(error.message).toContain("200 ms");
  });

  it("times out while the body is still streaming", async () => {
    const error = await failure(callUpstream(get("/slow-body"), { ...limits, timeoutMs: 300 }));
    expect(error.kind).toBe("timeout");
  });

  it("reports cancellation by the caller as aborted", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const error = await failure(callUpstream(get("/slow-headers"), { ...limits, signal: controller.signal }));
    expect(error.kind).toBe("aborted");
  });

  it("reports a connection closed mid-body as a network failure", async () => {
    const error = await failure(callUpstream(get("/cut-off"), limits));
    expect(error.kind).toBe("network");
  });

  it("reports a refused connection as a network failure", async () => {
    const closed = await listen({});
    const url = new URL("/x", closed.base);
    await new Promise((resolve) => closed.server.close(resolve));
    const error = await failure(callUpstream({ url, method: "GET", headers: {} }, limits));
    expect(error.kind).toBe("network");
    expect(error.message).toMatch(/ECONNREFUSED/);
  });

  it("refuses bodies over the byte cap, declared or streamed", async () => {
    expect((await failure(callUpstream(get("/huge-declared"), limits))).kind).toBe("too_large");
    expect((await failure(callUpstream(get("/huge-streamed"), limits))).kind).toBe("too_large");
  });

  it("follows same-origin redirects", async () => {
    const response = await callUpstream(get("/redirect-same"), limits);
    expect(response).toMatchObject({ status: 200, url: `${upstream.base}/json` });
  });

  it("turns a 303 after POST into a GET without body", async () => {
    const response = await callUpstream(get("/redirect-post", { method: "POST", body: "x" }), limits);
    expect(response.body).toMatchObject({ method: "GET", body: "" });
  });

  it("does not follow redirects to another origin, so credentials stay home", async () => {
    const response = await callUpstream(get("/redirect-other", { headers: { "x-api-key": "secret" } }), limits);
    expect(response.status).toBe(302);
    expect(response.headers["location"]).toBe(`${otherOrigin.base}/landing`);
  });
});
