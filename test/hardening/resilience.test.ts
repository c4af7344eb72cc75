/**
 * Issue "The generated server under attack and fault", part 5: retries with
 * backoff for idempotent calls only, Retry-After, bounded attempts within the
 * deadline, a circuit breaker per upstream host reported in errors, and an
 * Idempotency-Key kept across a POST's retries. The Petstore sample, with an
 * `Idempotency-Key` header parameter added to `createPayment`, is generated,
 * compiled and driven over stdio against a real local upstream.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateAndBuild, type BuiltProject } from "../helpers/generated.js";
import { SAMPLES } from "../helpers/pipeline.js";
import { json, startUpstream, type RecordedRequest, type Upstream } from "../helpers/upstream.js";
import { call, dataOf, errorOf, stdioSession, type StdioSession, closedPort } from "./support.js";

let project: BuiltProject;
let upstream: Upstream;
let env: Record<string, string>;
/** Scripted answers per path: each request takes the next status; then 200. */
const scripts = new Map<string, Array<number | [number, Record<string, string>]>>();
const hits = (path: string): RecordedRequest[] => upstream.requests.filter((request) => request.path === path);

function scripted(req: RecordedRequest, res: Parameters<Parameters<Upstream["route"]>[2]>[1], ok: unknown): void {
  const next = scripts.get(req.path)?.shift();
  if (next === undefined) return json(res, req.method === "POST" ? 201 : 200, ok);
  const [status, headers] = Array.isArray(next) ? next : [next, {}];
  json(res, status, { message: `scripted ${status}` }, headers);
}

beforeAll(async () => {
  const spec = parseYaml(readFileSync(join(SAMPLES, "petstore.yaml"), "utf8")) as {
    paths: Record<string, Record<string, { parameters?: unknown[] }>>;
  };
  spec.paths["/payments"]!["post"]!.parameters = [
    { name: "Idempotency-Key", in: "header", required: false, schema: { type: "string" } },
  ];
  const specPath = join(mkdtempSync(join(tmpdir(), "cgm-resilience-")), "petstore-idempotent.yaml");
  writeFileSync(specPath, stringifyYaml(spec));

  upstream = await startUpstream();
  upstream.route("GET", /^\/v1\/pets\/\d+$/, (req, res) =>
    scripted(req, res, { id: Number(req.path.split("/").pop()), name: "Rex" }),
  );
  upstream.route("PUT", /^\/v1\/pets\/\d+$/, (req, res) =>
    scripted(req, res, { id: Number(req.path.split("/").pop()), name: "Rex" }),
  );
  upstream.route("POST", /^\/v1\/pets$/, (req, res) => scripted(req, res, { id: 9, name: "Rex" }));
  upstream.route("POST", /^\/v1\/payments$/, (req, res) =>
    scripted(req, res, { id: "pay_1", amount: 1, currency: "usd", metadata: {} }),
  );
  upstream.route("GET", /^\/v1\/orders\/cut$/, (req, res) => {
    // Headers and half a body, then the connection dies.
    res.writeHead(200, { "content-type": "application/json", "content-length": "1000" });
    res.write('{"id":"cut","pet_id":');
    setTimeout(() => res.destroy(), 20);
  });
  project = await generateAndBuild(specPath);
  env = { PETSTORE_BASE_URL: `${upstream.url}/v1`, PETSTORE_API_KEY: "resilience-key" };
}, 600_000);

afterAll(async () => {
  await upstream?.close();
});

describe("retries", () => {
  let session: StdioSession;
  beforeAll(async () => {
    session = await stdioSession(project.dir, { ...env, PETSTORE_CIRCUIT_THRESHOLD: "0" });
  });
  afterAll(async () => {
    await session?.close();
  });

  it("retries an idempotent GET on 502/503 with growing, jittered delays, then succeeds", async () => {
    scripts.set("/v1/pets/11", [502, 503]);
    const result = await call(session.client, "get_pet", { petId: 11 });
    expect(dataOf(result)).toMatchObject({ id: 11 });
    const seen = hits("/v1/pets/11");
    expect(seen).toHaveLength(3);
    expect(session.stderr()).toMatch(/retry 1\/2 in \d+ ms/);
    expect(session.stderr()).toMatch(/retry 2\/2 in \d+ ms/);
    // Jittered between half and all of 250 ms, then of 500 ms.
    const delays = [...session.stderr().matchAll(/GET [^\n]*\/v1\/pets\/11: HTTP 50\d, retry \d\/2 in (\d+) ms/g)].map(
      (match) => Number(match[1]),
    );
    expect(delays).toHaveLength(2);
    expect(delays[0]).toBeGreaterThanOrEqual(125);
    expect(delays[0]).toBeLessThanOrEqual(250);
    expect(delays[1]).toBeGreaterThanOrEqual(250);
    expect(delays[1]).toBeLessThanOrEqual(500);
  });

  it("gives up after PETSTORE_RETRIES retries with the guided error, saying how often it tried", async () => {
    scripts.set("/v1/pets/12", [503, 504, 503, 503]);
    const error = errorOf(await call(session.client, "get_pet", { petId: 12 }));
    expect(hits("/v1/pets/12")).toHaveLength(3);
    expect(error).toMatchObject({ code: "UPSTREAM_UNAVAILABLE", details: { status: 503, attempts: 3 } });
    expect(error.message).toContain("tried 3 times");
  });

  it("honours Retry-After on 429", async () => {
    scripts.set("/v1/pets/13", [[429, { "retry-after": "1" }]]);
    const started = Date.now();
    expect(dataOf(await call(session.client, "get_pet", { petId: 13 }))).toMatchObject({ id: 13 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(hits("/v1/pets/13")).toHaveLength(2);
  });

  it("does not sit out a Retry-After longer than PETSTORE_RETRY_MAX_DELAY_MS: the agent gets RATE_LIMITED with retry_after_ms", async () => {
    scripts.set("/v1/pets/14", [[429, { "retry-after": "30" }]]);
    const started = Date.now();
    const error = errorOf(await call(session.client, "get_pet", { petId: 14 }));
    expect(Date.now() - started).toBeLessThan(2000);
    expect(error).toMatchObject({ code: "RATE_LIMITED", retry_after_ms: 30_000 });
    expect(hits("/v1/pets/14")).toHaveLength(1);
  });

  it("retries PUT (idempotent) but never a POST whose operation declares no Idempotency-Key", async () => {
    scripts.set("/v1/pets/15", [503]);
    expect(dataOf(await call(session.client, "update_pet", { petId: 15, name: "Rex" }))).toMatchObject({ id: 15 });
    expect(hits("/v1/pets/15").filter((request) => request.method === "PUT")).toHaveLength(2);

    scripts.set("/v1/pets", [503, 503]);
    const before = hits("/v1/pets").length;
    const error = errorOf(await call(session.client, "create_pet", { name: "Rex" }));
    expect(error.code).toBe("UPSTREAM_UNAVAILABLE");
    expect(error.message).toContain("may or may not have been applied");
    expect(hits("/v1/pets").length - before).toBe(1);
    expect(hits("/v1/pets").at(-1)!.headers["idempotency-key"]).toBeUndefined();
    scripts.delete("/v1/pets");
  });

  it("retries a POST that declares Idempotency-Key, with one random key kept across its retries", async () => {
    scripts.set("/v1/payments", [503, 502]);
    expect(dataOf(await call(session.client, "create_payment", { amount: 5, currency: "usd" }))).toMatchObject({
      id: "pay_1",
    });
    const first = hits("/v1/payments");
    expect(first).toHaveLength(3);
    const keys = first.map((request) => request.headers["idempotency-key"]);
    expect(keys[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(keys).size).toBe(1);

    // A new call gets a new key; a key the caller gives is used as is.
    await call(session.client, "create_payment", { amount: 5, currency: "usd" });
    expect(hits("/v1/payments").at(-1)!.headers["idempotency-key"]).not.toBe(keys[0]);
    scripts.set("/v1/payments", [503]);
    await call(session.client, "create_payment", { amount: 5, currency: "usd", "Idempotency-Key": "caller-key-1" });
    expect(
      hits("/v1/payments")
        .slice(-2)
        .map((request) => request.headers["idempotency-key"]),
    ).toEqual(["caller-key-1", "caller-key-1"]);
  });

  it("retries network errors: a body cut off mid-way", async () => {
    const error = errorOf(await call(session.client, "get_order", { id: "cut" }));
    expect(error.code).toBe("UPSTREAM_UNREACHABLE");
    expect(error.details).toMatchObject({ attempts: 3 });
    expect(hits("/v1/orders/cut")).toHaveLength(3);
  });

  it("retries connection refused, then reports the guided error", async () => {
    const down = await stdioSession(project.dir, {
      ...env,
      PETSTORE_BASE_URL: `http://127.0.0.1:${await closedPort()}/v1`,
    });
    try {
      const error = errorOf(await call(down.client, "get_pet", { petId: 1 }));
      expect(error).toMatchObject({ code: "UPSTREAM_UNREACHABLE", details: { attempts: 3 } });
      expect(error.message).toMatch(/ECONNREFUSED/);
      expect(down.stderr().match(/network error, retry/g)).toHaveLength(2);
    } finally {
      await down.close();
    }
  });

  it("keeps every retry within the call's deadline", async () => {
    const tight = await stdioSession(project.dir, {
      ...env,
      PETSTORE_TIMEOUT_MS: "700",
      PETSTORE_CIRCUIT_THRESHOLD: "0",
    });
    try {
      // Retry-After 1 s does not fit in a 700 ms deadline: no retry.
      scripts.set("/v1/pets/16", [[503, { "retry-after": "1" }], 503]);
      const started = Date.now();
      expect(errorOf(await call(tight.client, "get_pet", { petId: 16 })).code).toBe("UPSTREAM_UNAVAILABLE");
      expect(Date.now() - started).toBeLessThan(700);
      expect(hits("/v1/pets/16")).toHaveLength(1);
      // PETSTORE_RETRIES=0 turns retrying off.
      const none = await stdioSession(project.dir, { ...env, PETSTORE_RETRIES: "0" });
      scripts.set("/v1/pets/17", [503]);
      expect(errorOf(await call(none.client, "get_pet", { petId: 17 })).code).toBe("UPSTREAM_UNAVAILABLE");
      expect(hits("/v1/pets/17")).toHaveLength(1);
      await none.close();
    } finally {
      await tight.close();
      scripts.clear();
    }
  });
});

describe("circuit breaker per upstream host", () => {
  it("opens after N consecutive failures, fails fast without calling the upstream, half-opens after the cool-down", async () => {
    const session = await stdioSession(project.dir, {
      ...env,
      PETSTORE_RETRIES: "0",
      PETSTORE_CIRCUIT_THRESHOLD: "3",
      PETSTORE_CIRCUIT_COOLDOWN_MS: "1500",
    });
    try {
      scripts.set("/v1/pets/21", [500, 500, 500, 500, 500]);
      const first = errorOf(await call(session.client, "get_pet", { petId: 21 }));
      expect(first.details).toMatchObject({ circuit: { state: "closed", failures: 1, retry_after_ms: 0 } });
      errorOf(await call(session.client, "get_pet", { petId: 21 }));
      const third = errorOf(await call(session.client, "get_pet", { petId: 21 }));
      expect(third.code).toBe("UPSTREAM_UNAVAILABLE");
      expect(third.details).toMatchObject({ status: 500, circuit: { state: "open", failures: 3 } });
      expect((third.details!["circuit"] as { retry_after_ms: number }).retry_after_ms).toBeGreaterThan(1000);
      expect(hits("/v1/pets/21")).toHaveLength(3);
      expect(session.stderr()).toContain("circuit opened after 3 consecutive failed calls");

      // Open: any tool on that host fails at once, and the upstream sees nothing.
      const before = upstream.requests.length;
      const open = errorOf(await call(session.client, "get_pet", { petId: 22 }));
      expect(open).toMatchObject({
        code: "UPSTREAM_UNAVAILABLE",
        details: { reason: "circuit_open", upstream_called: false, circuit: { state: "open", failures: 3 } },
      });
      expect(open.retry_after_ms).toBeGreaterThan(0);
      expect(open.message).toContain("circuit breaker open");
      expect(errorOf(await call(session.client, "create_pet", { name: "Rex" })).details).toMatchObject({
        reason: "circuit_open",
      });
      expect(upstream.requests.length).toBe(before);

      // After the cool-down one trial goes through; a failure re-opens at once.
      await sleep(1600);
      const trial = errorOf(await call(session.client, "get_pet", { petId: 21 }));
      expect(trial.details).toMatchObject({ status: 500, circuit: { state: "open", failures: 4 } });
      expect(errorOf(await call(session.client, "get_pet", { petId: 23 })).details).toMatchObject({
        reason: "circuit_open",
      });

      // A successful trial closes it again.
      await sleep(1600);
      scripts.delete("/v1/pets/21");
      expect(dataOf(await call(session.client, "get_pet", { petId: 21 }))).toMatchObject({ id: 21 });
      expect(dataOf(await call(session.client, "get_pet", { petId: 24 }))).toMatchObject({ id: 24 });
      scripts.set("/v1/pets/25", [500]);
      expect(errorOf(await call(session.client, "get_pet", { petId: 25 })).details).toMatchObject({
        circuit: { state: "closed", failures: 1 },
      });
    } finally {
      await session.close();
      scripts.clear();
    }
  });

  it("does not count client errors (4xx) or rate limits as failures", async () => {
    const session = await stdioSession(project.dir, { ...env, PETSTORE_RETRIES: "0", PETSTORE_CIRCUIT_THRESHOLD: "2" });
    try {
      scripts.set("/v1/pets/31", [404, 422, [429, { "retry-after": "60" }], 404]);
      for (let i = 0; i < 4; i++) {
        const error = errorOf(await call(session.client, "get_pet", { petId: 31 }));
        expect(error.details?.["circuit"]).toBeUndefined();
      }
      expect(hits("/v1/pets/31")).toHaveLength(4);
    } finally {
      await session.close();
      scripts.clear();
    }
  });
});
