/**
 * The app's own route table, read once (`load(app.routes)`), for the two questions asked outside the router:
 * which route a request reaches before routing runs (the rate limiter counts only those, by the route's
 * group: src/ratelimit/limiter.ts), and which methods a path has once routing found none (a 405 with
 * `Allow` rather than a 404). Nothing here is written by hand: every path and method comes from the routes.
 */
interface RouteLike {
  method: string;
  path: string;
}

/** A route path as a RegExp source: `:param` is one segment, `*` anything; a trailing slash is optional. */
const sourceOf = (path: string) =>
  path
    .replace(/[.+?^${}()|[\]\\]/g, "\\$&")
    .replace(/:[^/]+/g, "[^/]+")
    .replace(/\*/g, ".*");

interface MethodRoutes {
  /** Static paths (each also with a trailing slash) → the route's path. */
  exact: Map<string, string>;
  /** The dynamic paths, one capture group each, in registration order; and their route paths by group. */
  dynamic: RegExp | null;
  templates: string[];
}

export function routeIndex() {
  let patterns: { re: RegExp; methods: string[] }[] = [];
  let byMethod = new Map<string, MethodRoutes>();
  return {
    load(routes: readonly RouteLike[]) {
      const byPath = new Map<string, Set<string>>();
      for (const r of routes) {
        if (r.method === "ALL" || r.method === "OPTIONS") continue;
        byPath.set(r.path, (byPath.get(r.path) ?? new Set<string>()).add(r.method));
      }
      patterns = [...byPath].map(([path, methods]) => ({
        re: new RegExp(`^${sourceOf(path)}/?$`),
        methods: [...methods].sort(),
      }));
      const grouped = new Map<string, { exact: Map<string, string>; dynamic: string[] }>();
      for (const [path, methods] of byPath) {
        for (const method of methods) {
          const entry = grouped.get(method) ?? { exact: new Map<string, string>(), dynamic: [] };
          grouped.set(method, entry);
          if (/[:*]/.test(path)) entry.dynamic.push(path);
          else entry.exact.set(path, path).set(`${path}/`, path);
        }
      }
      byMethod = new Map(
        [...grouped].map(([method, { exact, dynamic }]) => [
          method,
          {
            exact,
            dynamic:
              dynamic.length > 0 ? new RegExp(`^(?:${dynamic.map((p) => `(${sourceOf(p)})`).join("|")})/?$`) : null,
            templates: dynamic,
          },
        ]),
      );
    },
    allowed: (path: string): string[] => {
      const out = new Set<string>();
      for (const p of patterns) if (p.re.test(path)) for (const m of p.methods) out.add(m);
      return [...out];
    },
    /** The path of the route this method and path reach (HEAD reaches GET routes), or null for none. */
    routeOf: (method: string, path: string): string | null => {
      const routes = byMethod.get(method === "HEAD" ? "GET" : method);
      if (!routes) return null;
      const exact = routes.exact.get(path);
      if (exact !== undefined) return exact;
      const match = routes.dynamic?.exec(path);
      if (!match) return null;
      for (let i = 1; i < match.length; i++) if (match[i] !== undefined) return routes.templates[i - 1]!;
      return null;
    },
  };
}
