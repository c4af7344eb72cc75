/** Re-running the generator and customising templates, through the real CLI. */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { REPO_ROOT } from "../helpers/project.js";
import { SAMPLES } from "../helpers/pipeline.js";

const cli = (args: string[]) => runCli(args, { quiet: true });

function petstoreCopy(): { dir: string; spec: string; out: string } {
  const dir = mkdtempSync(join(tmpdir(), "cgm-regen-"));
  const spec = join(dir, "petstore.yaml");
  copyFileSync(join(SAMPLES, "petstore.yaml"), spec);
  return { dir, spec, out: join(dir, "petstore-mcp") };
}

function editSpec(spec: string, edit: (text: string) => string): void {
  writeFileSync(spec, edit(readFileSync(spec, "utf8")));
}

describe("regeneration", () => {
  it("reports changes with breaking labels, checks staleness, and appends a changelog", () => {
    const { spec, out } = petstoreCopy();
    expect(cli(["--from", spec, "--out", out]).code).toBe(0);
    expect(cli(["regenerate", out, "--check"]).code).toBe(0);

    editSpec(spec, (text) =>
      text
        .replace("operationId: getOwner", "operationId: fetchOwner") // rename
        .replace(/  \/search:\n[\s\S]*?(?=components:)/, "") // remove searchPets
        .replace(
          "      operationId: getOrder\n      summary: Get an order, traced by a correlation id\n      tags: [orders]\n      parameters:\n",
          "      operationId: getOrder\n      summary: Get an order, traced by a correlation id\n      tags: [orders]\n      parameters:\n        - name: tenant\n          in: query\n          required: true\n          schema: { type: string }\n",
        )
        .replace(
          "paths:\n",
          'paths:\n  /health:\n    get:\n      operationId: getHealth\n      responses:\n        "200": { description: ok }\n',
        ),
    );

    const check = cli(["regenerate", out, "--check"]);
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(/is stale/);

    const dry = cli(["--from", spec, "--out", out, "--dry-run"]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain("- BREAKING removed: `search_pets`");
    expect(dry.stdout).toContain("- BREAKING renamed: `get_owner` → `fetch_owner`");
    expect(dry.stdout).toContain("BREAKING: new required parameter `tenant`");
    expect(dry.stdout).toContain("- added: `get_health`");
    expect(existsSync(join(out, "CHANGELOG.md"))).toBe(false);

    const regenerated = cli(["regenerate", out]);
    expect(regenerated.code).toBe(0);
    expect(regenerated.stdout).toMatch(/Regenerated 9 tools/);
    const changelog = readFileSync(join(out, "CHANGELOG.md"), "utf8");
    expect(changelog).toContain("- BREAKING removed: `search_pets`");
    expect(changelog).toContain("4 change(s), 3 breaking.");
    expect(cli(["regenerate", out, "--check"]).code).toBe(0);
  });
});

describe("templates", () => {
  it("ejects, and an edited override plus a custom helper change the output", () => {
    const { dir, spec, out } = petstoreCopy();
    const templates = join(dir, "my-templates");
    expect(cli(["templates", "eject", "--out", templates]).code).toBe(0);
    expect(existsSync(join(templates, "server", "README.md.hbs"))).toBe(true);
    expect(cli(["templates", "eject", "--out", templates]).code).toBe(1); // never overwrites

    writeFileSync(
      join(templates, "server", "README.md.hbs"),
      "# {{shout api.title}}\n\nOur own README with {{toolCount}} tools.\n",
    );
    writeFileSync(
      join(templates, "helpers.mjs"),
      "export default { shout: (value) => String(value).toUpperCase() + '!' };\n",
    );
    expect(cli(["--from", spec, "--out", out, "--templates", templates]).code).toBe(0);
    expect(readFileSync(join(out, "README.md"), "utf8")).toBe("# PETSTORE!\n\nOur own README with 9 tools.\n");
    // Files not overridden come from the defaults.
    expect(readFileSync(join(out, "src", "runtime", "upstream", "request.ts"), "utf8")).toContain(
      readFileSync(join(REPO_ROOT, "templates", "server", "src", "runtime", "upstream", "request.ts"), "utf8"),
    );
    // The recorded template folder is reused by regenerate.
    expect(cli(["regenerate", out, "--check"]).code).toBe(0);
  });

  it("overrides a single file from a sparse template folder", () => {
    const { dir, spec, out } = petstoreCopy();
    const templates = join(dir, "sparse");
    mkdirSync(join(templates, "server"), { recursive: true });
    writeFileSync(join(templates, "server", "_gitignore"), "custom-ignore/\n");
    expect(cli(["--from", spec, "--out", out, "--templates", templates]).code).toBe(0);
    expect(readFileSync(join(out, ".gitignore"), "utf8")).toBe("custom-ignore/\n");
    expect(existsSync(join(out, "README.md"))).toBe(true);
  });

  it("names the template file and line of a template error", () => {
    const { dir, spec, out } = petstoreCopy();
    const templates = join(dir, "broken");
    mkdirSync(join(templates, "server"), { recursive: true });
    writeFileSync(join(templates, "server", "README.md.hbs"), "line one\nline two {{#if}}\n");
    const result = cli(["--from", spec, "--out", out, "--templates", templates]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /broken\/server\/README\.md\.hbs:\d+: template error: Parse error .*Expecting .* — fix the template/,
    );
    expect(existsSync(out)).toBe(false);
  });

  it("parses TypeScript from an overridden template and names it when it does not parse", () => {
    // Static default files are not parsed at generation time; a user's override always is.
    const { dir, spec, out } = petstoreCopy();
    const templates = join(dir, "broken-ts");
    mkdirSync(join(templates, "server", "src"), { recursive: true });
    writeFileSync(join(templates, "server", "src", "index.ts"), "export const broken = (;\n");
    const result = cli(["--from", spec, "--out", out, "--templates", templates]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /broken-ts\/server\/src\/index\.ts \(emitted src\/index\.ts:\d+:\d+\): emitted TypeScript does not parse: .* — fix the template/,
    );
    expect(existsSync(out)).toBe(false);
  });
});
