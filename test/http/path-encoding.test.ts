/**
 * A path parameter that is not valid percent-encoding, or whose escapes are not UTF-8, is the 400
 * `malformed_path` envelope on every route that takes one, developer API and control plane alike (never a
 * 422 "id: Expected string"), and the document says so. The routes come from the app's own table.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { CONTROL_PREFIX } from "../../common/addresses";
import { isWellFormedPath } from "../../server/http/path-encoding";
import { everyRoute } from "../../server/start/app";
import {
  DEMO_KEY,
  documentOperations,
  errorOf,
  expectEnvelope,
  jsonAt,
  startTestEmulator,
  stopTestEmulator,
  type TestEmulator,
} from "../helpers/emulator";

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator({ config: { rateLimits: false } });
});
afterAll(() => stopTestEmulator(emu));

const MALFORMED = ["%FF", "%ZZ", "%", "%C0%AF", "%ED%A0%80", "ab%2"];

/** Every route with a path parameter (or a wildcard), HEAD and the catch-alls aside. */
async function parameterRoutes(): Promise<{ method: string; path: string }[]> {
  return (await everyRoute(emu.runtime)).routes
    .filter((r) => /[:*]/.test(r.path) && !["ALL", "HEAD", "OPTIONS"].includes(r.method))
    .map((r) => ({ method: r.method, path: r.path }));
}

/** The route's path with one parameter replaced by `value`, the others by a plausible id. */
function withParameter(path: string, index: number, value: string): string {
  let i = 0;
  return path.replace(/:[^/]+|\*/g, () => (i++ === index ? value : "x1"));
}

/** Raw: the typed clients would encode the malformed parameter. Each plane with its own credential. */
function send(method: string, path: string) {
  const body = method === "GET" || method === "DELETE" ? {} : { json: {} };
  const key = path.startsWith(`${CONTROL_PREFIX}/`) ? emu.runtime.control.adminToken : DEMO_KEY;
  return emu.rawRequest(method, path, { key, ...body });
}

describe("a malformed path parameter", () => {
  test("the app's table holds the routes the fuzzer reached: developer API and control plane", async () => {
    const routes = await parameterRoutes();
    expect(routes.filter((r) => r.path.startsWith("/developer/")).length).toBeGreaterThanOrEqual(7);
    expect(routes.filter((r) => r.path.startsWith(`${CONTROL_PREFIX}/`)).length).toBeGreaterThanOrEqual(15);
  });

  test("is a 400 malformed_path on every route and in every parameter, whatever the value", async () => {
    const wrong: string[] = [];
    for (const route of await parameterRoutes()) {
      const count = route.path.match(/:[^/]+|\*/g)!.length;
      for (let index = 0; index < count; index++) {
        for (const value of MALFORMED) {
          const path = withParameter(route.path, index, value);
          const res = await send(route.method, path);
          if (res.status !== 400 || errorOf(res.body)?.code !== "malformed_path")
            wrong.push(`${route.method} ${path}: ${res.status} ${res.text.slice(0, 120)}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  test("a well-formed escape still reaches the route: an id that does not exist is its own 404", async () => {
    expectEnvelope(
      await emu.rawRequest("GET", "/developer/v1/extensions/%41bc", { key: DEMO_KEY }),
      404,
      "extension_not_found",
    );
    expectEnvelope(
      await emu.rawRequest("GET", "/developer/v1/extensions/%E2%9C%93", { key: DEMO_KEY }),
      404,
      "extension_not_found",
    );
    const res = expectEnvelope(
      await emu.rawRequest("GET", "/developer/v1/extensions/%FF", { key: DEMO_KEY }),
      400,
      "malformed_path",
    );
    expect(res.message).toContain("/developer/v1/extensions/%FF");
  });

  test("who may call comes first: without a key it is still the 401", async () => {
    expectEnvelope(await emu.rawRequest("GET", "/developer/v1/extensions/%FF"), 401, "unauthorized");
  });

  test("every operation with a path parameter documents the 400", async () => {
    const missing: string[] = [];
    for (const { path, method, op } of await documentOperations(emu)) {
      if (!path.includes("{")) continue;
      const schema = jsonAt(op, "responses", "400", "content", "application/json", "schema");
      const codes = jsonAt(schema, "allOf", 1, "properties", "error", "properties", "code", "enum");
      if (!Array.isArray(codes) || !codes.includes("malformed_path")) missing.push(`${method} ${path}`);
    }
    expect(missing).toEqual([]);
  });
});

describe("isWellFormedPath", () => {
  test("escapes of two hex digits that decode to UTF-8, or none", () => {
    for (const ok of ["/a", "/a%20b", "/%E2%9C%93", "/%f0%9f%98%80"]) expect(isWellFormedPath(ok)).toBe(true);
    for (const bad of MALFORMED) expect(isWellFormedPath(`/a/${bad}`)).toBe(false);
  });
});
