/**
 * What the project checks read of the sources: each file's calls and imports, from the TypeScript parser
 * (not a text search, so a comment or a string that names a function is not a call, and a method
 * definition named like one is not either).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import ts from "typescript";

export const ROOT = resolve(import.meta.dir, "../..");
const SOURCE_FILE = /\.(ts|tsx|js|mjs|cjs)$/;

/**
 * The tools' modules, which the project checks hold to the one writer and the one transport: tools/ (the CLI,
 * the call layer, the deploy core and the bundles it packs, the parity tools, the Bun helper), the client, what
 * both sides share (common/) and the npm package (the Node helper).
 */
export const TOOLS = ["tools", "client", "common", "packaging"];

/** The source files under each path (a folder or a file), relative to the repository, node_modules left out. */
export function sourceFiles(paths: string[]): string[] {
  return paths.flatMap((path) => {
    const abs = join(ROOT, path);
    if (!existsSync(abs)) return [];
    if (SOURCE_FILE.test(path)) return [path];
    return readdirSync(abs, { recursive: true, encoding: "utf8" })
      .filter((f) => SOURCE_FILE.test(f) && !f.split("/").includes("node_modules") && !f.endsWith(".d.ts"))
      .map((f) => join(path, f));
  });
}

export interface Call {
  file: string;
  line: number;
  /** The callee as written: `fetch`, `Bun.write`, `fs.writeFileSync`, `globalThis.fetch`. */
  callee: string;
  /** Each argument's source text. */
  args: string[];
}

export interface Import {
  file: string;
  line: number;
  module: string;
  /** The names it binds: named imports by their exported name, `*` for a namespace, `default`. */
  names: string[];
}

/**
 * The repository's files, each parsed once per test process: the checks read the same tools' files for their
 * calls and for their imports, and test files sharing a worker share this.
 */
const parsed = new Map<string, ts.SourceFile>();

/** The file's syntax tree: of `text` when given (a sample), else of the repository's file. */
export function parse(file: string, text?: string): ts.SourceFile {
  if (text !== undefined) return ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  let source = parsed.get(file);
  if (!source) {
    source = ts.createSourceFile(file, readFileSync(join(ROOT, file), "utf8"), ts.ScriptTarget.Latest, true);
    parsed.set(file, source);
  }
  return source;
}

/** Every call expression of the file (`new X()` is not a call). */
export function callsIn(file: string, text?: string): Call[] {
  const source = parse(file, text);
  const calls: Call[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node)) {
      calls.push({
        file,
        line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1,
        callee: node.expression.getText(source).replace(/\s+/g, ""),
        args: node.arguments.map((a) => a.getText(source)),
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return calls;
}

/** Every static import and `require()` of the file. */
export function importsIn(file: string, text?: string): Import[] {
  const source = parse(file, text);
  const found: Import[] = [];
  const line = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const names: string[] = [];
      if (clause?.name) names.push("default");
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) names.push("*");
      if (bindings && ts.isNamedImports(bindings))
        for (const e of bindings.elements) names.push((e.propertyName ?? e.name).text);
      found.push({ file, line: line(node), module: node.moduleSpecifier.text, names });
    }
    if (
      ts.isCallExpression(node) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === "require" &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      const parent = node.parent;
      const names =
        ts.isVariableDeclaration(parent) && ts.isObjectBindingPattern(parent.name)
          ? parent.name.elements.map((e) => (e.propertyName ?? e.name).getText(source))
          : ["*"];
      found.push({ file, line: line(node), module: node.arguments[0].text, names });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}
