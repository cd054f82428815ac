/**
 * No hook or handler takes the whole request context. Elysia reads each hook's and handler's source to learn
 * which context fields it uses, and prepares only those; one that takes the context whole (`(context) =>
 * check(context)`) — or reads `cookie` or `headers` — makes it prepare every field, a cookie jar and a copy of
 * the headers included, for every route of the app, and sends every answer down its slow path (one such line
 * halved the list's throughput). So every function handed to Elysia here destructures what it reads, and
 * never `cookie` or `headers`: a static check of server/, through TypeScript's own parser.
 */
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import ts from "typescript";

const ROOT = resolve(import.meta.dir, "../..");

/** Elysia's lifecycle hooks: every function argument of these is a hook. */
const HOOKS = new Set([
  "onRequest",
  "onParse",
  "onTransform",
  "onBeforeHandle",
  "onAfterHandle",
  "mapResponse",
  "onAfterResponse",
  "onError",
  "derive",
  "resolve",
]);
/** Route methods: a call with a path (a string) first and a function after it registers a handler. */
const ROUTES = new Set(["get", "post", "put", "patch", "delete", "all", "head", "options"]);
/** Hook options of a route or a macro: a function (or a list of them) under these names is a hook. */
const HOOK_OPTIONS = new Set([
  "parse",
  "transform",
  "beforeHandle",
  "afterHandle",
  "mapResponse",
  "afterResponse",
  "error",
  "resolve",
  "derive",
]);
/** Context fields whose mere reading makes Elysia prepare them for every request. */
const COSTLY_FIELDS = new Set(["cookie", "headers"]);

type Fn = ts.ArrowFunction | ts.FunctionExpression | ts.FunctionDeclaration | ts.MethodDeclaration;

const isFn = (node: ts.Node): node is Fn =>
  ts.isArrowFunction(node) ||
  ts.isFunctionExpression(node) ||
  ts.isFunctionDeclaration(node) ||
  ts.isMethodDeclaration(node);

/** Why a function handed to Elysia takes more of the context than it reads; null when it does not. */
function contextProblem(fn: Fn): string | null {
  const first = fn.parameters[0];
  if (!first) return null;
  if (!ts.isObjectBindingPattern(first.name)) return `takes the whole context as \`${first.name.getText()}\``;
  for (const element of first.name.elements) {
    if (element.dotDotDotToken) return "keeps the rest of the context (`...`)";
    const name = (element.propertyName ?? element.name).getText();
    if (COSTLY_FIELDS.has(name)) return `reads \`${name}\` (prepared for every request once any hook reads it)`;
  }
  return null;
}

/** True when the call is a link of a chain that starts at `new Elysia(…)`. */
function onElysiaChain(call: ts.CallExpression): boolean {
  let node: ts.Expression = call.expression;
  for (;;) {
    if (ts.isPropertyAccessExpression(node) || ts.isCallExpression(node)) node = node.expression;
    else if (ts.isParenthesizedExpression(node)) node = node.expression;
    else return ts.isNewExpression(node) && node.expression.getText() === "Elysia";
  }
}

interface Found {
  where: string;
  problem: string;
}

/** The functions of `files` that are handed to Elysia and take more of the context than they read. */
export function wholeContextHandlers(files: { name: string; text: string }[]): Found[] {
  const parsed = files.map((f) => ({
    name: f.name,
    source: ts.createSourceFile(f.name, f.text, ts.ScriptTarget.Latest, true),
  }));
  // Functions by name, for a hook given by reference (`.onTransform(requireAdminMark)`).
  const named = new Map<string, Fn[]>();
  for (const { source } of parsed)
    source.forEachChild(function index(node) {
      if (ts.isFunctionDeclaration(node) && node.name)
        named.set(node.name.text, [...(named.get(node.name.text) ?? []), node]);
      if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer && isFn(node.initializer))
        named.set(node.name.text, [...(named.get(node.name.text) ?? []), node.initializer]);
      node.forEachChild(index);
    });
  const found: Found[] = [];
  for (const { source } of parsed) {
    const where = (node: ts.Node) => {
      const file = node.getSourceFile();
      return `${file.fileName}:${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
    };
    const check = (node: ts.Node | undefined) => {
      if (!node) return;
      if (ts.isArrayLiteralExpression(node)) return node.elements.forEach(check);
      const fns = isFn(node) ? [node] : ts.isIdentifier(node) ? (named.get(node.text) ?? []) : [];
      for (const fn of fns) {
        const problem = contextProblem(fn);
        if (problem) found.push({ where: where(fn), problem });
      }
    };
    /** The hook options of a route's options object, or anywhere in a macro's or a guard's definition. */
    const options = (node: ts.Node, deep: boolean) => {
      if ((ts.isPropertyAssignment(node) || ts.isMethodDeclaration(node)) && HOOK_OPTIONS.has(node.name.getText()))
        check(ts.isPropertyAssignment(node) ? node.initializer : node);
      if (deep || ts.isObjectLiteralExpression(node)) node.forEachChild((child) => options(child, deep));
    };
    const visit = (node: ts.Node) => {
      if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
        const method = node.expression.name.text;
        const [first, ...rest] = node.arguments;
        // A function named by reference is followed only on an Elysia chain (`limits.resolve(key)` is no hook).
        const elysia = onElysiaChain(node);
        const handed = (arg: ts.Expression) => isFn(arg) || (elysia && ts.isIdentifier(arg));
        if (HOOKS.has(method)) for (const arg of node.arguments) if (handed(arg)) check(arg);
        if (ROUTES.has(method) && first && (ts.isStringLiteralLike(first) || ts.isTemplateExpression(first)))
          for (const arg of rest) {
            if (handed(arg)) check(arg);
            else if (ts.isObjectLiteralExpression(arg)) options(arg, false);
          }
        if (method === "macro" || method === "guard") for (const arg of node.arguments) options(arg, true);
      }
      node.forEachChild(visit);
    };
    visit(source);
  }
  return found;
}

test("the check sees a hook that hands its context on, one that keeps the rest, and one that reads cookies", () => {
  const found = wholeContextHandlers([
    {
      name: "bad.ts",
      text: [
        "const check = (context) => context;",
        "new Elysia().onParse((context) => void check(context));",
        'app.get("/x", ({ request, ...rest }) => rest);',
        "app.onBeforeHandle(({ cookie }) => cookie.session);",
        'app.post("/y", () => 1, { transform(ctx) { return ctx } });',
        "new Elysia().onTransform(check);",
      ].join("\n"),
    },
  ]);
  expect(found.map((f) => f.where).sort()).toEqual(["bad.ts:1", "bad.ts:2", "bad.ts:3", "bad.ts:4", "bad.ts:5"]);
  expect(
    wholeContextHandlers([
      { name: "good.ts", text: 'new Elysia().onParse(({ request }) => void 0).get("/", () => 1);' },
    ]),
  ).toEqual([]);
});

test("no hook or handler in server/ takes the whole context, keeps the rest of it, or reads cookie or headers", () => {
  const files = readdirSync(join(ROOT, "server"), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts"))
    .map((f) => ({ name: `server/${f}`, text: readFileSync(join(ROOT, "server", f), "utf8") }));
  expect(files.length).toBeGreaterThan(100);
  expect(wholeContextHandlers(files)).toEqual([]);
});
