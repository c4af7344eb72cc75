import { describe, expect, it } from "vitest";
import { validationOnlySchema } from "../../src/model/output-schema.js";
import { createAjv } from "../../templates/server/src/runtime/shared/ajv.js";

const answer = {
  type: "object",
  title: "Repository",
  description: "A repository",
  required: ["id", "owner"],
  properties: {
    id: { type: "integer", description: "the id", examples: [1], default: 0 },
    description: { type: ["string", "null"], format: "repo.nwo", readOnly: true },
    created: { type: "integer", format: "unix-time" },
    url: { type: "string", format: "uri" },
    status: { enum: [{ description: "kept" }, "open"] },
    owner: {
      type: "object",
      properties: { login: { type: "string" }, plan: { type: "object", properties: { seats: { type: "integer" } } } },
    },
  },
};

describe("validationOnlySchema (the response schema as shipped)", () => {
  const light = validationOnlySchema(answer);

  it("drops annotations and unknown formats but keeps property names, enum values and known formats", () => {
    expect(light).toEqual({
      type: "object",
      required: ["id", "owner"],
      properties: {
        id: { type: "integer" },
        description: { type: ["string", "null"] },
        created: { type: "integer" },
        url: { type: "string", format: "uri" },
        status: { enum: [{ description: "kept" }, "open"] },
        owner: {
          type: "object",
          properties: { login: { type: "string" }, plan: { type: "object", properties: { seats: {} } } },
        },
      },
    });
  });

  it("accepts everything the full schema accepts and rejects what it rejects down to the depth kept", () => {
    const ajv = createAjv();
    const full = ajv.compile(answer);
    const shipped = ajv.compile(light);
    const good = { id: 1, owner: { login: "octo", plan: { seats: 2 } }, url: "https://example.com", created: 5 };
    const wrongTop = { id: "1", owner: { login: "octo" } };
    const wrongField = { id: 1, owner: { login: 7 } };
    const wrongDeep = { id: 1, owner: { login: "octo", plan: { seats: "two" } } };
    expect([full(good), shipped(good)]).toEqual([true, true]);
    expect([full(wrongTop), shipped(wrongTop)]).toEqual([false, false]);
    expect([full(wrongField), shipped(wrongField)]).toEqual([false, false]);
    // Past the depth kept the shipped schema is permissive, never stricter.
    expect([full(wrongDeep), shipped(wrongDeep)]).toEqual([false, true]);
  });
});
