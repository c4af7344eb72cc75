import { describe, expect, it } from "vitest";
import { checkSpecSource, whyNotInteractive } from "../../src/interactive.js";
import { detectPackageManager, installCommands } from "../../src/install.js";
import { SAMPLES } from "../helpers/pipeline.js";

const terminal = { yes: false, env: {}, stdinIsTTY: true, stdoutIsTTY: true };

describe("when prompts are allowed", () => {
  it("prompts only for a person at a terminal", () => {
    expect(whyNotInteractive(terminal)).toBeUndefined();
    expect(whyNotInteractive({ ...terminal, yes: true })).toBe("--yes");
    expect(whyNotInteractive({ ...terminal, stdinIsTTY: false })).toBe("not a terminal");
    expect(whyNotInteractive({ ...terminal, stdoutIsTTY: false })).toBe("not a terminal");
    expect(whyNotInteractive({ ...terminal, env: { CI: "true" } })).toBe("CI is set");
    expect(whyNotInteractive({ ...terminal, env: { CI: "false" } })).toBeUndefined();
    for (const name of ["CLAUDECODE", "CURSOR_AGENT", "GEMINI_CLI", "CODEX_SANDBOX", "AGENT"]) {
      expect(whyNotInteractive({ ...terminal, env: { [name]: "1" } })).toMatch(
        new RegExp(`^${name} is set \\(an AI agent`),
      );
    }
  });
});

describe("the spec prompt's check", () => {
  it("names a missing file or folder at once and accepts files and URLs", () => {
    expect(checkSpecSource("")).toMatch(/Enter a file path/);
    expect(checkSpecSource("nope.yaml")).toMatch(/nope\.yaml does not exist/);
    expect(checkSpecSource(SAMPLES)).toMatch(/is a folder/);
    expect(checkSpecSource(`${SAMPLES}petstore.yaml`)).toBeUndefined();
    expect(checkSpecSource("https://example.com/openapi.json")).toBeUndefined();
    expect(checkSpecSource("https://exa mple.com/")).toMatch(/not a valid URL/);
  });
});

describe("the package manager that launched us", () => {
  it("is read from npm_config_user_agent", () => {
    expect(detectPackageManager("pnpm/9.12.0 npm/? node/v20.19.0 linux x64")).toBe("pnpm");
    expect(detectPackageManager("yarn/4.5.0 npm/? node/v20.19.0 linux x64")).toBe("yarn");
    expect(detectPackageManager("bun/1.1.30 npm/? node/v22.6.0 linux x64")).toBe("bun");
    expect(detectPackageManager("npm/10.8.2 node/v20.19.0 linux x64 workspaces/false")).toBe("npm");
    expect(detectPackageManager(undefined)).toBe("npm");
    expect(installCommands("pnpm")).toEqual([
      ["pnpm", "install"],
      ["pnpm", "run", "build"],
    ]);
  });
});
