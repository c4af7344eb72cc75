/**
 * What a generated project records of the options it was made with
 * (`.guided-mcp/manifest.json`), for `regenerate` to replay.
 */
import { isAbsolute, relative, resolve } from "node:path";
import { GeneratorError } from "./diagnostics.js";
import { readManifest } from "./write/index.js";
import type { ShipTarget } from "./emit/ship.js";
import { isUrl } from "./load/index.js";
import type { ToolMode } from "../templates/server/src/runtime/shared/tool-data.js";
import { isEmptyFilter, type ToolFilter } from "../templates/server/src/runtime/shared/filter.js";

/** The generation options a project records (generate.ts's `GenerateOptions` has these and more). */
export interface RecordableOptions {
  name?: string;
  templatesDir?: string;
  allowRemoteRefs?: boolean;
  allowExternalRefs?: boolean;
  filter?: ToolFilter;
  toolMode?: ToolMode;
  ship?: ShipTarget[];
  mcpName?: string;
  forwardAuthorization?: boolean;
}

/** Local paths are recorded relative to the project, so a moved checkout still regenerates. */
export function recordedSource(from: string, outDir: string): string {
  return isUrl(from) ? from : relative(outDir, resolve(from)) || ".";
}

/** The options a later `regenerate` replays. */
export function recordedOptions(options: RecordableOptions, outDir: string): Record<string, unknown> {
  return {
    ...(options.name ? { name: options.name } : {}),
    ...(options.templatesDir ? { templates: relative(outDir, resolve(options.templatesDir)) } : {}),
    ...(options.allowRemoteRefs ? { allowRemoteRefs: true } : {}),
    ...(options.allowExternalRefs ? { allowExternalRefs: true } : {}),
    ...(options.filter && !isEmptyFilter(options.filter) ? { filter: options.filter } : {}),
    ...(options.toolMode ? { toolMode: options.toolMode } : {}),
    ...(options.ship ? { ship: options.ship } : {}),
    ...(options.mcpName ? { mcpName: options.mcpName } : {}),
    ...(options.forwardAuthorization ? { forwardAuthorization: true } : {}),
  };
}

/** Reads the options a generated project was made with, for `regenerate`. */
export async function regenerationOptions(
  projectDir: string,
): Promise<RecordableOptions & { from: string; out: string }> {
  const dir = resolve(projectDir);
  const manifest = await readManifest(dir);
  if (!manifest)
    throw new GeneratorError(
      dir,
      "is not a generated project (no .guided-mcp/manifest.json)",
      "run it inside a project made by create-guided-mcp, or pass its folder",
    );
  // The manifest names the templates folder `templates` (see recordedOptions).
  const recorded = manifest.options as Omit<RecordableOptions, "templatesDir"> & { templates?: string };
  const from =
    isUrl(manifest.spec.source) || isAbsolute(manifest.spec.source)
      ? manifest.spec.source
      : resolve(dir, manifest.spec.source);
  return {
    from,
    out: dir,
    ...(recorded.name ? { name: recorded.name } : {}),
    ...(recorded.templates ? { templatesDir: resolve(dir, recorded.templates) } : {}),
    ...(recorded.allowRemoteRefs ? { allowRemoteRefs: true } : {}),
    ...(recorded.allowExternalRefs ? { allowExternalRefs: true } : {}),
    ...(recorded.filter ? { filter: recorded.filter } : {}),
    ...(recorded.toolMode ? { toolMode: recorded.toolMode } : {}),
    ...(recorded.ship ? { ship: recorded.ship } : {}),
    ...(recorded.mcpName ? { mcpName: recorded.mcpName } : {}),
    ...(recorded.forwardAuthorization ? { forwardAuthorization: true } : {}),
  };
}
