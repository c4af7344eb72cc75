import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadRuntimeConfig } from "../../templates/server/src/runtime/config/config.js";
import { SETTINGS, type SettingDefinition } from "../../templates/server/src/runtime/config/settings.js";

const api = { name: "pets-mcp", envPrefix: "PETS", baseUrlEnv: "PETS_BASE_URL", timeoutMs: 30_000 };

function config(argv: string[], env: Record<string, string> = {}) {
  const result = loadRuntimeConfig(argv, env, api);
  if (result.kind !== "config") throw new Error("expected a config");
  return result.config;
}

describe("loadRuntimeConfig", () => {
  it("defaults to stdio on loopback with the data file's timeout", () => {
    expect(config([])).toEqual({
      transport: "stdio",
      port: 3000,
      host: "127.0.0.1",
      timeoutMs: 30_000,
      maxResponseBytes: 10 * 1024 * 1024,
      responseBudgetChars: 20_000,
      confirmDestructive: true,
      waitTimeoutMs: 60_000,
      maxArgumentBytes: 1024 * 1024,
      retries: 2,
      retryMaxDelayMs: 5000,
      circuitThreshold: 5,
      circuitCooldownMs: 30_000,
    });
  });

  it("resolves the hardening settings once, from the same table", () => {
    const env = {
      PETS_MAX_ARGUMENT_BYTES: "2000",
      PETS_RETRIES: "0",
      PETS_RETRY_MAX_DELAY_MS: "100",
      PETS_CIRCUIT_THRESHOLD: "3",
      PETS_CIRCUIT_COOLDOWN_MS: "1500",
      PETS_AUDIT_LOG: " /tmp/audit.jsonl ",
    };
    expect(config([], env)).toMatchObject({
      maxArgumentBytes: 2000,
      retries: 0,
      retryMaxDelayMs: 100,
      circuitThreshold: 3,
      circuitCooldownMs: 1500,
      auditLog: "/tmp/audit.jsonl",
    });
    expect(() => config([], { PETS_RETRIES: "11" })).toThrowError(/PETS_RETRIES must be an integer from 0 to 10/);
  });

  it("reads the response budget and the destructive-confirmation switch", () => {
    expect(config([], { PETS_RESPONSE_BUDGET_CHARS: "5000", PETS_CONFIRM_DESTRUCTIVE: "false" })).toMatchObject({
      responseBudgetChars: 5000,
      confirmDestructive: false,
    });
    expect(config(["--response-budget-chars", "800"], { PETS_RESPONSE_BUDGET_CHARS: "5000" })).toMatchObject({
      responseBudgetChars: 800,
    });
    expect(config(["--no-confirm"], { PETS_CONFIRM_DESTRUCTIVE: "true" })).toMatchObject({ confirmDestructive: false });
    expect(config([], { PETS_CONFIRM_DESTRUCTIVE: "1" })).toMatchObject({ confirmDestructive: true });
  });

  it("reads <PREFIX>_* env vars and lets flags win over them", () => {
    const env = { PETS_TRANSPORT: "http", PETS_PORT: "8080", PETS_TIMEOUT_MS: "500", PETS_HOST: "0.0.0.0" };
    expect(config([], env)).toMatchObject({ transport: "http", port: 8080, timeoutMs: 500, host: "0.0.0.0" });
    expect(config(["--transport", "stdio", "--port=9000", "--timeout-ms", "42"], env)).toMatchObject({
      transport: "stdio",
      port: 9000,
      timeoutMs: 42,
    });
  });

  it.each([
    [["--transport", "websocket"], {}, /--transport must be "stdio" or "http"/],
    [[], { PETS_TRANSPORT: "sse" }, /PETS_TRANSPORT must be/],
    [["--port", "abc"], {}, /--port must be an integer/],
    [["--port", "70000"], {}, /--port must be an integer from 0 to 65535/],
    [[], { PETS_TIMEOUT_MS: "-5" }, /PETS_TIMEOUT_MS must be an integer/],
    [["--verbose"], {}, /Unknown option '--verbose'[\s\S]*Usage: pets-mcp/],
    [["extra"], {}, /Unexpected argument/],
    [[], { PETS_CONFIRM_DESTRUCTIVE: "maybe" }, /PETS_CONFIRM_DESTRUCTIVE must be true or false/],
    [["--response-budget-chars", "10"], {}, /--response-budget-chars must be an integer from 500/],
  ])("rejects %j %j with a clear message", (argv, env, message) => {
    expect(() => loadRuntimeConfig(argv, env, api)).toThrowError(ConfigError);
    expect(() => loadRuntimeConfig(argv, env, api)).toThrowError(message);
  });

  it("answers --help with usage naming the env vars", () => {
    const result = loadRuntimeConfig(["--help"], {}, api);
    expect(result.kind).toBe("help");
    expect(result.kind === "help" && result.text).toContain("PETS_TIMEOUT_MS");
    expect(result.kind === "help" && result.text).toContain("PETS_RESPONSE_BUDGET_CHARS");
    expect(result.kind === "help" && result.text).toContain("--no-confirm");
  });

  it("--help names every setting of the table, its flag and its default", () => {
    const result = loadRuntimeConfig(["--help"], {}, api);
    const text = result.kind === "help" ? result.text : "";
    for (const setting of Object.values(SETTINGS) as SettingDefinition[]) {
      expect(text).toContain(`PETS_${setting.env}`);
      if (setting.flag) expect(text).toContain(`--${setting.flag}`);
    }
    expect(text).toMatch(/--port N +HTTP port; default 3000, range 0–65535/);
    expect(text).toMatch(/--timeout-ms N +.*default 30000/);
  });

  it("every flag the table names is accepted, and nothing else", () => {
    for (const setting of Object.values(SETTINGS) as SettingDefinition[]) {
      if (!setting.flag) continue;
      const value =
        setting.kind === "integer" ? `=${setting.min}` : setting.kind === "choice" ? `=${setting.choices[0]}` : "=x";
      const argv = [`--${setting.flag}${setting.kind === "boolean" ? "" : value}`];
      expect(() => loadRuntimeConfig(argv, {}, api), setting.flag).not.toThrow();
    }
    expect(() => loadRuntimeConfig(["--retries", "1"], {}, api)).toThrowError(/Unknown option '--retries'/);
  });
});

describe("configuration resolved once", () => {
  const server = join(import.meta.dirname, "..", "..", "templates", "server", "src");
  const sources = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory()
        ? sources(join(dir, entry.name))
        : /\.ts(\.hbs)?$/.test(entry.name)
          ? [join(dir, entry.name)]
          : [],
    );

  it("no runtime module reads process.env or process.argv; the entry reads each once", () => {
    const code = (file: string) => readFileSync(file, "utf8").replace(/^\s*(\/\/|\/?\*).*$/gm, "");
    const readers = sources(join(server, "runtime")).filter((file) => /process\.(env|argv)\b/.test(code(file)));
    expect(readers).toEqual([]);
    const entry = code(join(server, "index.ts"));
    expect(entry.match(/process\.env\b/g)).toHaveLength(1);
    expect(entry.match(/process\.argv\b/g)).toHaveLength(1);
  });
});
