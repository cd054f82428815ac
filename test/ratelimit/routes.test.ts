/**
 * Rate limits over a real socket, with the emulator's clock frozen and moved by hand, so Retry-After and
 * X-RateLimit-Reset can be checked to the second.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import {
  expectEnvelope,
  OTHER_KEY,
  READ_KEY,
  startTestEmulator,
  stopTestEmulator,
  type TestEmulator,
  type TestResponse,
} from "../helpers/emulator";

let emu: TestEmulator;
let extId: string;
let t0: number;

beforeAll(async () => {
  emu = await startTestEmulator({ config: { rateLimits: true } });
  extId = (await emu.api("POST", "/extensions", { json: { name: "Rate Target" } })).body.extension.id;
});
afterAll(() => stopTestEmulator(emu));
beforeEach(() => {
  emu.runtime.rateLimiter.clear();
  emu.clock.reset();
  emu.clock.freeze();
  t0 = emu.clock.nowMs();
});

function rateHeaders(res: TestResponse) {
  return {
    limit: res.headers.get("x-ratelimit-limit"),
    remaining: res.headers.get("x-ratelimit-remaining"),
    reset: res.headers.get("x-ratelimit-reset"),
  };
}

async function repeat(n: number, fn: () => Promise<TestResponse>, expected: number) {
  for (let i = 0; i < n; i++) {
    const res = await fn();
    if (res.status !== expected)
      throw new Error(`request ${i + 1}: expected ${expected}, got ${res.status} ${res.text}`);
  }
}

describe("rate limits: GET endpoints (120 per minute)", () => {
  test("the 121st GET is a 429 whose Retry-After is the real remaining wait; the request after that wait succeeds", async () => {
    const first = await emu.api("GET", "/extensions");
    expect(rateHeaders(first)).toEqual({
      limit: "120",
      remaining: "119",
      reset: String(Math.ceil((t0 + 60_000) / 1000)),
    });
    await repeat(119, () => emu.api("GET", `/extensions/${extId}`), 200);
    emu.clock.advance(17);

    const refused = await emu.api("GET", "/extensions");
    expectEnvelope(refused, 429, "rate_limited");
    expect(refused.headers.get("retry-after")).toBe("43");
    // The way out for a test suite, wherever the refusal surfaces: limits off, or the clock moved.
    const { message } = refused.body.error;
    expect(message).toContain("retry after 43 s.");
    expect(message).toContain("--no-rate-limits");
    expect(message).toContain("EXT_RATE_LIMITS=false");
    expect(message).toContain("advanceSeconds");
    expect(rateHeaders(refused)).toEqual({
      limit: "120",
      remaining: "0",
      reset: String(Math.ceil((t0 + 60_000) / 1000)),
    });

    // Same account, other key: still refused. Refusals consume nothing and do not push the window out.
    expectEnvelope(await emu.api("GET", "/extensions", { key: READ_KEY }), 429, "rate_limited");
    emu.clock.advance(42);
    const last = await emu.api("GET", "/extensions");
    expectEnvelope(last, 429, "rate_limited");
    expect(last.headers.get("retry-after")).toBe("1");

    emu.clock.advance(1);
    const after = await emu.api("GET", "/extensions");
    expect(after.status).toBe(200);
    expect(rateHeaders(after).remaining).toBe("119");
  });

  test("limits are per account: another account is unaffected, and other groups of the same account too", async () => {
    await repeat(120, () => emu.api("GET", "/extensions"), 200);
    expectEnvelope(await emu.api("GET", "/extensions"), 429, "rate_limited");
    const other = await emu.api("GET", "/extensions", { key: OTHER_KEY });
    expect(other.status).toBe(200);
    expect(rateHeaders(other).remaining).toBe("119");
    const patch = await emu.api("PATCH", `/extensions/${extId}`, { json: { short_description: "still writable" } });
    expect(patch.status).toBe(200);
    expect(rateHeaders(patch)).toMatchObject({ limit: "60", remaining: "59" });
  });
});

describe("rate limits: POST /extensions (10 per hour)", () => {
  test("the 11th create in an hour is a 429 that creates nothing; another account can still create", async () => {
    const before = (await emu.api("GET", "/extensions")).body.extensions.length;
    for (let i = 1; i <= 10; i++) {
      const res = await emu.api("POST", "/extensions", { json: { name: `Burst ${i}` } });
      expect(res.status).toBe(201);
      expect(rateHeaders(res)).toMatchObject({ limit: "10", remaining: String(10 - i) });
    }
    emu.clock.advance(600);
    const refused = await emu.api("POST", "/extensions", { json: { name: "Burst 11" } });
    expectEnvelope(refused, 429, "rate_limited");
    expect(refused.headers.get("retry-after")).toBe("3000");
    expect((await emu.api("GET", "/extensions")).body.extensions.length).toBe(before + 10);
    expect((await emu.api("POST", "/extensions", { key: OTHER_KEY, json: { name: "Other Burst" } })).status).toBe(201);
    emu.clock.advance(3000);
    expect((await emu.api("POST", "/extensions", { json: { name: "Burst 11" } })).status).toBe(201);
  });
});

describe("rate limits: DELETE endpoints (30 per minute)", () => {
  test("the 31st DELETE is refused and does nothing; error responses count too", async () => {
    await emu.api("PUT", `/extensions/${extId}/secrets/KEEP`, { json: { value: "v" } });
    await repeat(30, () => emu.api("DELETE", `/extensions/${extId}/secrets/MISSING`), 404);
    const refused = await emu.api("DELETE", `/extensions/${extId}/secrets/KEEP`);
    expectEnvelope(refused, 429, "rate_limited");
    expect(refused.headers.get("retry-after")).toBe("60");
    expect(rateHeaders(refused)).toMatchObject({ limit: "30", remaining: "0" });
    expect((await emu.api("GET", `/extensions/${extId}/secrets`)).body.keys).toContain("KEEP");
  });
});

describe("rate limits: PUT and PATCH (shared, 60 per minute)", () => {
  test("PUT and PATCH count against one window", async () => {
    for (let i = 1; i <= 60; i++) {
      const res =
        i % 2 === 0
          ? await emu.api("PUT", `/extensions/${extId}/secrets/S`, { json: { value: `v${i}` } })
          : await emu.api("PATCH", `/extensions/${extId}`, { json: { short_description: `d${i}` } });
      expect(res.status).toBe(i % 2 === 0 ? 204 : 200);
      expect(rateHeaders(res)).toMatchObject({ limit: "60", remaining: String(60 - i) });
    }
    expectEnvelope(
      await emu.api("PATCH", `/extensions/${extId}`, { json: { short_description: "no" } }),
      429,
      "rate_limited",
    );
    expectEnvelope(
      await emu.api("PUT", `/extensions/${extId}/secrets/S`, { json: { value: "no" } }),
      429,
      "rate_limited",
    );
    expect((await emu.api("GET", `/extensions/${extId}`)).body.short_description).toBe("d59");
  });
});

describe("rate limits: POST /extensions/:id/versions (30 per hour)", () => {
  test("version submissions have their own window, apart from extension creation", async () => {
    const res = await emu.api("POST", `/extensions/${extId}/versions`, {
      body: "x",
      headers: { "content-type": "text/plain" },
    });
    expect(rateHeaders(res)).toMatchObject({ limit: "30", remaining: "29" });
    await repeat(
      29,
      () => emu.api("POST", `/extensions/${extId}/versions`, { body: "x", headers: { "content-type": "text/plain" } }),
      res.status,
    );
    expectEnvelope(
      await emu.api("POST", `/extensions/${extId}/versions`, { body: "x", headers: { "content-type": "text/plain" } }),
      429,
      "rate_limited",
    );
    const create = await emu.api("POST", "/extensions", { json: { name: "Not Blocked" } });
    expect(create.status).toBe(201);
    expect(rateHeaders(create)).toMatchObject({ limit: "10", remaining: "9" });
  });
});

describe("rate limits: only a request that reaches a route counts", () => {
  test("404s and 405s spend nothing; once the window is full an unknown route is still a 404, a wrong method a 405", async () => {
    await repeat(130, () => emu.api("GET", "/no-such-route"), 404);
    await repeat(70, () => emu.api("PUT", "/extensions", { json: {} }), 405);
    expect(rateHeaders(await emu.api("GET", "/extensions")).remaining).toBe("119");
    const patched = await emu.api("PATCH", `/extensions/${extId}`, { json: { name: "Rate Target" } });
    expect(patched.status).toBe(200);
    expect(rateHeaders(patched).remaining).toBe("59");

    await repeat(119, () => emu.api("GET", `/extensions/${extId}`), 200);
    expectEnvelope(await emu.api("GET", "/extensions"), 429, "rate_limited");
    const unknown = await emu.api("GET", `/extensions/${extId}/no-such-thing`);
    expectEnvelope(unknown, 404, "not_found");
    // Told where the window stands, without spending it.
    expect(rateHeaders(unknown)).toEqual({
      limit: "120",
      remaining: "0",
      reset: String(Math.ceil((t0 + 60_000) / 1000)),
    });
    expect((await emu.api("HEAD", "/no-such-route")).status).toBe(404);
    // Under /developer/v1 the key still comes first: without one, an unknown path is a 401.
    expectEnvelope(await emu.api("GET", "/no-such-route", { key: null }), 401, "unauthorized");
  });
});

describe("rate limits: X-RateLimit-* headers", () => {
  test("are on every authenticated response, errors included, and absent on a 401", async () => {
    const responses: [string, TestResponse][] = [
      ["200 list", await emu.api("GET", "/extensions")],
      ["201 create", await emu.api("POST", "/extensions", { json: { name: "Headers" } })],
      ["204 put", await emu.api("PUT", `/extensions/${extId}/secrets/H`, { json: { value: "v" } })],
      ["204 delete", await emu.api("DELETE", `/extensions/${extId}/secrets/H`)],
      ["404 extension_not_found", await emu.api("GET", "/extensions/ext_missing")],
      ["404 secret_not_found", await emu.api("DELETE", `/extensions/${extId}/secrets/H`)],
      ["404 not_found", await emu.api("GET", "/no-such-route")],
      ["405 method_not_allowed", await emu.api("PUT", `/extensions/${extId}`, { json: {} })],
      [
        "403 forbidden",
        await emu.api("PUT", `/extensions/${extId}/secrets/H`, { key: READ_KEY, json: { value: "v" } }),
      ],
      [
        "415 unsupported_media_type",
        await emu.api("PATCH", `/extensions/${extId}`, { body: "x", headers: { "content-type": "text/plain" } }),
      ],
      ["422 validation_error", await emu.api("PATCH", `/extensions/${extId}`, { json: { nope: 1 } })],
      ["limits path of the deploy tool", await emu.raw("GET", `/v1/developer/extensions/${extId}/limits`)],
    ];
    for (const [label, res] of responses) {
      const h = rateHeaders(res);
      const periodMs = h.limit === "10" ? 3_600_000 : 60_000; // only the create window is hourly here
      expect({ label, ...h }).toEqual({
        label,
        limit: expect.stringMatching(/^(10|30|60|120)$/),
        remaining: expect.stringMatching(/^\d+$/),
        reset: String(Math.ceil((t0 + periodMs) / 1000)),
      });
    }
    const unauthenticated = await emu.api("GET", "/extensions", { key: null });
    expectEnvelope(unauthenticated, 401, "unauthorized");
    expect(rateHeaders(unauthenticated)).toEqual({ limit: null, remaining: null, reset: null });
  });

  test("with rate limits off, nothing is counted and no header is sent", async () => {
    emu.runtime.rateLimiter.setEnabled(false);
    try {
      await repeat(130, () => emu.api("GET", "/extensions"), 200);
      expect(rateHeaders(await emu.api("GET", "/extensions"))).toEqual({ limit: null, remaining: null, reset: null });
    } finally {
      emu.runtime.rateLimiter.setEnabled(true);
    }
  });
});
