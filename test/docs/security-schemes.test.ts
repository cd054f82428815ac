/**
 * The document's two security schemes let a generated client send each API its own credential. Generators
 * choose a credential from a scheme's description — its type, and its scheme or header name (hey-api's
 * `auth` callback is given exactly that, never the scheme's name in the document) — so two `http bearer`
 * schemes would get the same credential on both APIs, and the control plane answers a developer key 401.
 * Proved with the client generated from the document (openapi-typescript types + openapi-fetch) and a
 * credential picker that sees only what such a generator sees.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import createClient, { type Middleware } from "openapi-fetch";
import type { paths } from "../../client/schema";
import { DEMO_KEY, startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";

let emu: TestEmulator;
let doc: any;
beforeAll(async () => {
  emu = await startTestEmulator();
  doc = (await emu.rawRequest("GET", "/openapi.json")).body;
});
afterAll(() => stopTestEmulator(emu));

/** What a generator's auth hook is told of a scheme. */
interface SchemeView {
  type: string;
  scheme?: string;
  in?: string;
  name?: string;
}
const viewOf = ({ type, scheme, in: where, name }: SchemeView): SchemeView => ({ type, scheme, in: where, name });

/** The user's side of a generated client's auth hook: one answer per kind of scheme. */
function credentialFor(view: SchemeView, developerKey: string, adminToken: string): [string, string] | null {
  if (view.type === "http" && view.scheme === "bearer") return ["authorization", `Bearer ${developerKey}`];
  if (view.type === "apiKey" && view.in === "header") return [view.name!.toLowerCase(), `Bearer ${adminToken}`];
  return null;
}

/** Sets, on each request, the credential its operation's first security requirement with a scheme asks for. */
function securityByDocument(developerKey: string, adminToken: string, sent: Map<string, string | null>): Middleware {
  return {
    onRequest({ request, schemaPath }) {
      const op = doc.paths[schemaPath]?.[request.method.toLowerCase()];
      const requirement = ((op?.security ?? doc.security ?? []) as Record<string, string[]>[]).find(
        (r) => Object.keys(r).length > 0,
      );
      for (const name of Object.keys(requirement ?? {})) {
        const credential = credentialFor(viewOf(doc.components.securitySchemes[name]), developerKey, adminToken);
        if (credential) request.headers.set(...credential);
      }
      sent.set(schemaPath, request.headers.get("authorization"));
      return request;
    },
  };
}

describe("the security schemes", () => {
  test("a generator can tell the developer key's scheme from the admin token's", () => {
    const { bearerAuth, adminToken } = doc.components.securitySchemes;
    expect(JSON.stringify(viewOf(bearerAuth))).not.toBe(JSON.stringify(viewOf(adminToken)));
    expect(viewOf(adminToken)).toEqual({ type: "apiKey", scheme: undefined, in: "header", name: "Authorization" });
  });

  test("every operation names the scheme of its own API", () => {
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const op of Object.values(item)) {
        const names = new Set((op.security ?? []).flatMap((r: object) => Object.keys(r)));
        if (path.startsWith("/_emulator/")) {
          expect(names.has("adminToken")).toBe(true);
          expect(names.has("bearerAuth")).toBe(false);
        } else if (path !== "/healthz") expect([...names]).toEqual(["bearerAuth"]);
      }
    }
  });

  test("one generated client, given both credentials, sends each API its own and both answer", async () => {
    const admin = emu.runtime.control.adminToken;
    const sent = new Map<string, string | null>();
    const client = createClient<paths>({ baseUrl: emu.url });
    client.use(securityByDocument(DEMO_KEY, admin, sent));
    const extensions = await client.GET("/developer/v1/extensions");
    expect(extensions.response.status).toBe(200);
    const state = await client.GET("/_emulator/state");
    expect(state.response.status).toBe(200);
    expect(sent.get("/developer/v1/extensions")).toBe(`Bearer ${DEMO_KEY}`);
    expect(sent.get("/_emulator/state")).toBe(`Bearer ${admin}`);
  });

  test("what two indistinguishable schemes would do: the developer key sent to the control plane is a 401", async () => {
    const res = await emu.rawRequest("GET", "/_emulator/state", { key: DEMO_KEY });
    expect(res.status).toBe(401);
  });
});
