/**
 * The one matcher of paths outside the framework's router, and the table of the app's routes built on it.
 *
 * Patterns: exact text, `:name` for one whole segment (at least one character), `*` for anything (slashes
 * included, nothing too); a trailing slash is ignored on either side. Route templates (`/extensions/:id`) and
 * fault rules (`/extensions/*`, `*\/secrets/*`) are both compiled here, so a fault rule means what a route
 * path means. A pattern whose parameters are whole segments and which has no `*` — every route and most rules —
 * is compared segment by segment; any other is matched by walking the set of reachable positions token by
 * token, linear in the path for each token, never by a backtracking RegExp (`*a*a*a*a*b` against a long path
 * must not freeze the server).
 *
 * The table answers the questions asked outside the router, from the routes the app registered (nothing here
 * is written by hand): which route a request reaches before routing runs (the rate limiter counts only those,
 * by the route's group: server/ratelimit/limiter.ts), and which methods a path has once routing found none (a 405
 * with `Allow` rather than a 404).
 */

export interface PathPattern {
  test(path: string): boolean;
}

/** The path without one trailing slash: "/a/b/" → "/a/b" ("/" stays). */
const trimmed = (path: string) => (path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path);

/** A path's segments, a trailing slash ignored: "/a/b/" → ["", "a", "b"]. */
const segmentsOf = (path: string) => trimmed(path).split("/");

/** Each segment a literal, or null for a parameter; null when the pattern needs the general matcher. */
function segmentPattern(pattern: string): (string | null)[] | null {
  if (pattern.includes("*")) return null;
  const out: (string | null)[] = [];
  for (const segment of segmentsOf(pattern)) {
    if (/^:[A-Za-z0-9_]+$/.test(segment)) out.push(null);
    else if (/:[A-Za-z0-9_]/.test(segment)) return null;
    else out.push(segment);
  }
  return out;
}

function matchesSegments(pattern: readonly (string | null)[], segments: readonly string[]): boolean {
  if (pattern.length !== segments.length) return false;
  for (let i = 0; i < pattern.length; i++) {
    const want = pattern[i];
    if (want === null ? segments[i] === "" : want !== segments[i]) return false;
  }
  return true;
}

type Token = { kind: "literal"; text: string } | { kind: "param" } | { kind: "star" };

function tokenize(pattern: string): Token[] {
  const tokens: Token[] = [];
  let literal = "";
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    const param = c === ":" ? /^:[A-Za-z0-9_]+/.exec(pattern.slice(i)) : null;
    if (c !== "*" && !param) {
      literal += c;
      continue;
    }
    if (literal) tokens.push({ kind: "literal", text: literal });
    literal = "";
    if (param) {
      tokens.push({ kind: "param" });
      i += param[0].length - 1;
    } else if (tokens.at(-1)?.kind !== "star") tokens.push({ kind: "star" });
  }
  if (literal) tokens.push({ kind: "literal", text: literal });
  return tokens;
}

function walkTokens(tokens: readonly Token[], rawPath: string): boolean {
  const path = trimmed(rawPath);
  const n = path.length;
  let reach = new Uint8Array(n + 1);
  reach[0] = 1;
  for (const token of tokens) {
    const next = new Uint8Array(n + 1);
    let any = false;
    if (token.kind === "star") {
      const first = reach.indexOf(1);
      if (first >= 0) next.fill(1, first);
      any = first >= 0;
    } else {
      for (let i = 0; i <= n; i++) {
        if (!reach[i]) continue;
        if (token.kind === "literal") {
          if (path.startsWith(token.text, i)) {
            next[i + token.text.length] = 1;
            any = true;
          }
        } else {
          // One whole segment, at least one character: every end up to the next "/".
          for (let j = i; j < n && path[j] !== "/"; j++) {
            next[j + 1] = 1;
            any = true;
          }
        }
      }
    }
    if (!any) return false;
    reach = next;
  }
  return reach[n] === 1;
}

export function compilePattern(pattern: string): PathPattern {
  const segments = segmentPattern(pattern);
  if (segments) return { test: (path) => matchesSegments(segments, segmentsOf(path)) };
  const tokens = tokenize(pattern.replace(/\/+$/, ""));
  return { test: (path) => walkTokens(tokens, path) };
}

interface RouteLike {
  method: string;
  path: string;
}

interface Template {
  path: string;
  segments: (string | null)[];
}

interface MethodRoutes {
  /** Static paths → themselves. */
  exact: Map<string, string>;
  /** The routes with parameters, by their number of segments, in registration order. */
  dynamic: Map<number, Template[]>;
  /** Any other (a `*`): the general matcher. */
  general: { path: string; pattern: PathPattern }[];
}

export class RouteTable {
  private readonly byMethod = new Map<string, MethodRoutes>();
  /** Every path with its methods, for `allowed`. */
  private readonly paths = new Map<string, { pattern: PathPattern; methods: Set<string> }>();

  /** Takes the routes of an app (or a part of one, once it is built). ALL and OPTIONS routes name no method. */
  add(routes: readonly RouteLike[]): void {
    for (const { method, path } of routes) {
      if (method === "ALL" || method === "OPTIONS") continue;
      const known = this.paths.get(path) ?? { pattern: compilePattern(path), methods: new Set<string>() };
      known.methods.add(method);
      this.paths.set(path, known);
      let entry = this.byMethod.get(method);
      if (!entry) this.byMethod.set(method, (entry = { exact: new Map(), dynamic: new Map(), general: [] }));
      const segments = segmentPattern(path);
      if (segments === null) {
        entry.general.push({ path, pattern: known.pattern });
        continue;
      }
      if (!segments.includes(null)) {
        entry.exact.set(trimmed(path), path);
        continue;
      }
      const list = entry.dynamic.get(segments.length) ?? [];
      if (!list.some((t) => t.path === path)) list.push({ path, segments });
      entry.dynamic.set(segments.length, list);
    }
  }

  /** The path of the route this method and path reach (HEAD reaches GET routes), or null for none. */
  routeOf(method: string, path: string): string | null {
    const routes = this.byMethod.get(method === "HEAD" ? "GET" : method);
    if (!routes) return null;
    const exact = routes.exact.get(trimmed(path));
    if (exact !== undefined) return exact;
    const segments = segmentsOf(path);
    for (const template of routes.dynamic.get(segments.length) ?? [])
      if (matchesSegments(template.segments, segments)) return template.path;
    for (const route of routes.general) if (route.pattern.test(path)) return route.path;
    return null;
  }

  /** Every method some route has for this path, sorted. */
  allowed(path: string): string[] {
    const out = new Set<string>();
    for (const { pattern, methods } of this.paths.values()) if (pattern.test(path)) for (const m of methods) out.add(m);
    return [...out].sort();
  }
}
