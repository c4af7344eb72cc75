/**
 * Stage 2 — normalise: every input becomes either an OpenAPI 3.1 document or
 * a JSON Schema document. Swagger 2.0 and OpenAPI 3.0 are upgraded with
 * @scalar/openapi-upgrader (what @scalar/openapi-parser's `upgrade` calls,
 * without loading the whole parser: 20 ms instead of ~180 ms per run), so
 * later stages deal with one dialect only.
 */
import { isPlainObject } from "../../templates/server/src/runtime/shared/json.js";
import { upgrade } from "@scalar/openapi-upgrader";
import { GeneratorError } from "../diagnostics.js";
import type { InputKind } from "../model/ir.js";
import { parseSpecText, takeParsedJsonTree, type LoadedSpec } from "../load/index.js";
import { upgradeInPlace } from "./upgrade-in-place.js";

export type SpecObject = Record<string, unknown>;

export interface NormalisedSpec {
  kind: InputKind;
  /** The version the user's document declared, e.g. `2.0`, `3.0.3`, `3.1.0`, `json-schema`. */
  sourceVersion: string;
  document: SpecObject;
  location: string;
  source: string;
}

export function normaliseSpec(loaded: LoadedSpec): NormalisedSpec {
  const { document, source, location } = loaded;
  if (!isObject(document)) {
    throw new GeneratorError(
      `${source}#`,
      "the document is not an object",
      "pass an OpenAPI (2.0, 3.0, 3.1) or JSON Schema document",
    );
  }
  const base = { source, location };
  if (typeof document.swagger === "string" || typeof document.swagger === "number") {
    const version = String(document.swagger);
    if (!version.startsWith("2")) {
      throw new GeneratorError(
        `${source}#/swagger`,
        `Swagger version ${version} is not supported`,
        "use Swagger 2.0 or OpenAPI 3.x",
      );
    }
    return { ...base, kind: "openapi", sourceVersion: version, document: upgradeToOpenApi31(document, source) };
  }
  if (typeof document.openapi === "string") {
    const version = document.openapi;
    if (version.startsWith("3.0")) {
      return { ...base, kind: "openapi", sourceVersion: version, document: upgradeThreeZero(loaded) };
    }
    if (version.startsWith("3.1") || version.startsWith("3.2")) {
      return { ...base, kind: "openapi", sourceVersion: version, document };
    }
    throw new GeneratorError(
      `${source}#/openapi`,
      `OpenAPI version ${version} is not supported`,
      "use OpenAPI 3.0 or 3.1, or Swagger 2.0",
    );
  }
  if (looksLikeJsonSchema(document)) {
    return { ...base, kind: "jsonschema", sourceVersion: "json-schema", document };
  }
  throw new GeneratorError(
    `${source}#`,
    "not an OpenAPI or JSON Schema document (no `openapi`, `swagger`, `$defs`, `definitions` or titled schema at the top level)",
    "pass an OpenAPI 2.0/3.0/3.1 document, or a JSON Schema whose `$defs`/`definitions` describe tool inputs",
  );
}

/**
 * A 3.0 document this run parsed from JSON is upgraded in place (the same
 * result as the library's copy, without copying 13 MB); anything else by the library.
 */
function upgradeThreeZero(loaded: LoadedSpec): SpecObject {
  const document = loaded.document as SpecObject;
  if (!takeParsedJsonTree(document)) return upgradeToOpenApi31(document, loaded.source);
  try {
    return upgradeInPlace(document);
  } catch {
    // (NotUpgradableInPlace, or anything unforeseen.) The walk changed part of the document before it
    // stopped: the library upgrades a fresh parse, as a run without the in-place walk would.
    return upgradeToOpenApi31(parseSpecText(loaded.text, loaded.source) as SpecObject, loaded.source);
  }
}

function upgradeToOpenApi31(document: SpecObject, source: string): SpecObject {
  try {
    const specification: unknown = upgrade(document, "3.1");
    if (!isObject(specification)) throw new Error("the upgrade returned no document");
    return specification;
  } catch (error) {
    throw new GeneratorError(
      `${source}#`,
      `could not be upgraded to OpenAPI 3.1 (${(error as Error).message})`,
      "check that the document is valid Swagger 2.0 / OpenAPI 3.0",
    );
  }
}

function looksLikeJsonSchema(document: SpecObject): boolean {
  return (
    typeof document.$schema === "string" ||
    isObject(document.$defs) ||
    isObject(document.definitions) ||
    (typeof document.title === "string" && (document.type === "object" || isObject(document.properties)))
  );
}

/** A JSON object (not null, not an array); the one definition is shared with the runtime. */
export const isObject: (value: unknown) => value is SpecObject = isPlainObject;
