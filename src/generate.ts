/**
 * The whole pipeline: load → normalise → dereference → model → guidance →
 * emit → write. Each stage is a function from one typed value to the next;
 * only load and write touch the outside world.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { dereferenceSpec } from "./dereference/index.js";
import { emitProject, type EmittedFile } from "./emit/index.js";
import { packageRoot } from "./emit/templates.js";
import { addGuidance } from "./guidance/index.js";
import { loadSpec, isUrl } from "./load/index.js";
import { buildModel } from "./model/index.js";
import type { Diagnostic, GuidedApiModel } from "./model/ir.js";
import { compileInputValidators } from "./model/validators.js";
import { normaliseSpec } from "./normalise/index.js";
import { hashContent, writeProject, type WriteResult } from "./write/index.js";

export interface GenerateOptions {
  from: string;
  out?: string;
  name?: string;
  force?: boolean;
  dryRun?: boolean;
  templatesDir?: string;
  allowRemoteRefs?: boolean;
  allowExternalRefs?: boolean;
  seed?: number;
  /** Receives progress lines (the CLI prints them to stderr). */
  onProgress?: (message: string) => void;
}

export interface GenerateResult {
  model: GuidedApiModel;
  files: EmittedFile[];
  write: WriteResult;
  diagnostics: Diagnostic[];
  timings: Record<string, number>;
}

export function generatorVersion(): string {
  const pkg = JSON.parse(readFileSync(resolve(packageRoot(), "package.json"), "utf8")) as { version: string };
  return pkg.version;
}

export async function generate(options: GenerateOptions): Promise<GenerateResult> {
  const progress = options.onProgress ?? (() => {});
  const timings: Record<string, number> = {};
  const timed = async <T>(stage: string, run: () => T | Promise<T>): Promise<T> => {
    const start = performance.now();
    const value = await run();
    timings[stage] = Math.round(performance.now() - start);
    progress(`${stage}: ${timings[stage]} ms`);
    return value;
  };

  const loaded = await timed("load", () => loadSpec(options.from));
  const normalised = await timed("normalise", () => normaliseSpec(loaded));
  const dereferenced = await timed("dereference", () =>
    dereferenceSpec(normalised, { allowRemoteRefs: options.allowRemoteRefs ?? false, allowExternalFiles: options.allowExternalRefs ?? false }),
  );
  const model = await timed("model", () => buildModel(dereferenced, { ...(options.name ? { name: options.name } : {}) }));
  progress(`model: ${model.tools.length} tools`);
  await timed("validate", () => compileInputValidators(model));
  const guided = await timed("guidance", () => addGuidance(model, { seed: options.seed ?? 1 }));
  const version = generatorVersion();
  const files = await timed("emit", () => emitProject(guided, { generatorVersion: version, ...(options.templatesDir ? { templatesDir: options.templatesDir } : {}) }));
  const outDir = resolve(options.out ?? `./${guided.api.name}`);
  const write = await timed("write", () =>
    writeProject(
      outDir,
      files,
      {
        generator: { name: "create-guided-mcp", version },
        spec: { source: isUrl(options.from) ? options.from : resolve(options.from), hash: hashContent(loaded.text) },
        options: recordedOptions(options),
      },
      { force: options.force ?? false, dryRun: options.dryRun ?? false },
    ),
  );
  return { model: guided, files, write, diagnostics: guided.diagnostics, timings };
}

/** The options a later `regenerate` replays. */
function recordedOptions(options: GenerateOptions): Record<string, unknown> {
  return {
    ...(options.name ? { name: options.name } : {}),
    ...(options.templatesDir ? { templates: resolve(options.templatesDir) } : {}),
    ...(options.allowRemoteRefs ? { allowRemoteRefs: true } : {}),
    ...(options.allowExternalRefs ? { allowExternalRefs: true } : {}),
  };
}
