import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { modelFrom } from "../helpers/pipeline.js";

async function apiWithLogo(logo: unknown) {
  const file = join(mkdtempSync(join(tmpdir(), "cgm-logo-")), "spec.json");
  writeFileSync(
    file,
    JSON.stringify({ openapi: "3.0.3", info: { title: "Logo", version: "1", "x-logo": logo }, paths: {} }),
  );
  return (await modelFrom(file)).api;
}

describe("info.x-logo", () => {
  it("becomes the server icon when it is an https or data: image URI", async () => {
    expect((await apiWithLogo({ url: "https://example.com/logo.png", altText: "Logo" })).icons).toEqual([
      { src: "https://example.com/logo.png" },
    ]);
    expect((await apiWithLogo({ url: "data:image/svg+xml;base64,PHN2Zy8+" })).icons).toEqual([
      { src: "data:image/svg+xml;base64,PHN2Zy8+" },
    ]);
  });

  it("is left out when it is relative, plain http, or not a logo object", async () => {
    for (const logo of [
      { url: "logo.png" },
      { url: "http://example.com/logo.png" },
      "https://example.com/logo.png",
      undefined,
    ]) {
      expect((await apiWithLogo(logo)).icons).toBeUndefined();
    }
  });
});
