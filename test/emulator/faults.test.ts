/** POST/GET/DELETE /_emulator/faults and GET/DELETE /_emulator/requests. */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import type { FaultRuleInput } from "../../client";
import { compilePattern } from "../../server/http/route-table";
import { normalizePattern } from "../../server/runtime/control-state/fault-injector";
import {
  answerOf,
  DEMO_KEY,
  expectEnvelope,
  OTHER_KEY,
  startTestEmulator,
  stopTestEmulator,
  type TestEmulator,
} from "../helpers/emulator";
import { waitFor } from "../helpers/wait-for";

let emu: TestEmulator;

beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => stopTestEmulator(emu));
beforeEach(async () => {
  await emu.control.POST("/_emulator/reset");
});

const addFault = (body: FaultRuleInput) => emu.control.POST("/_emulator/faults", { body });
const faults = async () => (await emu.control.GET("/_emulator/faults")).data?.faults ?? [];
const requests = async (limit?: number) =>
  (await emu.control.GET("/_emulator/requests", limit === undefined ? {} : { params: { query: { limit } } })).data
    ?.requests ?? [];
const list = (key = DEMO_KEY) => emu.clientFor(key).GET("/developer/v1/extensions");
const get = (id: string, key = DEMO_KEY) =>
  emu.clientFor(key).GET("/developer/v1/extensions/{id}", { params: { path: { id } } });

describe("POST /_emulator/faults", () => {
  test("a rule with times: 3 makes exactly the next 3 matching requests fail with the chosen status and envelope", async () => {
    const created = await addFault({
      method: "GET",
      path: "/extensions",
      status: 503,
      code: "maintenance",
      message: "Down for maintenance.",
      times: 3,
    });
    expect(created.response.status).toBe(201);
    expect(created.data?.fault).toMatchObject({
      path: "/developer/v1/extensions",
      method: "GET",
      status: 503,
      times: 3,
      fired: 0,
    });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await list();
      statuses.push(res.response.status);
      if (res.response.status === 503)
        expect(answerOf(res).body).toEqual({
          error: { code: "maintenance", message: "Down for maintenance.", status: 503 },
        });
    }
    expect(statuses).toEqual([503, 503, 503, 200, 200]);
    // Other methods and paths were never affected.
    const unaffected = await emu.client.POST("/developer/v1/extensions", { body: { name: "Unaffected" } });
    expect(unaffected.response.status).toBe(201);
    const listed = await faults();
    expect(listed).toHaveLength(1);
    expect(listed[0]?.fired).toBe(3);
  });

  test("a fault stands in for any response, a 401 included (it runs before the key check)", async () => {
    await addFault({ path: "/extensions/:id", status: 500, times: 1 });
    const res = await get("ext_whatever", "not-a-key");
    expect(res.error).toEqual({
      error: { code: "internal_error", message: expect.stringContaining("Injected fault"), status: 500 },
    });
    expectEnvelope(await get("ext_whatever", "not-a-key"), 401, "unauthorized");
  });

  test("the code defaults from the status; a 429 carries Retry-After", async () => {
    await addFault({ path: "*", status: 429, times: 1 });
    const res = await emu.client.DELETE("/developer/v1/extensions/{id}", { params: { path: { id: "ext_x" } } });
    expectEnvelope(res, 429, "rate_limited");
    expect(res.response.headers.get("retry-after")).toBe("1");
  });

  test("latencyMs without a status delays the request, which then proceeds normally", async () => {
    await addFault({ path: "/extensions", latencyMs: 150, times: 1 });
    const res = await list();
    expect(res.response.status).toBe(200);
    // The request log's duration includes the rule's own delay: a floor the rule guarantees, not a speed.
    expect((await requests())[0]).toMatchObject({
      path: "/developer/v1/extensions",
      status: 200,
    });
    expect((await requests())[0]?.durationMs).toBeGreaterThanOrEqual(150);
    expect((await faults())[0]).toMatchObject({
      status: null,
      latencyMs: 150,
      fired: 1,
    });
  });

  test("a held request is answered when its latency is over: its rule's error, or what the key check says; logged once", async () => {
    await addFault({ method: "GET", path: "/extensions", latencyMs: 120, status: 503, times: 1 });
    await addFault({ method: "GET", path: "/extensions/:id", latencyMs: 120, times: 1 });
    expectEnvelope(await list(), 503, "service_unavailable");
    // The key is checked once the hold is over, as every gate is: an unknown one is a 401 then.
    expectEnvelope(await get("ext_held", "ext_test_key_nobody_has_0123456789abcde"), 401, "unauthorized");
    const logged = await requests();
    expect(logged.map((e) => [e.method, e.path, e.status])).toEqual([
      ["GET", "/developer/v1/extensions/ext_held", 401],
      ["GET", "/developer/v1/extensions", 503],
    ]);
    for (const entry of logged) expect(entry.durationMs).toBeGreaterThanOrEqual(120);
    expect((await faults()).map((f) => f.fired)).toEqual([1, 1]);
  });

  test("a latency rule's delay ends when the client goes away, and the request then proceeds", async () => {
    // The longest delay a rule may have: longer than this test may run.
    expect((await addFault({ path: "/extensions", latencyMs: 60_000, times: 1 })).response.status).toBe(201);
    const client = new AbortController();
    const gone = fetch(`${emu.baseUrl}/extensions`, {
      headers: { authorization: `Bearer ${DEMO_KEY}` },
      signal: client.signal,
    }).catch((e: Error) => e.name);
    await waitFor(async () => (await faults())[0]?.fired === 1, "the rule to fire");
    client.abort();
    expect(await gone).toBe("AbortError");
    // Long before the rule's minute is over, the request has run and is in the log.
    const logged = await waitFor(async () => (await requests())[0], "the log entry");
    expect(logged).toMatchObject({ method: "GET", path: "/developer/v1/extensions", status: 200 });
  });

  test("rules are tried in creation order: the first that matches fires", async () => {
    await addFault({ path: "/extensions", status: 502, times: 1 });
    await addFault({ path: "*", status: 503, times: 1 });
    await addFault({ path: "/extensions", status: 504, times: 1 });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await list()).response.status);
    expect(statuses).toEqual([502, 503, 504, 200]);
  });

  test("a rule with neither status nor latencyMs answers 500 internal_error", async () => {
    const created = await addFault({ path: "/extensions", times: 1 });
    expect(created.data?.fault).toMatchObject({ status: 500, latencyMs: 0 });
    expectEnvelope(await list(), 500, "internal_error");
  });

  test("the default code follows the status; a status without a usual code is injected_fault", async () => {
    const cases: [number, string][] = [
      [400, "bad_request"],
      [404, "not_found"],
      [409, "conflict"],
      [422, "validation_error"],
      [502, "bad_gateway"],
      [504, "gateway_timeout"],
      [418, "injected_fault"],
      [599, "injected_fault"],
    ];
    for (const [status, code] of cases) {
      await addFault({ path: "/extensions", status, times: 1 });
      expectEnvelope(await list(), status, code);
    }
  });

  test("probability 0 never fires; probability 1 always does", async () => {
    await addFault({ path: "/extensions", probability: 0, status: 500 });
    for (let i = 0; i < 5; i++) expect((await list()).response.status).toBe(200);
    await emu.control.DELETE("/_emulator/faults");
    await addFault({ path: "/extensions", probability: 1, status: 502 });
    for (let i = 0; i < 3; i++) expectEnvelope(await list(), 502, "bad_gateway");
  });

  test("an invalid rule is a 422 naming the field", async () => {
    const res = await addFault({ path: "/x", status: 200 });
    expect(expectEnvelope(res, 422, "validation_error").details![0]!.field).toBe("status");
    expectEnvelope(await addFault({ path: "/x", probability: 1.5 }), 422, "validation_error");
    // A field the document does not have: raw, as the typed client would not send it.
    const bogus = await emu.rawRequest("POST", "/_emulator/faults", {
      key: emu.runtime.control.adminToken,
      json: { path: "/x", bogus: true },
    });
    expectEnvelope(bogus, 422, "validation_error");
  });
});

describe("DELETE /_emulator/faults", () => {
  test("one rule by id (404 for an unknown id), or all of them", async () => {
    const a = { params: { path: { id: (await addFault({ path: "/extensions", status: 500 })).data?.fault.id ?? "" } } };
    await addFault({ path: "/extensions/:id", status: 500 });
    expect((await emu.control.DELETE("/_emulator/faults/{id}", a)).response.status).toBe(204);
    expectEnvelope(await emu.control.DELETE("/_emulator/faults/{id}", a), 404, "fault_not_found");
    expect((await list()).response.status).toBe(200);
    const cleared = await emu.control.DELETE("/_emulator/faults");
    expect(cleared.response.status).toBe(204);
    expect(await cleared.response.text()).toBe("");
    expect(await faults()).toEqual([]);
    expect((await get("ext_missing")).response.status).toBe(404);
  });
});

describe("fault path patterns", () => {
  test("exact, :param and * segments; relative to /developer/v1 unless already absolute", () => {
    expect(normalizePattern("/extensions")).toBe("/developer/v1/extensions");
    expect(normalizePattern("/v1/developer/extensions/:id/limits")).toBe("/v1/developer/extensions/:id/limits");
    const param = compilePattern(normalizePattern("/extensions/:id/versions"));
    expect(param.test("/developer/v1/extensions/ext_1/versions")).toBe(true);
    expect(param.test("/developer/v1/extensions/ext_1/secrets")).toBe(false);
    expect(param.test("/developer/v1/extensions/a/b/versions")).toBe(false);
    const star = compilePattern(normalizePattern("/extensions/*"));
    expect(star.test("/developer/v1/extensions/ext_1/secrets/KEY")).toBe(true);
    expect(compilePattern(normalizePattern("/extensions")).test("/developer/v1/extensions/ext_1")).toBe(false);
  });

  test("a trailing slash is ignored on either side; * may match nothing, sit mid-segment, or repeat", () => {
    expect(compilePattern("/developer/v1/extensions/").test("/developer/v1/extensions")).toBe(true);
    expect(compilePattern("/developer/v1/extensions").test("/developer/v1/extensions/")).toBe(true);
    expect(compilePattern("/developer/v1/extensions*").test("/developer/v1/extensions")).toBe(true);
    expect(compilePattern("/developer/v1/ext*/:id").test("/developer/v1/extensions/ext_1")).toBe(true);
    expect(compilePattern("*/secrets/*").test("/developer/v1/extensions/e/secrets/K")).toBe(true);
    expect(compilePattern("*/secrets/*").test("/developer/v1/extensions/e/versions")).toBe(false);
    expect(compilePattern("/developer/v1/extensions/:id").test("/developer/v1/extensions/")).toBe(false);
  });

  test("a pattern that makes a backtracking RegExp explode is matched in linear steps", () => {
    // As a RegExp, 30 stars against this path take minutes; here the answer is immediate.
    const evil = compilePattern(`${"*a".repeat(30)}*b`);
    expect(evil.test(`/${"a".repeat(5000)}`)).toBe(false);
    expect(evil.test(`/${"a".repeat(5000)}b`)).toBe(true);
  });
});

describe("GET /_emulator/requests", () => {
  test("records method, path, status, account and duration of developer-API requests, newest first; never the control plane", async () => {
    // Each request timed from the client's side too: the server's duration lies within it.
    const clientMs: number[] = [];
    const timed = async (send: () => Promise<unknown>) => {
      const started = performance.now();
      await send();
      clientMs.unshift(performance.now() - started);
    };
    // A query the document does not have: raw; the log records the path without it.
    await timed(() => emu.rawRequest("GET", "/developer/v1/extensions?limit=1", { key: DEMO_KEY }));
    await timed(() => emu.clientFor(OTHER_KEY).POST("/developer/v1/extensions", { body: { name: "Logged" } }));
    await timed(() => list("nope"));
    await emu.control.GET("/_emulator/state");
    const res = await emu.control.GET("/_emulator/requests");
    expect(res.response.status).toBe(200);
    const entries = res.data?.requests ?? [];
    expect(entries.map((e) => [e.method, e.path, e.status, e.errorCode, e.accountId])).toEqual([
      ["GET", "/developer/v1/extensions", 401, "unauthorized", null],
      ["POST", "/developer/v1/extensions", 201, null, "acc_other"],
      ["GET", "/developer/v1/extensions", 200, null, "acc_test"],
    ]);
    for (const [i, e] of entries.entries()) {
      // Rounded to 0.01 ms by the server; the floor the duration guarantees is tested with a latency rule above.
      expect(e.durationMs).toBeGreaterThanOrEqual(0);
      expect(e.durationMs).toBeLessThanOrEqual(clientMs[i]! + 0.01);
      expect(Object.keys(e).sort()).toEqual([
        "accountId",
        "at",
        "client",
        "durationMs",
        "errorCode",
        "id",
        "keyId",
        "method",
        "path",
        "status",
      ]);
    }
    // Nothing of the request bodies or keys is in the listing (the detail is at /requests/:id).
    expect(JSON.stringify(res.data)).not.toContain("Logged");
    expect(JSON.stringify(res.data)).not.toContain(DEMO_KEY);
  });

  test("keeps the last 500 requests only", async () => {
    for (let i = 0; i < 505; i++) await get(`ext_n${i}`);
    const kept = (await requests(500)).map((e) => e.path);
    expect(kept).toHaveLength(500);
    expect(kept[0]).toBe("/developer/v1/extensions/ext_n504");
    expect(kept[499]).toBe("/developer/v1/extensions/ext_n5");
    // Without ?limit, the newest 100.
    expect(await requests()).toHaveLength(100);
    expectEnvelope(
      await emu.control.GET("/_emulator/requests", { params: { query: { limit: 501 } } }),
      422,
      "validation_error",
    );
  });

  test("`at` is the emulator clock's time, not the machine's", async () => {
    await emu.control.POST("/_emulator/clock", { body: { set: "2031-02-03T04:05:06.789Z", freeze: true } });
    await list();
    expect((await requests())[0]?.at).toBe("2031-02-03T04:05:06.789Z");
  });

  test("injected faults are logged with the status they produced; ?limit= narrows; DELETE empties", async () => {
    await addFault({ path: "/extensions", status: 503, times: 1 });
    await list();
    await list();
    const two = await requests(2);
    expect(two.map((e) => [e.status, e.errorCode])).toEqual([
      [200, null],
      [503, "service_unavailable"],
    ]);
    expect(await requests(1)).toHaveLength(1);
    expectEnvelope(
      await emu.control.GET("/_emulator/requests", { params: { query: { limit: 0 } } }),
      422,
      "validation_error",
    );
    expect((await emu.control.DELETE("/_emulator/requests")).response.status).toBe(204);
    expect(await requests()).toEqual([]);
  });
});
