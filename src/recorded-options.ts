/**
 * What a generated project records of the options it was made with
 * (`.guided-mcp/manifest.json`), for `regenerate` to replay.
 */
import { relative, resolve } from "node:path";
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
