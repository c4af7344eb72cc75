/**
 * Stage 3 — dereference: resolve internal, external-file and (opt-in) remote
 * `$ref`s with @apidevtools/json-schema-ref-parser. Circular references stay
 * as object cycles here; the model stage bounds them when it copies schemas out.
 */
import { readFile } from "node:fs/promises";
import { dirname, relative, isAbsolute } from "node:path";
import { fileURLToPath } from "node:url";
import type { FileInfo } from "@apidevtools/json-schema-ref-parser";
import { GeneratorError } from "../diagnostics.js";
import type { NormalisedSpec, SpecObject } from "../normalise/index.js";
import { dereferenceInternal } from "./internal.js";

export interface DereferenceOptions {
  /** Allow `$ref` to http(s) URLs. Off by default: a spec must not make the generator fetch arbitrary hosts. */
  allowRemoteRefs?: boolean;
  /** Allow `$ref` to files outside the spec's own folder. */
  allowExternalFiles?: boolean;
}

export interface DereferencedSpec extends NormalisedSpec {
  /** True when some `$ref` pointed back at an ancestor. */
  circular: boolean;
}

export async function dereferenceSpec(
  spec: NormalisedSpec,
  options: DereferenceOptions = {},
): Promise<DereferencedSpec> {
  // Most documents need none of the parser's generality; it then gives exactly this result (see internal.ts).
  const simple = dereferenceInternal(spec.document);
  return simple ? { ...spec, circular: simple.circular } : dereferenceWithParser(spec, options);
}

/** The `$ref` parser's dereference, for every document (exported so tests can compare the two ways). */
export async function dereferenceWithParser(
  spec: NormalisedSpec,
  options: DereferenceOptions = {},
): Promise<DereferencedSpec> {
  const root = spec.location.startsWith("file:") ? dirname(fileURLToPath(spec.location)) : undefined;
  // Loaded on first use: documents with plain internal references never need it.
  const { $RefParser } = await import("@apidevtools/json-schema-ref-parser");
  const parser = new $RefParser();
  // The ref parser wraps resolver errors in its own; keep ours to report them as they are.
  let refusal: GeneratorError | undefined;
  const refuse =
    <T>(read: () => Promise<T>) =>
    async (): Promise<T> => {
      try {
        return await read();
      } catch (error) {
        if (error instanceof GeneratorError) refusal ??= error;
        throw error;
      }
    };
  try {
    const document = (await parser.dereference(spec.location, spec.document, {
      mutateInputSchema: true,
      continueOnError: false,
      resolve: {
        // Looking for external refs is a second walk over the whole document inside the parser; skipped when there are none.
        external: hasExternalRef(spec.document),
        file: {
          order: 100,
          canRead: (file: FileInfo) => !/^https?:/i.test(file.url),
          read: (file: FileInfo) =>
            refuse(() => readLocalRef(file.url, root, options.allowExternalFiles ?? false, spec.source))(),
        },
        http: {
          order: 200,
          canRead: /^https?:/i,
          read: (file: FileInfo) =>
            refuse(() => readRemoteRef(file.url, options.allowRemoteRefs ?? false, spec.source))(),
        },
      },
      // No timeoutMs: the parser then reads the clock at every key it crawls (a fifth of its time on GitHub), and
      // its crawl visits each object once, so it ends; only remote reads can hang, and they have their own timeout.
      dereference: { circular: true, maxDepth: 400 },
    } as never)) as SpecObject;
    return { ...spec, document, circular: parser.$refs.circular };
  } catch (error) {
    if (refusal) throw refusal;
    if (error instanceof GeneratorError) throw error;
    throw new GeneratorError(
      refErrorWhere(error, spec.source),
      `a $ref could not be resolved: ${firstLine(error)}`,
      "check that the referenced file and JSON pointer exist",
    );
  }
}

/**
 * Whether some `$ref` string does not start with `#`: a reference to another
 * file or URL (or one that a `$id` resolves). Exact where a text search of the
 * spec would not be (escaped keys, YAML), and cheaper than the parser's own search.
 */
export function hasExternalRef(document: unknown): boolean {
  const seen = new Set<object>();
  const pending: unknown[] = [document];
  while (pending.length > 0) {
    const node = pending.pop();
    if (typeof node !== "object" || node === null || seen.has(node)) continue;
    seen.add(node);
    if (Array.isArray(node)) {
      for (const item of node) if (typeof item === "object") pending.push(item);
      continue;
    }
    const ref = (node as { $ref?: unknown }).$ref;
    if (typeof ref === "string" && ref[0] !== "#") return true;
    for (const key in node) {
      const value = (node as Record<string, unknown>)[key];
      if (typeof value === "object") pending.push(value);
    }
  }
  return false;
}

async function readLocalRef(
  url: string,
  root: string | undefined,
  allowOutside: boolean,
  source: string,
): Promise<Buffer> {
  const path = url.startsWith("file:") ? fileURLToPath(url) : url;
  if (root && !allowOutside) {
    const rel = relative(root, path);
    if (rel.startsWith("..") || isAbsolute(rel)) {
      throw new GeneratorError(
        source,
        `a $ref points outside the spec's folder (${path})`,
        "move the file next to the spec, or pass --allow-external-refs if you trust it",
      );
    }
  }
  try {
    return await readFile(path);
  } catch {
    throw new GeneratorError(
      source,
      `a $ref points to a file that cannot be read (${path})`,
      "check the $ref's file path, relative to the spec",
    );
  }
}

async function readRemoteRef(url: string, allowed: boolean, source: string): Promise<string> {
  if (!allowed) {
    throw new GeneratorError(
      source,
      `a $ref points to a remote URL (${url})`,
      "download it next to the spec, or pass --allow-remote-refs if you trust the host",
    );
  }
  const response = await fetch(url, { signal: AbortSignal.timeout(30_000) });
  if (!response.ok)
    throw new GeneratorError(source, `the remote $ref ${url} answered HTTP ${response.status}`, "check the URL");
  return response.text();
}

function refErrorWhere(error: unknown, source: string): string {
  const path = (error as { path?: unknown }).path;
  if (Array.isArray(path) && path.length > 0) return `${source}#/${path.map(String).join("/")}`;
  return source;
}

function firstLine(error: unknown): string {
  return String((error as Error).message ?? error).split("\n")[0] ?? "";
}
