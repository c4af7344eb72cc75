/** The model as emit reads it (see src/emit/index.ts): guided tools, or views of data/tools.json (./file-tools.ts). */
import type { ApiModel, GuidedApiModel, GuidedTool } from "../model/ir.js";

/**
 * What emit reads of a tool besides data/tools.json: the README's names, texts, categories and routes, the handler
 * bindings, and the test suite's sample of examples. A guided tool, or a view of data/tools.json (./file-tools.ts).
 */
export type EmitTool = Pick<
  GuidedTool,
  "name" | "title" | "description" | "category" | "operation" | "handler" | "guidance"
>;

/** A model as emit reads it beside data/tools.json (see `EmitTool`). */
export interface EmitModel extends Omit<GuidedApiModel, "tools"> {
  tools: readonly EmitTool[];
}

/** What the templates read of a model: its tools before guidance do (see `renderProjectFiles`). */
export interface RenderModel extends Omit<ApiModel, "tools"> {
  tools: ReadonlyArray<Omit<EmitTool, "guidance">>;
}
