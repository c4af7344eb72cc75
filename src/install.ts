/**
 * `--install`: install and build the new project with the package manager
 * that launched us (`npm create`, `pnpm create`, `yarn create`, `bun create`
 * all set npm_config_user_agent), so the lockfile matches the user's tooling.
 */
import { spawnSync } from "node:child_process";
import { GeneratorError } from "./diagnostics.js";

export type PackageManager = "npm" | "pnpm" | "yarn" | "bun";

/** `pnpm/9.1.0 npm/? node/v20.19.0 linux x64` → pnpm; anything unknown → npm. */
export function detectPackageManager(userAgent: string | undefined): PackageManager {
  const name = (userAgent ?? "").split("/")[0]?.trim();
  return name === "pnpm" || name === "yarn" || name === "bun" ? name : "npm";
}

export function installCommands(manager: PackageManager): string[][] {
  const install = manager === "npm" ? ["npm", "install", "--no-audit", "--no-fund"] : [manager, "install"];
  return [install, [manager, "run", "build"]];
}

/**
 * Runs install then build in `dir`. Their output goes to stderr, so stdout keeps only our summary.
 * Fails naming the command that broke and how to retry it.
 */
export function installAndBuild(dir: string, manager: PackageManager): void {
  for (const command of installCommands(manager)) {
    const [program, ...args] = command as [string, ...string[]];
    const run = spawnSync(program, args, { cwd: dir, stdio: ["ignore", 2, 2], shell: process.platform === "win32" });
    if (run.error || run.status !== 0) {
      const why = run.error ? run.error.message : `exit code ${run.status}`;
      throw new GeneratorError(
        dir,
        `\`${command.join(" ")}\` failed (${why}); the project itself was generated`,
        `fix the cause shown above, then run \`${command.join(" ")}\` in ${dir}`,
      );
    }
  }
}
