import { dereferenceSpec, type DereferenceOptions } from "../../src/dereference/index.js";
import { loadSpec } from "../../src/load/index.js";
import { buildModel, type ModelOptions } from "../../src/model/index.js";
import type { ApiModel } from "../../src/model/ir.js";
import { normaliseSpec } from "../../src/normalise/index.js";

export const SAMPLES = new URL("../../samples/", import.meta.url).pathname;

/** Runs load → normalise → dereference → model, the stages before guidance. */
export async function modelFrom(source: string, options: ModelOptions & DereferenceOptions = {}): Promise<ApiModel> {
  const loaded = await loadSpec(source);
  const dereferenced = await dereferenceSpec(normaliseSpec(loaded), options);
  return buildModel(dereferenced, options);
}

export function toolNamed(model: ApiModel, name: string) {
  const tool = model.tools.find((candidate) => candidate.name === name);
  if (!tool) throw new Error(`no tool ${name} in ${model.tools.map((t) => t.name).join(", ")}`);
  return tool;
}
