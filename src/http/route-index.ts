/**
 * Which methods each registered path accepts, built once from the app's route table: an unmatched request on
 * a known path is a 405 with `Allow` rather than a 404, and the rate limiter counts only a request that
 * reaches a route (`reaches`, answered before routing, on the hot path).
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

export function routeMethodIndex() {
  let patterns: { re: RegExp; methods: string[] }[] = [];
  /** Per method: its static paths (each also with a trailing slash), and one RegExp for its dynamic ones. */
  let byMethod = new Map<string, { exact: Set<string>; dynamic: RegExp | null }>();
  return {
    load(routes: readonly RouteLike[]) {
      const byPath = new Map<string, Set<string>>();
      for (const r of routes) {
        if (r.method === "ALL" || r.method === "OPTIONS") continue;
        const set = byPath.get(r.path) ?? new Set<string>();
        set.add(r.method);
        byPath.set(r.path, set);
      }
      patterns = [...byPath].map(([path, methods]) => ({
        re: new RegExp(`^${sourceOf(path)}/?$`),
        methods: [...methods].sort(),
      }));
      const grouped = new Map<string, { exact: Set<string>; dynamic: string[] }>();
      for (const [path, methods] of byPath) {
        for (const method of methods) {
          const entry = grouped.get(method) ?? { exact: new Set<string>(), dynamic: [] };
          grouped.set(method, entry);
          if (/[:*]/.test(path)) entry.dynamic.push(sourceOf(path));
          else entry.exact.add(path).add(`${path}/`);
        }
      }
      byMethod = new Map(
        [...grouped].map(([method, { exact, dynamic }]) => [
          method,
          { exact, dynamic: dynamic.length > 0 ? new RegExp(`^(?:${dynamic.join("|")})/?$`) : null },
        ]),
      );
    },
    allowed: (path: string): string[] => {
      const out = new Set<string>();
      for (const p of patterns) if (p.re.test(path)) for (const m of p.methods) out.add(m);
      return [...out];
    },
    /** Whether a route answers this method and path (HEAD is answered by GET routes). */
    reaches: (method: string, path: string): boolean => {
      const routes = byMethod.get(method === "HEAD" ? "GET" : method);
      if (!routes) return false;
      return routes.exact.has(path) || (routes.dynamic?.test(path) ?? false);
    },
  };
}
