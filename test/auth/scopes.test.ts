/**
 * Every authenticated route of the developer API requires exactly the scope api-decisions.md (Auth) gives
 * it, over a real socket: a key holding every scope but that one is a 403 `forbidden` naming it, and a key
 * holding that scope alone is never a 403. The route → scope table below is written from the decisions
 * document, not read from the code; only the list of scopes comes from common/scopes.ts, and the app's own
 * route table is used to check that no authenticated route is missing here.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SCOPES } from "../../common/scopes";
import { isDeveloperApiPath } from "../../server/http/paths";
import { everyRoute } from "../../server/start/app";
import {
  baseFixture,
  expectEnvelope,
  startTestEmulator,
  stopTestEmulator,
  type TestEmulator,
} from "../helpers/emulator";

/** Every scope a key can hold except the wildcard. */
const NAMED_SCOPES = SCOPES.filter((s) => s !== "*");

interface Row {
  method: string;
  /** The route as the app registers it (checked against the app's route table). */
  route: string;
  scope: string;
  /** The request actually sent: real ids of acc_test, so a missing scope is the only reason to refuse it. */
  path: string;
  json?: unknown;
  /** The answer to a key holding that scope alone (the upload sends no multipart body: a 415, past auth). */
  ok: number;
}

// api-decisions.md, Auth: `extensions:read` (GET extensions, versions, installs, limits), `extensions:write`
// (POST/PATCH/DELETE extensions), `versions:write` (POST versions), `secrets:read` (GET secret names),
// `secrets:write` (PUT/DELETE secrets). Both paths of the limits endpoint (api-decisions.md, Paths).
const ROUTES: Row[] = [
  {
    method: "GET",
    route: "/developer/v1/extensions",
    scope: "extensions:read",
    path: "/developer/v1/extensions",
    ok: 200,
  },
  {
    method: "GET",
    route: "/developer/v1/extensions/:id",
    scope: "extensions:read",
    path: "/developer/v1/extensions/ext_scoped",
    ok: 200,
  },
  {
    method: "POST",
    route: "/developer/v1/extensions",
    scope: "extensions:write",
    path: "/developer/v1/extensions",
    json: { name: "Made with a narrow key" },
    ok: 201,
  },
  {
    method: "PATCH",
    route: "/developer/v1/extensions/:id",
    scope: "extensions:write",
    path: "/developer/v1/extensions/ext_scoped",
    json: { name: "Renamed" },
    ok: 200,
  },
  {
    method: "DELETE",
    route: "/developer/v1/extensions/:id",
    scope: "extensions:write",
    path: "/developer/v1/extensions/ext_doomed",
    ok: 204,
  },
  {
    method: "GET",
    route: "/developer/v1/extensions/:id/versions",
    scope: "extensions:read",
    path: "/developer/v1/extensions/ext_scoped/versions",
    ok: 200,
  },
  {
    method: "POST",
    route: "/developer/v1/extensions/:id/versions",
    scope: "versions:write",
    path: "/developer/v1/extensions/ext_scoped/versions",
    ok: 415,
  },
  {
    method: "GET",
    route: "/developer/v1/extensions/:id/installs",
    scope: "extensions:read",
    path: "/developer/v1/extensions/ext_scoped/installs",
    ok: 200,
  },
  {
    method: "GET",
    route: "/developer/v1/extensions/:id/limits",
    scope: "extensions:read",
    path: "/developer/v1/extensions/ext_scoped/limits",
    ok: 200,
  },
  {
    method: "GET",
    route: "/v1/developer/extensions/:id/limits",
    scope: "extensions:read",
    path: "/v1/developer/extensions/ext_scoped/limits",
    ok: 200,
  },
  {
    method: "GET",
    route: "/developer/v1/extensions/:id/secrets",
    scope: "secrets:read",
    path: "/developer/v1/extensions/ext_scoped/secrets",
    ok: 200,
  },
  {
    method: "PUT",
    route: "/developer/v1/extensions/:id/secrets/:key",
    scope: "secrets:write",
    path: "/developer/v1/extensions/ext_scoped/secrets/API_TOKEN",
    json: { value: "scoped-secret-value" },
    ok: 204,
  },
  {
    method: "DELETE",
    route: "/developer/v1/extensions/:id/secrets/:key",
    scope: "secrets:write",
    path: "/developer/v1/extensions/ext_scoped/secrets/API_TOKEN",
    ok: 204,
  },
];

const allBut = (scope: string) => `ext_test_key_all_but_${scope.replace(":", "_")}_0123456789`;
const only = (scope: string) => `ext_test_key_only_${scope.replace(":", "_")}_0123456789`;

let emu: TestEmulator;
beforeAll(async () => {
  const fixture = baseFixture();
  const acc = fixture.accounts[0]!;
  for (const scope of NAMED_SCOPES) {
    acc.apiKeys!.push({
      name: `all-but-${scope}`,
      key: allBut(scope),
      scopes: NAMED_SCOPES.filter((s) => s !== scope),
    });
    acc.apiKeys!.push({ name: `only-${scope}`, key: only(scope), scopes: [scope as (typeof NAMED_SCOPES)[number]] });
  }
  acc.extensions = [
    { id: "ext_scoped", name: "Scoped" },
    { id: "ext_doomed", name: "Doomed" },
  ];
  emu = await startTestEmulator({ fixture });
});
afterAll(() => stopTestEmulator(emu));

describe("scopes of the developer API", () => {
  test("the table names every scope but `*` and covers every authenticated route the app registers", async () => {
    expect(NAMED_SCOPES.length).toBeGreaterThan(0);
    expect(new Set(ROUTES.map((r) => r.scope))).toEqual(new Set(NAMED_SCOPES));
    const registered = (await everyRoute(emu.runtime)).routes
      .filter((r) => isDeveloperApiPath(r.path))
      .map((r) => `${r.method} ${r.path}`)
      .sort();
    expect(ROUTES.map((r) => `${r.method} ${r.route}`).sort()).toEqual(registered);
  });

  // Refusals first: a refused request changes nothing, so the real ids still exist for the second pass.
  test.each(ROUTES.map((r) => [`${r.method} ${r.route}`, r] as const))(
    "%s: every scope but the required one → 403 forbidden naming it",
    async (_, row) => {
      const res = await emu.rawRequest(row.method, row.path, { key: allBut(row.scope), json: row.json });
      const error = expectEnvelope(res, 403, "forbidden");
      expect(error.message).toContain(`"${row.scope}"`);
    },
  );

  test.each(ROUTES.map((r) => [`${r.method} ${r.route}`, r] as const))(
    "%s: the required scope alone is enough",
    async (_, row) => {
      const res = await emu.rawRequest(row.method, row.path, { key: only(row.scope), json: row.json });
      expect(res.status, `${row.method} ${row.path} → ${res.status} ${res.text}`).toBe(row.ok);
    },
  );
});
