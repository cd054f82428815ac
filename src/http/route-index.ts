/**
 * Which methods each registered path accepts, so an unmatched request on a known path is a 405 with
 * `Allow` rather than a 404. Built once from the app's route table.
 */
interface RouteLike {
  method: string;
  path: string;
}

export function routeMethodIndex() {
  let patterns: { re: RegExp; methods: string[] }[] = [];
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
        re: new RegExp(
          "^" +
            path
              .replace(/[.+?^${}()|[\]\\]/g, "\\$&")
              .replace(/:[^/]+/g, "[^/]+")
              .replace(/\*/g, ".*") +
            "/?$",
        ),
        methods: [...methods].sort(),
      }));
    },
    allowed: (path: string): string[] => {
      const out = new Set<string>();
      for (const p of patterns) if (p.re.test(path)) for (const m of p.methods) out.add(m);
      return [...out];
    },
  };
}
