/**
 * The app is built with the developer API only; the control plane, the dashboard and the docs are parts built by
 * their first request, each owning part of the URL space (server/start/app.ts). Every route of every part must lie in a
 * space the app hands to its part: a route added to a part outside them would answer 404 for ever.
 */
import { expect, test } from "bun:test";
import { compilePattern } from "../../server/http/route-table";
import { createApp, everyRoute } from "../../server/start/app";
import { documentRuntime } from "../../server/start/document";

/** A route path with each parameter given a value: `/ui/:file` → `/ui/x`. */
const concrete = (path: string) => path.replace(/:[^/]+/g, "x");

test("every route of every part is reached: by a route of the app itself or by its part's delegation", async () => {
  const runtime = documentRuntime();
  const app = createApp(runtime);
  const own = app.routes.map((r) => ({ method: r.method, pattern: compilePattern(r.path) }));
  const every = (await everyRoute(runtime)).routes.filter((r) => r.method !== "ALL");
  expect(every.length).toBeGreaterThan(60);
  const unreached = every
    .filter((r) => !own.some((o) => (o.method === r.method || o.method === "ALL") && o.pattern.test(concrete(r.path))))
    .map((r) => `${r.method} ${r.path}`);
  expect(unreached).toEqual([]);
});

test("the app itself holds only the developer API, /healthz and the delegations to its parts", () => {
  const app = createApp(documentRuntime());
  const own = app.routes.filter((r) => r.method !== "ALL").map((r) => r.path);
  expect(
    own.filter((p) => !p.startsWith("/developer/v1/") && !p.startsWith("/v1/developer/") && p !== "/healthz"),
  ).toEqual([]);
});
