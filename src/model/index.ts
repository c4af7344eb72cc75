import type { DereferencedSpec } from "../dereference/index.js";
import type { ApiModel } from "./ir.js";
import { buildJsonSchemaModel } from "./jsonschema.js";
import { buildOpenApiModel, type ModelOptions } from "./openapi.js";

export type { ModelOptions } from "./openapi.js";

/** Stage 4 — model: any normalised input becomes the version-neutral `ApiModel`. */
export function buildModel(spec: DereferencedSpec, options: ModelOptions = {}): ApiModel {
  return spec.kind === "openapi" ? buildOpenApiModel(spec, options) : buildJsonSchemaModel(spec, options);
}
