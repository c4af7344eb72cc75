/** Generates a sample into a scratch folder and builds it, once per test file. */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generate, type GenerateOptions, type GenerateResult } from "../../src/generate.js";
import { buildProject, installDeps } from "./project.js";

export interface BuiltProject {
  dir: string;
  result: GenerateResult;
}

export async function generateAndBuild(from: string, options: Partial<GenerateOptions> = {}): Promise<BuiltProject> {
  const dir = join(mkdtempSync(join(tmpdir(), "cgm-e2e-")), "project");
  const result = await generate({ from, out: dir, ...options });
  await installDeps(dir);
  buildProject(dir);
  return { dir, result };
}
