/**
 * Every non-success leaves as the envelope {error:{code,message,status}} with status equal to the HTTP
 * status: unknown routes, wrong methods, malformed JSON, wrong Content-Type, validation failures and
 * unexpected exceptions (which never leak their message or stack).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Elysia, t } from "elysia";
import { createLogger } from "../../server/base/logger";
import { errors } from "../../server/errors/catalog";
import { errorHandler } from "../../server/errors/handler";
import {
  DEMO_KEY,
  errorOf,
  expectEnvelope,
  type RequestOptions,
  startTestEmulator,
  stopTestEmulator,
  type TestEmulator,
} from "../helpers/emulator";

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => stopTestEmulator(emu));

/**
 * Raw, to a path under /developer/v1 with DEMO_KEY unless told otherwise: these requests go where the document
 * has no operation, or carry bodies and media types it refuses.
 */
const developer = (method: string, path: string, opts: RequestOptions = {}) =>
  emu.rawRequest(method, `/developer/v1${path}`, { key: DEMO_KEY, ...opts });

describe("unknown routes", () => {
  test("outside the API → 404 not_found in the envelope", async () => {
    const res = await emu.rawRequest("GET", "/no/such/thing");
    const error = expectEnvelope(res, 404, "not_found");
    expect(error.message).toContain("/no/such/thing");
    expect(res.headers.get("content-type")).toContain("application/json");
  });

  test("under /developer/v1 with a valid key → 404 not_found", async () => {
    expectEnvelope(await developer("GET", "/nothing-here"), 404, "not_found");
    expectEnvelope(await developer("GET", "/extensions/x/y/z"), 404, "not_found");
  });

  test("under /developer/v1 without a key → 401 first (nothing is revealed before auth)", async () => {
    expectEnvelope(await developer("GET", "/nothing-here", { key: null }), 401, "unauthorized");
  });
});

describe("wrong method on a known path", () => {
  test("without a key → 401 first, like an unknown path", async () => {
    expectEnvelope(await developer("PUT", "/extensions", { key: null, json: {} }), 401, "unauthorized");
  });

  test("PUT /extensions → 405 method_not_allowed with Allow", async () => {
    const res = await developer("PUT", "/extensions", { json: {} });
    const error = expectEnvelope(res, 405, "method_not_allowed");
    expect(res.headers.get("allow")).toBe("GET, POST");
    expect(error.message).toContain("PUT");
  });

  test("POST /extensions/:id → 405 listing GET, PATCH, DELETE", async () => {
    const res = await developer("POST", "/extensions/ext_abc", { json: {} });
    expectEnvelope(res, 405, "method_not_allowed");
    const allow = (res.headers.get("allow") ?? "").split(", ");
    for (const m of ["DELETE", "GET", "PATCH"]) expect(allow).toContain(m);
    expect(allow).not.toContain("POST");
  });

  test("DELETE /healthz → 405 with Allow: GET", async () => {
    const res = await emu.rawRequest("DELETE", "/healthz");
    expectEnvelope(res, 405, "method_not_allowed");
    expect(res.headers.get("allow")).toBe("GET");
  });
});

describe("request bodies", () => {
  test("malformed JSON → 422 validation_error", async () => {
    const res = await developer("POST", "/extensions", {
      body: '{"name": "x",',
      headers: { "content-type": "application/json" },
    });
    const error = expectEnvelope(res, 422, "validation_error");
    expect(error.message).toMatch(/JSON/);
    expect(res.text).not.toMatch(/\n\s+at /);
  });

  test("JSON with a charset parameter is accepted", async () => {
    const res = await developer("POST", "/extensions", {
      body: JSON.stringify({ name: "Charset" }),
      headers: { "content-type": "application/json; charset=utf-8" },
    });
    expect(res.status).toBe(201);
  });

  test("a JSON endpoint sent another Content-Type → 415 unsupported_media_type", async () => {
    const cases: [string, string, string][] = [
      ["POST", "/extensions", "text/plain"],
      ["POST", "/extensions", "application/x-www-form-urlencoded"],
      ["PATCH", "/extensions/ext_whatever", "text/plain"],
    ];
    for (const [method, path, type] of cases) {
      const res = await developer(method, path, { body: "name=x", headers: { "content-type": type } });
      const error = expectEnvelope(res, 415, "unsupported_media_type");
      expect(error.message).toContain("application/json");
    }
  });

  test("a body with no Content-Type is read as JSON", async () => {
    const send = (body: string) =>
      fetch(`${emu.baseUrl}/extensions`, {
        method: "POST",
        headers: { authorization: "Bearer ext_test_key_all_scopes_0123456789abcdef" },
        body: new TextEncoder().encode(body),
      });
    const ok = await send('{"name":"No Type"}');
    expect(ok.headers.get("content-type")).toContain("application/json");
    expect(ok.status).toBe(201);
    const bad = await send("name=x");
    expect(bad.status).toBe(422);
    expect(errorOf(await bad.json())).toMatchObject({ code: "validation_error", status: 422 });
  });

  test("several problems: the message names the first and counts the rest; details hold one per field", async () => {
    const res = await developer("POST", "/extensions", { json: { name: 5, pricing: { type: "paid" }, colour: "red" } });
    const error = expectEnvelope(res, 422, "validation_error");
    expect(error.details!.map((d) => d.field).sort()).toEqual(["colour", "name", "pricing.type"]);
    expect(error.message).toMatch(/^Request failed validation: .+ \(and 2 more\)$/);
  });

  test("a look-alike media type (application/jsonp) is a 415, not JSON", async () => {
    const res = await developer("POST", "/extensions", {
      body: '{"name":"P"}',
      headers: { "content-type": "application/jsonp" },
    });
    expectEnvelope(res, 415, "unsupported_media_type");
  });

  test("a deeply nested body is a 422, not a 500", async () => {
    const deep = `{"name":${"[".repeat(200_000)}${"]".repeat(200_000)}}`;
    const res = await developer("POST", "/extensions", { body: deep, headers: { "content-type": "application/json" } });
    expectEnvelope(res, 422, "validation_error");
  });

  test("a query number out of range is reported against the query, not the body", async () => {
    const res = await emu.rawRequest("GET", "/_emulator/requests?limit=1e20", { key: emu.runtime.control.adminToken });
    expect(expectEnvelope(res, 422, "validation_error").details?.[0]?.field).toBe("query");
  });

  test("no body at all on POST → 422 validation_error", async () => {
    expectEnvelope(
      await developer("POST", "/extensions", { headers: { "content-type": "application/json" } }),
      422,
      "validation_error",
    );
  });
});

describe("unexpected exceptions", () => {
  function tinyApp(lines: string[]) {
    return new Elysia()
      .use(
        errorHandler(
          createLogger("error", (l) => lines.push(l)),
          () => [],
        ),
      )
      .get("/boom", () => {
        throw new Error("db password is hunter2 at /srv/app/secret.ts:12");
      })
      .get("/typed", () => {
        throw errors.versionExists("1.0.0");
      })
      .get("/bad-response", () => ({ n: "not a number" }) as never, { response: { 200: t.Object({ n: t.Number() }) } })
      .get("/not-error", () => {
        throw "a bare string";
      });
  }

  test("→ 500 internal_error with no message, stack or internals in the body; the log has the stack", async () => {
    const lines: string[] = [];
    const res = await tinyApp(lines).handle(new Request("http://localhost/boom"));
    expect(res.status).toBe(500);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({
      error: { code: "internal_error", message: "Unexpected server error.", status: 500 },
    });
    expect(text).not.toContain("hunter2");
    expect(text).not.toContain("secret.ts");
    expect(lines.join("\n")).toContain("hunter2");
  });

  test("a response that fails its own schema is a 500 (the server's bug), logged, not a 422", async () => {
    const lines: string[] = [];
    const res = await tinyApp(lines).handle(new Request("http://localhost/bad-response"));
    expect(res.status).toBe(500);
    expect(errorOf(await res.json())?.code).toBe("internal_error");
    expect(lines.join("\n")).toContain("unexpected error");
  });

  test("over a real socket: a database failure in a real route is the 500 envelope, nothing of SQLite's message", async () => {
    const sqlite = emu.runtime.db.$client;
    emu.runtime.db.write(() => sqlite.exec("ALTER TABLE extensions RENAME TO extensions_gone"));
    try {
      const res = await emu.client.GET("/developer/v1/extensions");
      expect(res.response.status).toBe(500);
      expect(res.error).toEqual({
        error: { code: "internal_error", message: "Unexpected server error.", status: 500 },
      });
      expect(JSON.stringify(res.error)).not.toContain("no such table");
      expect(res.response.headers.get("content-type")).toContain("application/json");
    } finally {
      emu.runtime.db.write(() => sqlite.exec("ALTER TABLE extensions_gone RENAME TO extensions"));
    }
    expect((await emu.client.GET("/developer/v1/extensions")).response.status).toBe(200);
  });

  test("a thrown non-Error is a 500 envelope too", async () => {
    const res = await tinyApp([]).handle(new Request("http://localhost/not-error"));
    expect(res.status).toBe(500);
    expect(errorOf(await res.json())?.code).toBe("internal_error");
  });

  test("a thrown ApiError keeps its status and code", async () => {
    const res = await tinyApp([]).handle(new Request("http://localhost/typed"));
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({
      error: { code: "version_exists", message: errors.versionExists("1.0.0").message, status: 409 },
    });
  });

  test("an unknown route on the tiny app (no known paths) is a 404 not_found", async () => {
    const res = await tinyApp([]).handle(new Request("http://localhost/elsewhere", { method: "POST" }));
    expect(res.status).toBe(404);
    expect(errorOf(await res.json())).toMatchObject({ code: "not_found", status: 404 });
  });
});
