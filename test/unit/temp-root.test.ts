import { tmpdir } from "node:os";
import { basename, dirname } from "node:path";
import { describe, expect, it } from "vitest";

describe("the test run's temporary folder", () => {
  it("is a folder of this run's own inside the system's, which the run removes when it ends", () => {
    expect(basename(tmpdir())).toMatch(/^cgm-test-run-/);
    expect(basename(dirname(tmpdir()))).not.toMatch(/^cgm-test-run-/);
  });
});
