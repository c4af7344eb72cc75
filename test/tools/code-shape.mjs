#!/usr/bin/env node
/**
 * Measures the shape of the code base: the longest functions, the files over
 * 400 lines and the import cycles (type-only imports included) across the
 * generator (src/) and the generated runtime (templates/server/src/).
 *
 *   node test/tools/code-shape.mjs          prints the report
 *   test/unit/code-shape.test.ts            keeps the limits checked
 *
 * Plain TypeScript compiler API: every function-like node is measured from its
 * first to its last line (nested functions count inside their parent too, the
 * way a reader sees them), and imports are resolved relative to the file.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const SOURCE_DIRS = ["src", "templates/server/src"];

function walk(dir) {
  const files = [];
  for (const entry of readdirSync(dir).sort()) {
    const full = join(dir, entry);
    if (statSync(full).isDirectory()) files.push(...walk(full));
    else if (/\.ts(\.hbs)?$/.test(entry) && !entry.endsWith(".d.ts")) files.push(full);
  }
  return files;
}

/** Every TypeScript source file (templates ending `.ts.hbs` included), as paths relative to the repo root. */
export function sourceFiles(root = ROOT) {
  return SOURCE_DIRS.flatMap((dir) => walk(join(root, dir))).map((file) => relative(root, file).split(sep).join("/"));
}

function parse(root, file) {
  const text = readFileSync(join(root, file), "utf8");
  return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
}

function functionName(node) {
  if (node.name && ts.isIdentifier(node.name)) return node.name.text;
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isPropertyAssignment(parent)) return parent.name.getText();
  if (ts.isConstructorDeclaration(node)) return "constructor";
  return "(anonymous)";
}

/** `{ file, name, lines }` for every function-like node. */
export function functionLengths(file, source) {
  const result = [];
  const visit = (node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      result.push({ file, name: functionName(node), lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return result;
}

/** Relative module specifiers of every import/export (type-only ones included), resolved to repo paths. */
export function importsOf(root, file, source) {
  const targets = [];
  for (const statement of source.statements) {
    const specifier =
      (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) && statement.moduleSpecifier
        ? statement.moduleSpecifier.text
        : undefined;
    if (!specifier || !specifier.startsWith(".")) continue;
    const base = join(dirname(file), specifier).split(sep).join("/");
    const candidates = [
      base.replace(/\.js$/, ".ts"),
      `${base.replace(/\.js$/, ".ts")}.hbs`,
      `${base}.ts`,
      `${base}/index.ts`,
    ];
    const hit = candidates.find((candidate) => existsSync(join(root, candidate)));
    if (hit) targets.push(hit);
  }
  return targets;
}

/** Strongly connected components with more than one file (or a file importing itself), via Tarjan's algorithm. */
export function importCycles(graph) {
  let counter = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const cycles = [];
  const connect = (node) => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        connect(next);
        low.set(node, Math.min(low.get(node), low.get(next)));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node), index.get(next)));
    }
    if (low.get(node) === index.get(node)) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) cycles.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) connect(node);
  return cycles;
}

export function measure(root = ROOT) {
  const functions = [];
  const files = [];
  const graph = new Map();
  for (const file of sourceFiles(root)) {
    const source = parse(root, file);
    functions.push(...functionLengths(file, source));
    files.push({ file, lines: source.getLineAndCharacterOfPosition(source.getEnd()).line + 1 });
    graph.set(file, importsOf(root, file, source));
  }
  functions.sort((a, b) => b.lines - a.lines);
  files.sort((a, b) => b.lines - a.lines);
  return { functions, files, cycles: importCycles(graph), graph };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { functions, files, cycles } = measure();
  console.log("Longest functions:");
  for (const f of functions.slice(0, 15)) console.log(`  ${String(f.lines).padStart(4)}  ${f.file} ${f.name}`);
  console.log("Files over 400 lines:");
  for (const f of files.filter((f) => f.lines > 400)) console.log(`  ${String(f.lines).padStart(4)}  ${f.file}`);
  console.log(`Import cycles: ${cycles.length}`);
  for (const cycle of cycles) console.log(`  ${cycle.join(" <-> ")}`);
}
