import { describe, expect, it } from "vitest";
import {
  confirmationRequiredError,
  argumentErrorCode,
  unknownToolError,
} from "../../templates/server/src/runtime/guidance/errors.js";
import { errorResult } from "../../templates/server/src/runtime/guidance/result.js";
import { upstreamError } from "../../templates/server/src/runtime/guidance/upstream-errors.js";
import { parseRetryAfter } from "../../templates/server/src/runtime/shared/parse.js";
import { prepareArguments } from "../../templates/server/src/runtime/guidance/correct.js";
import { addPet, allTools, api, deletePet, findPets, getPet, validatorFor } from "./fixtures.js";

const NOW = Date.parse("2025-01-01T00:00:00Z");

describe("unknownToolError", () => {
  it("suggests the closest tool, lists similar ones and categories", () => {
    const e = unknownToolError("get_pet", allTools, { petId: 4 });
    expect(e.code).toBe("UNKNOWN_TOOL");
    expect(e.suggestions.did_you_mean).toBe("get_pet_by_id");
    expect(e.suggestions.alternatives!.every((a) => a.score > 0.4)).toBe(true);
    expect(e.details!["categories"]).toContainEqual({ name: "pet", count: 4 });
    expect(e.next_steps[0]).toMatchObject({ tool: "get_pet_by_id", params: { petId: 4 } });
    expect(e.next_steps).toContainEqual(expect.objectContaining({ tool: "info", params: {} }));
    expect(e.schema_hint_level).toBe("typed");
  });
  it("word order does not matter", () => {
    expect(unknownToolError("users_search", allTools).suggestions.did_you_mean).toBe("search_users");
  });
  it("still guides with no match", () => {
    const e = unknownToolError("zzzz", allTools);
    expect(e.suggestions.did_you_mean).toBeUndefined();
    expect(e.message).toMatch(/info\(\)/);
  });
});

describe("confirmationRequiredError", () => {
  it("says what would happen and gives the confirmed call", () => {
    const e = confirmationRequiredError(deletePet, { petId: 42 });
    expect(e.code).toBe("CONFIRMATION_REQUIRED");
    expect(e.message).toMatch(/DELETE \/pets\/42/);
    expect(e.details!["would_run"]).toMatchObject({ method: "DELETE", resolved_path: "/pets/42", args: { petId: 42 } });
    expect(e.next_steps[0]).toEqual(
      expect.objectContaining({ tool: "delete_pet", params: { petId: 42, _confirm: true } }),
    );
    // The confirmed call passes preparation.
    const step = e.next_steps[0] as { params: Record<string, unknown> };
    const r = prepareArguments(deletePet, step.params, validatorFor(deletePet));
    expect(r.ok && r.confirmed).toBe(true);
  });
});

describe("parseRetryAfter", () => {
  it.each([
    ["12", 12000],
    ["0", 0],
    ["1.5", 1500],
    ["Wed, 01 Jan 2025 00:00:30 GMT", 30000],
    ["Tue, 31 Dec 2024 23:00:00 GMT", 0],
    ["soon", undefined],
    [undefined, undefined],
  ])("%s -> %s", (value, ms) => expect(parseRetryAfter(value, NOW)).toBe(ms));
});

describe("upstreamError", () => {
  it("401 names the env var, never the value", () => {
    const env = { PETSTORE_API_KEY: "sk-live-SECRET123" };
    const e = upstreamError(
      getPet,
      api,
      { status: 401, headers: {}, body: { message: "bad key sk-live-SECRET123" } },
      { petId: 1 },
      NOW,
      env,
    );
    expect(e.code).toBe("UPSTREAM_UNAUTHORIZED");
    expect(e.message).toContain("PETSTORE_API_KEY");
    expect(e.message).not.toContain("PETSTORE_TOKEN"); // not this operation's scheme
    const rendered = JSON.stringify(errorResult(e));
    expect(rendered).not.toContain("SECRET123");
    expect(rendered).toContain("[redacted PETSTORE_API_KEY]");
  });

  it.each([
    [403, "UPSTREAM_FORBIDDEN"],
    [404, "UPSTREAM_NOT_FOUND"],
    [409, "UPSTREAM_CONFLICT"],
    [400, "UPSTREAM_VALIDATION"],
    [422, "UPSTREAM_VALIDATION"],
    [429, "RATE_LIMITED"],
    [500, "UPSTREAM_UNAVAILABLE"],
    [503, "UPSTREAM_UNAVAILABLE"],
    [418, "UPSTREAM_ERROR"],
  ])("%s -> %s", (status, code) => {
    expect(upstreamError(getPet, api, { status, headers: {}, body: "x" }, { petId: 1 }, NOW).code).toBe(code);
  });

  it("404 points to the list tool", () => {
    const e = upstreamError(getPet, api, { status: 404, headers: {}, body: null }, { petId: 99 }, NOW);
    expect(e.message).toMatch(/petId=99/);
    expect(e.next_steps[0]).toMatchObject({ tool: "find_pets" });
    expect(e.fallback_tool).toBe("find_pets");
  });

  it("400/422 carry the trimmed upstream body and the schema hint", () => {
    const e = upstreamError(
      addPet,
      api,
      { status: 422, headers: {}, body: { error: "name taken", pad: "y".repeat(5000) } },
      { name: "rex" },
      NOW,
    );
    const body = e.details!["upstream_body"] as string;
    expect(body).toContain("name taken");
    expect(body.length).toBeLessThan(1600);
    expect(e.schema_hint_level).toBe("typed");
    expect(e.valid_example).toBeDefined();
  });

  it("429 uses Retry-After seconds or HTTP date", () => {
    expect(
      upstreamError(findPets, api, { status: 429, headers: { "Retry-After": "7" } }, { status: "sold" }, NOW)
        .retry_after_ms,
    ).toBe(7000);
    const e = upstreamError(
      findPets,
      api,
      { status: 429, headers: new Headers({ "retry-after": "Wed, 01 Jan 2025 00:01:00 GMT" }) },
      { status: "sold" },
      NOW,
    );
    expect(e.retry_after_ms).toBe(60000);
    expect(e.next_steps[0]).toMatchObject({ tool: "find_pets", params: { status: "sold" } });
    expect(upstreamError(findPets, api, { status: 429, headers: {} }, {}, NOW).retry_after_ms).toBe(2000);
  });

  it("5xx gives a retry plan that respects idempotency", () => {
    const get = upstreamError(findPets, api, { status: 503, headers: { "retry-after": "3" } }, {}, NOW);
    expect(get.retry_after_ms).toBe(3000);
    expect(get.recovery_actions![0]).toMatch(/retry after 3 s/);
    const post = upstreamError(addPet, api, { status: 502, headers: {} }, { name: "rex" }, NOW);
    expect(post.recovery_actions![0]).toMatch(/check with find_pets/);
  });

  it("timeout and network failures", () => {
    const t = upstreamError(
      findPets,
      api,
      { failure: "timeout", timeout_ms: 5000 },
      { status: "sold", limit: 100 },
      NOW,
    );
    expect(t.code).toBe("TIMEOUT");
    expect(t.message).toMatch(/PETSTORE_TIMEOUT_MS/);
    expect(t.next_steps[0]).toMatchObject({ params: { status: "sold", limit: 50 } });
    const n = upstreamError(findPets, api, { failure: "network", message: "ECONNREFUSED" }, {}, NOW);
    expect(n.code).toBe("UPSTREAM_UNREACHABLE");
    expect(n.message).toMatch(/PETSTORE_BASE_URL/);
  });
});

describe("errorResult", () => {
  it("renders markdown with issues, corrected call, schema and example, and structured error", () => {
    const r = prepareArguments(findPets, { status: "availble", limit: "50" }, validatorFor(findPets));
    if (r.ok) throw new Error("expected failure");
    const result = errorResult(r.error);
    expect(result.isError).toBe(true);
    // Argument errors are named by their primary issue.
    expect(result.structuredContent).toEqual({ error: { ...r.error, code: argumentErrorCode(r.error.issues) } });
    const text = (result.content[0] as { text: string }).text;
    expect(text).toMatch(/## Issues found \(2\)/);
    expect(text).toMatch(/Fix: Send 50 as a number/);
    expect(text).toMatch(/## Corrected call/);
    expect(text).toMatch(/"status": "available"/);
    expect(text).toMatch(/## Tool schema \(typed\)/);
    expect(text).toMatch(/## Valid example/);
    expect(text).toMatch(/## Next steps/);
  });
});

describe("argumentErrorCode", () => {
  const issue = (code: string) =>
    ({ field: "x", code, problem: "p", expected: "e", fix: "f" }) as Parameters<typeof argumentErrorCode>[0][number];
  it.each([
    [["INVALID_TYPE"], "INVALID_TYPE"],
    [["OUT_OF_RANGE", "MISSING_REQUIRED"], "MISSING_REQUIRED"],
    [["INVALID_ENUM", "UNKNOWN_PARAMETER"], "UNKNOWN_PARAMETER"],
    [["INVALID_PATTERN", "INVALID_LENGTH"], "INVALID_LENGTH"],
    [[], "INVALID_ARGUMENTS"],
  ])("%j → %s", (codes, expected) => {
    expect(argumentErrorCode(codes.map(issue))).toBe(expected);
  });
});
