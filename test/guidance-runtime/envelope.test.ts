import { describe, expect, it } from "vitest";
import { buildEnvelope } from "../../templates/server/src/runtime/guidance/envelope.js";
import { envelopeResult } from "../../templates/server/src/runtime/guidance/result.js";
import { ResponseCache } from "../../templates/server/src/runtime/call/response-cache.js";
import { parseLinkHeader, resolveExpression } from "../../templates/server/src/runtime/guidance/links.js";
import { prepareArguments } from "../../templates/server/src/runtime/guidance/correct.js";
import { describeTool, listCategories } from "../../templates/server/src/runtime/guidance/describe.js";
import {
  addPet,
  allTools,
  findPets,
  getPet,
  listCharges,
  listEvents,
  listRepos,
  toolsByName,
  validatorFor,
} from "./fixtures.js";

/** The server keeps one cache; these tests share one too. */
const cache = new ResponseCache();

const pets = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => ({ id: from + i + 1, name: `pet${from + i}`, status: "sold" }));

describe("link resolution", () => {
  it("fills params from request path and response body, drops unfillable actions", () => {
    const env = buildEnvelope(getPet, toolsByName, {
      cache,
      args: { petId: 7 },
      response: { status: 200, headers: {}, body: { id: 7, name: "rex", status: "pending" } },
    });
    expect(env.available_actions).toEqual([
      { name: "Delete this pet", tool: "delete_pet", params: { petId: 7 } },
      { name: "Find pets with the same status", tool: "find_pets", params: { status: "pending", limit: 5 } },
    ]); // "Get the owner" dropped: body has no owner
    expect(env.next_actions).toEqual(["delete_pet", "find_pets"]);
    expect(env.context).toMatchObject({ id: 7, name: "rex", status: "pending" });
    expect(env.data).toEqual({ id: 7, name: "rex", status: "pending" });
    expect(env.suggestion).toMatch(/succeeded \(id 7\)/);
  });

  it("resolves $request.body (flattened), $response.header and keeps literals", () => {
    const env = buildEnvelope(addPet, toolsByName, {
      cache,
      args: { name: "rex", status: "sold" },
      response: { status: 201, headers: { "x-owner-id": "o9", location: "/pets/12" }, body: { id: 12 } },
    });
    expect(env.available_actions.map((a) => [a.tool, a.params])).toEqual([
      ["get_pet_by_id", { petId: 12 }],
      ["find_pets", { status: "sold" }],
      ["get_owner", { ownerId: "o9" }],
    ]);
    expect(env.context["location"]).toBe("/pets/12");
  });

  it("supports embedded expressions and other roots", () => {
    const ctx = {
      tool: getPet,
      args: { petId: 3 },
      response: { status: 200, headers: { ETag: "abc" }, body: { a: [{ b: 1 }] } },
    };
    expect(resolveExpression("pets/{$request.path.petId}/x", ctx)).toBe("pets/3/x");
    expect(resolveExpression("$response.body#/a/0/b", ctx)).toBe(1);
    expect(resolveExpression("$response.header.etag", ctx)).toBe("abc");
    expect(resolveExpression("$statusCode", ctx)).toBe(200);
    expect(resolveExpression("$method", ctx)).toBe("GET");
    expect(resolveExpression("literal", ctx)).toBe("literal");
    expect(resolveExpression("$response.body#/missing", ctx)).toBeUndefined();
  });
});

describe("pagination", () => {
  it("offset: a full page yields the exact next call (defaults taken into account)", () => {
    const r = prepareArguments(findPets, { status: "sold" }, validatorFor(findPets));
    if (!r.ok) throw new Error();
    const env = buildEnvelope(findPets, toolsByName, {
      cache,
      args: r.args,
      resolvedInputs: r.resolved_inputs,
      response: { status: 200, headers: {}, body: pets(20) },
    });
    expect(env.next_steps).toEqual([{ tool: "find_pets", params: { status: "sold", offset: 20 }, note: "Next page" }]);
    expect(env.context).toMatchObject({ count: 20, ids: expect.arrayContaining([1, 2]) });
    expect(env.suggestion).toMatch(/returned 20 items; more are available/);
    expect(env.tips?.[0]).toMatch(/Pass limit/);
    // A short page means the end.
    const last = buildEnvelope(findPets, toolsByName, {
      cache,
      args: { status: "sold", offset: 20 },
      resolvedInputs: { status: "sold", offset: 20, limit: 20 },
      response: { status: 200, headers: {}, body: pets(3) },
    });
    expect(last.next_steps).toBeUndefined();
  });

  it("cursor from a response field", () => {
    const env = buildEnvelope(listEvents, toolsByName, {
      cache,
      args: { limit: 2 },
      response: { status: 200, headers: {}, body: { events: [{ id: "e1" }, { id: "e2" }], next_cursor: "c2" } },
    });
    expect(env.next_steps?.[0]).toMatchObject({ tool: "list_events", params: { limit: 2, cursor: "c2" } });
    const end = buildEnvelope(listEvents, toolsByName, {
      cache,
      args: {},
      response: { status: 200, headers: {}, body: { events: [{ id: "e3" }], next_cursor: null } },
    });
    expect(end.next_steps).toBeUndefined();
  });

  it("cursor from the last item while has_more is true (Stripe style)", () => {
    const body = { object: "list", data: [{ id: "ch_1" }, { id: "ch_2" }], has_more: true };
    const env = buildEnvelope(listCharges, toolsByName, {
      cache,
      args: { limit: 2 },
      response: { status: 200, headers: {}, body },
    });
    expect(env.next_steps?.[0]).toMatchObject({ params: { limit: 2, starting_after: "ch_2" } });
    const done = buildEnvelope(listCharges, toolsByName, {
      cache,
      args: { limit: 2 },
      response: { status: 200, headers: {}, body: { ...body, has_more: false } },
    });
    expect(done.next_steps).toBeUndefined();
  });

  it("Link header rel=next is parsed into the next call", () => {
    const link =
      '<https://api.example.com/repos?per_page=2&page=3&sort=full_name>; rel="next", <https://api.example.com/repos?page=9>; rel="last"';
    expect(parseLinkHeader(link)).toEqual({
      next: "https://api.example.com/repos?per_page=2&page=3&sort=full_name",
      last: "https://api.example.com/repos?page=9",
    });
    const env = buildEnvelope(listRepos, toolsByName, {
      cache,
      args: { per_page: 2, page: 2 },
      response: { status: 200, headers: { link }, body: [{ id: 1 }, { id: 2 }] },
    });
    expect(env.next_steps?.[0]).toMatchObject({
      tool: "list_repos",
      params: { per_page: 2, page: 3, sort: "full_name" },
    });
  });
});

describe("progressive disclosure", () => {
  it("summarises an oversized list, caches it, and pages through all of it", () => {
    const body = pets(500);
    const env = buildEnvelope(findPets, toolsByName, {
      cache,
      args: { status: "sold", limit: 500 },
      response: { status: 200, headers: {}, body },
      budgetChars: 2000,
    });
    expect(env.data).toBeUndefined();
    expect(env.detail_available).toBe(true);
    expect(env.summary).toMatchObject({ item_count: 500, field_names: ["id", "name", "status"] });
    expect(env.warnings?.some((w) => /Nothing was discarded/.test(w))).toBe(true);
    const first = (env.summary!["first_items"] as unknown[]).length;
    expect(first).toBeGreaterThan(0);
    const step = env.next_steps!.find((s) => s.tool === "read_response")!;
    expect(step.params).toEqual(env.detail!.params);

    // Walk the pages with the exact calls offered, and get every item back.
    const seen = [...(env.summary!["first_items"] as unknown[])];
    let params = step.params as { handle: string; offset: number; limit: number };
    for (let guard = 0; guard < 1000; guard++) {
      const r = cache.read(params.handle, params.offset, params.limit);
      if (!r.ok) throw new Error(r.error.message);
      expect(JSON.stringify(r.page.items).length).toBeLessThanOrEqual(20_000);
      seen.push(...r.page.items!);
      if (!r.page.next) break;
      params = r.page.next.params as typeof params;
    }
    expect(seen).toEqual(body);
    expect(JSON.stringify(envelopeResult(env).structuredContent).length).toBeLessThan(6000);
  });

  it("pages a large non-list object as text chunks", () => {
    const body = { blob: "x".repeat(5000), id: 1 };
    const env = buildEnvelope(getPet, toolsByName, {
      cache,
      args: { petId: 1 },
      response: { status: 200, headers: {}, body },
      budgetChars: 1000,
    });
    expect(env.summary).toMatchObject({ type: "object", field_names: ["blob", "id"] });
    let text = "";
    let params = env.detail!.params as { handle: string; offset: number; limit: number };
    for (;;) {
      const r = cache.read(params.handle, params.offset, params.limit);
      if (!r.ok) throw new Error();
      text += r.page.text;
      if (!r.page.next) break;
      params = r.page.next.params as typeof params;
    }
    expect(JSON.parse(text)).toEqual(body);
  });

  it("cache is a bounded LRU with TTL, and an unknown handle explains how to recover", () => {
    let now = 0;
    const cache = new ResponseCache({ maxEntries: 2, ttlMs: 1000, now: () => now });
    const call = { tool: "t", params: {} };
    const a = cache.put({ data: [1], items: [1], call, pageSize: 10 });
    const b = cache.put({ data: [2], items: [2], call, pageSize: 10 });
    expect(cache.read(a).ok).toBe(true); // a becomes most recent
    const c = cache.put({ data: [3], items: [3], call, pageSize: 10 });
    expect(cache.size).toBe(2);
    expect(cache.read(b).ok).toBe(false);
    expect(cache.read(c).ok).toBe(true);
    now = 5000;
    const expired = cache.read(c);
    expect(expired.ok).toBe(false);
    if (!expired.ok) expect(expired.error.code).toBe("RESPONSE_EXPIRED");
    expect(cache.read("resp_nope").ok).toBe(false);
  });
});

describe("envelopeResult", () => {
  it("returns structuredContent and a compact text rendering", () => {
    const env = buildEnvelope(getPet, toolsByName, {
      cache,
      args: { petId: 7 },
      corrections: [{ from: "petid", to: "petId", confidence: 0.97 }],
      warnings: ["auto-corrected"],
      response: { status: 200, headers: {}, body: { id: 7, status: "sold" } },
    });
    const result = envelopeResult(env);
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toBe(env);
    const text = (result.content[0] as { text: string }).text;
    expect(text).toMatch(/Delete this pet: `delete_pet` \{"petId":7\}/);
    expect(text).toMatch(/petid → petId/);
    expect(env.corrections).toHaveLength(1);
  });
});

describe("describe", () => {
  it("lists categories with counts and describes a tool at every level", () => {
    const listing = listCategories(allTools);
    expect(listing.tool_count).toBe(allTools.length);
    expect(listing.categories[0]).toMatchObject({ name: "pet", count: 4 });
    expect(listCategories(allTools, "users").categories).toHaveLength(1);
    for (const level of ["minimal", "typed", "full"] as const) {
      const d = describeTool(findPets, level);
      expect(d.schema).toBe(findPets.guidance.hints[level]);
      expect(d.examples).toBe(findPets.guidance.examples);
    }
    expect(describeTool(allTools.find((t) => t.name === "delete_pet")!).requires_confirmation).toBe(true);
  });
});

describe("overhead", () => {
  it("p50 of prepareArguments + buildEnvelope + envelopeResult for a valid call is < 0.2 ms", () => {
    const validate = validatorFor(getPet);
    const body = { id: 7, name: "rex", status: "pending", tags: [{ id: 1, name: "a" }] };
    const run = () => {
      const r = prepareArguments(getPet, { petId: 7 }, validate);
      if (!r.ok) throw new Error();
      return envelopeResult(
        buildEnvelope(getPet, toolsByName, {
          cache,
          args: r.args,
          resolvedInputs: r.resolved_inputs,
          response: { status: 200, headers: {}, body },
        }),
      );
    };
    for (let i = 0; i < 2000; i++) run();
    const times: number[] = [];
    for (let i = 0; i < 2000; i++) {
      const t = performance.now();
      run();
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    const p50 = times[Math.floor(times.length / 2)]!;
    expect(p50).toBeLessThan(0.2);
  });
});
