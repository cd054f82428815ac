/** POST/GET/DELETE /_emulator/faults and GET/DELETE /_emulator/requests. */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { compilePattern, normalizePattern } from "../../src/emulator/fault-injector";
import {
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
  await emu.admin("POST", "/reset");
});

describe("POST /_emulator/faults", () => {
  test("a rule with times: 3 makes exactly the next 3 matching requests fail with the chosen status and envelope", async () => {
    const created = await emu.admin("POST", "/faults", {
      method: "GET",
      path: "/extensions",
      status: 503,
      code: "maintenance",
      message: "Down for maintenance.",
      times: 3,
    });
    expect(created.status).toBe(201);
    expect(created.body.fault).toMatchObject({
      path: "/developer/v1/extensions",
      method: "GET",
      status: 503,
      times: 3,
      fired: 0,
    });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await emu.api("GET", "/extensions");
      statuses.push(res.status);
      if (res.status === 503)
        expect(res.body).toEqual({ error: { code: "maintenance", message: "Down for maintenance.", status: 503 } });
    }
    expect(statuses).toEqual([503, 503, 503, 200, 200]);
    // Other methods and paths were never affected.
    expect((await emu.api("POST", "/extensions", { json: { name: "Unaffected" } })).status).toBe(201);
    const listed = (await emu.admin("GET", "/faults")).body.faults;
    expect(listed).toHaveLength(1);
    expect(listed[0].fired).toBe(3);
  });

  test("a fault stands in for any response, a 401 included (it runs before the key check)", async () => {
    await emu.admin("POST", "/faults", { path: "/extensions/:id", status: 500, times: 1 });
    const res = await emu.api("GET", "/extensions/ext_whatever", { key: "not-a-key" });
    expect(res.body).toEqual({
      error: { code: "internal_error", message: expect.stringContaining("Injected fault"), status: 500 },
    });
    expectEnvelope(await emu.api("GET", "/extensions/ext_whatever", { key: "not-a-key" }), 401, "unauthorized");
  });

  test("the code defaults from the status; a 429 carries Retry-After", async () => {
    await emu.admin("POST", "/faults", { path: "*", status: 429, times: 1 });
    const res = await emu.api("DELETE", "/extensions/ext_x");
    expectEnvelope(res, 429, "rate_limited");
    expect(res.headers.get("retry-after")).toBe("1");
  });

  test("latencyMs without a status delays the request, which then proceeds normally", async () => {
    await emu.admin("POST", "/faults", { path: "/extensions", latencyMs: 150, times: 1 });
    const res = await emu.api("GET", "/extensions");
    expect(res.status).toBe(200);
    // The request log's duration includes the rule's own delay: a floor the rule guarantees, not a speed.
    expect((await emu.admin("GET", "/requests")).body.requests[0]).toMatchObject({
      path: "/developer/v1/extensions",
      status: 200,
    });
    expect((await emu.admin("GET", "/requests")).body.requests[0].durationMs).toBeGreaterThanOrEqual(150);
    expect((await emu.admin("GET", "/faults")).body.faults[0]).toMatchObject({
      status: null,
      latencyMs: 150,
      fired: 1,
    });
  });

  test("a latency rule's delay ends when the client goes away, and the request then proceeds", async () => {
    // The longest delay a rule may have: longer than this test may run.
    expect((await emu.admin("POST", "/faults", { path: "/extensions", latencyMs: 60_000, times: 1 })).status).toBe(201);
    const client = new AbortController();
    const gone = fetch(`${emu.baseUrl}/extensions`, {
      headers: { authorization: `Bearer ${DEMO_KEY}` },
      signal: client.signal,
    }).catch((e: Error) => e.name);
    await waitFor(async () => (await emu.admin("GET", "/faults")).body.faults[0].fired === 1, "the rule to fire");
    client.abort();
    expect(await gone).toBe("AbortError");
    // Long before the rule's minute is over, the request has run and is in the log.
    const logged = await waitFor(async () => (await emu.admin("GET", "/requests")).body.requests[0], "the log entry");
    expect(logged).toMatchObject({ method: "GET", path: "/developer/v1/extensions", status: 200 });
  });

  test("rules are tried in creation order: the first that matches fires", async () => {
    await emu.admin("POST", "/faults", { path: "/extensions", status: 502, times: 1 });
    await emu.admin("POST", "/faults", { path: "*", status: 503, times: 1 });
    await emu.admin("POST", "/faults", { path: "/extensions", status: 504, times: 1 });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await emu.api("GET", "/extensions")).status);
    expect(statuses).toEqual([502, 503, 504, 200]);
  });

  test("a rule with neither status nor latencyMs answers 500 internal_error", async () => {
    const created = await emu.admin("POST", "/faults", { path: "/extensions", times: 1 });
    expect(created.body.fault).toMatchObject({ status: 500, latencyMs: 0 });
    expectEnvelope(await emu.api("GET", "/extensions"), 500, "internal_error");
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
      await emu.admin("POST", "/faults", { path: "/extensions", status, times: 1 });
      expectEnvelope(await emu.api("GET", "/extensions"), status, code);
    }
  });

  test("probability 0 never fires; probability 1 always does", async () => {
    await emu.admin("POST", "/faults", { path: "/extensions", probability: 0, status: 500 });
    for (let i = 0; i < 5; i++) expect((await emu.api("GET", "/extensions")).status).toBe(200);
    await emu.admin("DELETE", "/faults");
    await emu.admin("POST", "/faults", { path: "/extensions", probability: 1, status: 502 });
    for (let i = 0; i < 3; i++) expectEnvelope(await emu.api("GET", "/extensions"), 502, "bad_gateway");
  });

  test("an invalid rule is a 422 naming the field", async () => {
    const res = await emu.admin("POST", "/faults", { path: "/x", status: 200 });
    expect(expectEnvelope(res, 422, "validation_error").details![0]!.field).toBe("status");
    expectEnvelope(await emu.admin("POST", "/faults", { path: "/x", probability: 1.5 }), 422, "validation_error");
    expectEnvelope(await emu.admin("POST", "/faults", { path: "/x", bogus: true }), 422, "validation_error");
  });
});

describe("DELETE /_emulator/faults", () => {
  test("one rule by id (404 for an unknown id), or all of them", async () => {
    const a = (await emu.admin("POST", "/faults", { path: "/extensions", status: 500 })).body.fault.id;
    await emu.admin("POST", "/faults", { path: "/extensions/:id", status: 500 });
    expect((await emu.admin("DELETE", `/faults/${a}`)).status).toBe(204);
    expectEnvelope(await emu.admin("DELETE", `/faults/${a}`), 404, "fault_not_found");
    expect((await emu.api("GET", "/extensions")).status).toBe(200);
    const cleared = await emu.admin("DELETE", "/faults");
    expect(cleared.status).toBe(204);
    expect(cleared.text).toBe("");
    expect((await emu.admin("GET", "/faults")).body.faults).toEqual([]);
    expect((await emu.api("GET", "/extensions/ext_missing")).status).toBe(404);
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
    await timed(() => emu.api("GET", "/extensions?limit=1"));
    await timed(() => emu.api("POST", "/extensions", { json: { name: "Logged" }, key: OTHER_KEY }));
    await timed(() => emu.api("GET", "/extensions", { key: "nope" }));
    await emu.admin("GET", "/state");
    const res = await emu.admin("GET", "/requests");
    expect(res.status).toBe(200);
    const entries = res.body.requests;
    expect(entries.map((e: any) => [e.method, e.path, e.status, e.errorCode, e.accountId])).toEqual([
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
    expect(res.text).not.toContain("Logged");
    expect(res.text).not.toContain(DEMO_KEY);
  });

  test("keeps the last 500 requests only", async () => {
    for (let i = 0; i < 505; i++) await emu.api("GET", `/extensions/ext_n${i}`);
    const kept = (await emu.admin("GET", "/requests?limit=500")).body.requests.map((e: { path: string }) => e.path);
    expect(kept).toHaveLength(500);
    expect(kept[0]).toBe("/developer/v1/extensions/ext_n504");
    expect(kept[499]).toBe("/developer/v1/extensions/ext_n5");
    // Without ?limit, the newest 100.
    expect((await emu.admin("GET", "/requests")).body.requests).toHaveLength(100);
    expectEnvelope(await emu.admin("GET", "/requests?limit=501"), 422, "validation_error");
  });

  test("`at` is the emulator clock's time, not the machine's", async () => {
    await emu.admin("POST", "/clock", { set: "2031-02-03T04:05:06.789Z", freeze: true });
    await emu.api("GET", "/extensions");
    expect((await emu.admin("GET", "/requests")).body.requests[0].at).toBe("2031-02-03T04:05:06.789Z");
  });

  test("injected faults are logged with the status they produced; ?limit= narrows; DELETE empties", async () => {
    await emu.admin("POST", "/faults", { path: "/extensions", status: 503, times: 1 });
    await emu.api("GET", "/extensions");
    await emu.api("GET", "/extensions");
    const two = (await emu.admin("GET", "/requests?limit=2")).body.requests;
    expect(two.map((e: any) => [e.status, e.errorCode])).toEqual([
      [200, null],
      [503, "service_unavailable"],
    ]);
    expect((await emu.admin("GET", "/requests?limit=1")).body.requests).toHaveLength(1);
    expectEnvelope(await emu.admin("GET", "/requests?limit=0"), 422, "validation_error");
    expect((await emu.admin("DELETE", "/requests")).status).toBe(204);
    expect((await emu.admin("GET", "/requests")).body.requests).toEqual([]);
  });
});
