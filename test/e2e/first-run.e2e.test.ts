/**
 * The first run as a person meets it: in a real pseudo-terminal the CLI asks
 * for the spec (refusing a missing file on the spot), the folder and the tool
 * mode, then generates. Without a person (CI, pipes, --yes, an AI agent) it
 * never asks, and fails with the usage error instead. `--install` leaves a
 * built project.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { SAMPLES } from "../helpers/pipeline.js";
import { HAS_SCRIPT, runCliInPty } from "../helpers/pty.js";

const scratch = () => mkdtempSync(join(tmpdir(), "cgm-first-"));
const ENTER = "\r";
const DOWN = "\u001b[B";
const BACKSPACE = "\u007f";

describe.skipIf(!HAS_SCRIPT)("first run in a terminal (pseudo-terminal via util-linux script)", () => {
  it("asks for the spec, the folder and the tool mode, then generates", async () => {
    const cwd = scratch();
    const session = runCliInPty(["--skip-install"], { cwd });
    await session.answer(/OpenAPI or JSON Schema document \(path or http\(s\) URL\)/, `missing.yaml${ENTER}`);
    await session.answer(
      /missing\.yaml does not exist/,
      `${BACKSPACE.repeat("missing.yaml".length)}${join(SAMPLES, "petstore.yaml")}${ENTER}`,
    );
    await session.answer(/Output folder/, ENTER);
    await session.waitFor(/Tool mode \(9 operations\)/);
    expect(session.screen()).toMatch(/per-operation \(recommended for this API's size/);
    // Choose the second option (discovery) to show the answer reaches the project.
    session.answer(/Tool mode/, `${DOWN}${ENTER}`);
    expect(await session.exit).toBe(0);
    const screen = session.screen();
    expect(screen).toMatch(/Read .*petstore\.yaml: 9 operations/);
    expect(screen).toMatch(/Generated 9 tools for Petstore in petstore-mcp/);
    expect(screen).toMatch(/README: petstore-mcp\/README\.md/);
    expect(screen).toMatch(/cd petstore-mcp && npm install && npm run build/);
    expect(screen).toMatch(/claude mcp add petstore-mcp .*-- node .*petstore-mcp\/dist\/index\.js/);
    const manifest = JSON.parse(readFileSync(join(cwd, "petstore-mcp", ".guided-mcp", "manifest.json"), "utf8"));
    expect(manifest.options.toolMode).toBe("discovery");
    expect(existsSync(join(cwd, "petstore-mcp", "node_modules"))).toBe(false); // --skip-install
  });

  it("recommends discovery for a large API", async () => {
    const cwd = scratch();
    const paths = Object.fromEntries(
      Array.from({ length: 60 }, (_, i) => [
        `/things${i}`,
        { get: { operationId: `getThing${i}`, responses: { "200": { description: "ok" } } } },
      ]),
    );
    writeFileSync(
      join(cwd, "big.json"),
      JSON.stringify({ openapi: "3.1.0", info: { title: "Big", version: "1" }, paths }),
    );
    const session = runCliInPty(["--skip-install", "--out", "gh"], { cwd });
    await session.answer(/path or http/, `big.json${ENTER}`);
    await session.waitFor(/Tool mode \(60 operations\)/);
    expect(session.screen()).toMatch(/discovery \(recommended for this API's size/);
    expect(session.screen()).not.toMatch(/Output folder/); // given on the command line
    session.answer(/Tool mode/, "\u0003"); // Ctrl-C cancels without writing
    expect(await session.exit).toBe(130);
    expect(existsSync(join(cwd, "gh"))).toBe(false);
  });

  for (const [why, args, env] of [
    ["CI=true", [], { CI: "true" }],
    ["--yes", ["--yes"], {}],
    ["an AI agent (CLAUDECODE=1)", [], { CLAUDECODE: "1" }],
    ["an AI agent (CURSOR_AGENT=1)", [], { CURSOR_AGENT: "1" }],
  ] as const) {
    it(`never prompts in a terminal with ${why}: the usage error instead`, async () => {
      const session = runCliInPty([...args], { cwd: scratch(), env: { ...env } });
      expect(await session.exit).toBe(2);
      expect(session.screen()).toMatch(/Missing required argument: from/);
      expect(session.screen()).not.toMatch(/OpenAPI or JSON Schema document \(/);
    });
  }
});

describe("first run without a terminal", () => {
  it("never prompts with piped stdin: exits 2 with the usage error", () => {
    const { code, stderr, stdout } = runCli([]);
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /Missing required argument: from\npass the API description as the first argument or with --from \(no prompts: not a terminal\)/,
    );
    expect(stdout).toBe("");
  });

  it("takes the spec as the first argument", () => {
    const cwd = scratch();
    const { code, stdout } = runCli([join(SAMPLES, "petstore.yaml")], { cwd, quiet: true });
    expect(code).toBe(0);
    expect(stdout).toMatch(/Generated 9 tools for Petstore in petstore-mcp/);
    expect(existsSync(join(cwd, "petstore-mcp", "data", "tools.json"))).toBe(true);
  });

  it("refuses the spec given twice, differently", () => {
    const { code, stderr } = runCli(["a.yaml", "--from", "b.yaml"]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/the spec is given twice/);
  });

  it("--install installs with the launching package manager and leaves a built project", () => {
    const cwd = scratch();
    // npm's own cache already holds the generated project's dependencies (the shared test install filled it).
    const run = runCli([join(SAMPLES, "petstore.yaml"), "--install"], {
      cwd,
      quiet: true,
      env: { npm_config_user_agent: "npm/10.8.2 node/v20.19.0 linux x64", npm_config_prefer_offline: "true" },
    });
    expect(run.stderr).toMatch(/Installing dependencies and building with npm/);
    expect(run.code).toBe(0);
    expect(existsSync(join(cwd, "petstore-mcp", "node_modules", "@modelcontextprotocol", "server"))).toBe(true);
    expect(existsSync(join(cwd, "petstore-mcp", "dist", "index.js"))).toBe(true);
    expect(run.stdout).toMatch(/Installed and built with npm\. Next, connect Claude Code:/);
  });
});
