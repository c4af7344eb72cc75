/**
 * The YAML parser, loaded at the first YAML document a run reads. Most large specs are JSON (JSON.parse reads
 * them), and a JSON run has no use for the parser's ≈ 60 modules: in the CLI bundle they are a script of their own
 * (dist/bin/yaml.js, see rolldown.config.mjs), so a JSON run neither evaluates them nor reads their compiled code
 * from the V8 code cache (after one YAML run, the parser's code doubled the cached data of the chunk that held it).
 */
import { createRequire } from "node:module";

type Yaml = typeof import("yaml");

/** What is required: the package here; the bundle's own script in the CLI bundle (rolldown.config.mjs rewrites it). */
const YAML_MODULE = "yaml";

let yaml: Yaml | undefined;

export function yamlParser(): Yaml {
  return (yaml ??= createRequire(import.meta.url)(YAML_MODULE) as Yaml);
}
