/**
 * Rate limits over a real socket, with the emulator's clock frozen and moved by hand, so Retry-After and
 * X-RateLimit-Reset can be checked to the second.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import type { ExtensionUpdate } from "../../client";
import { createExtension } from "../helpers/bundles";
import {
  type AnyResponse,
  answerOf,
  DEMO_KEY,
  errorOf,
  expectEnvelope,
  OTHER_KEY,
  READ_KEY,
  type RequestOptions,
  startTestEmulator,
  stopTestEmulator,
  type TestEmulator,
} from "../helpers/emulator";

let emu: TestEmulator;
let extId: string;
let t0: number;

beforeAll(async () => {
  emu = await startTestEmulator({ config: { rateLimits: true } });
  extId = await createExtension(emu, "Rate Target");
});
afterAll(() => stopTestEmulator(emu));
beforeEach(() => {
  emu.runtime.rateLimiter.clear();
  emu.clock.reset();
  emu.clock.freeze();
  t0 = emu.clock.nowMs();
});

function rateHeaders(res: AnyResponse) {
  const { headers } = answerOf(res);
  return {
    limit: headers.get("x-ratelimit-limit"),
    remaining: headers.get("x-ratelimit-remaining"),
    reset: headers.get("x-ratelimit-reset"),
  };
}

async function repeat(n: number, fn: () => Promise<AnyResponse>, expected: number) {
  for (let i = 0; i < n; i++) {
    const { status, body } = answerOf(await fn());
    if (status !== expected)
      throw new Error(`request ${i + 1}: expected ${expected}, got ${status} ${JSON.stringify(body)}`);
  }
}

const byId = (id: string) => ({ params: { path: { id } } });
const list = (key: string | null = DEMO_KEY) => emu.clientFor(key).GET("/developer/v1/extensions");
const get = (id: string) => emu.client.GET("/developer/v1/extensions/{id}", byId(id));
const create = (name: string, key = DEMO_KEY) =>
  emu.clientFor(key).POST("/developer/v1/extensions", { body: { name } });
const patch = (body: ExtensionUpdate) => emu.client.PATCH("/developer/v1/extensions/{id}", { ...byId(extId), body });
const putSecret = (key: string, value: string, apiKey = DEMO_KEY) =>
  emu.clientFor(apiKey).PUT("/developer/v1/extensions/{id}/secrets/{key}", {
    params: { path: { id: extId, key } },
    body: { value },
  });
const deleteSecret = (key: string) =>
  emu.client.DELETE("/developer/v1/extensions/{id}/secrets/{key}", { params: { path: { id: extId, key } } });
/** Raw, as DEMO_KEY: paths the document does not have, methods it does not allow, bodies it refuses. */
const developer = (method: string, path: string, opts: RequestOptions = {}) =>
  emu.rawRequest(method, `/developer/v1${path}`, { key: DEMO_KEY, ...opts });

describe("rate limits: GET endpoints (120 per minute)", () => {
  test("the 121st GET is a 429 whose Retry-After is the real remaining wait; the request after that wait succeeds", async () => {
    const first = await list();
    expect(rateHeaders(first)).toEqual({
      limit: "120",
      remaining: "119",
      reset: String(Math.ceil((t0 + 60_000) / 1000)),
    });
    await repeat(119, () => get(extId), 200);
    emu.clock.advance(17);

    const refused = await list();
    expectEnvelope(refused, 429, "rate_limited");
    expect(refused.response.headers.get("retry-after")).toBe("43");
    // The way out for a test suite, wherever the refusal surfaces: limits off, or the clock moved.
    const message = errorOf(refused.error)?.message;
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
    expectEnvelope(await list(READ_KEY), 429, "rate_limited");
    emu.clock.advance(42);
    const last = await list();
    expectEnvelope(last, 429, "rate_limited");
    expect(last.response.headers.get("retry-after")).toBe("1");

    emu.clock.advance(1);
    const after = await list();
    expect(after.response.status).toBe(200);
    expect(rateHeaders(after).remaining).toBe("119");
  });

  test("limits are per account: another account is unaffected, and other groups of the same account too", async () => {
    await repeat(120, () => list(), 200);
    expectEnvelope(await list(), 429, "rate_limited");
    const other = await list(OTHER_KEY);
    expect(other.response.status).toBe(200);
    expect(rateHeaders(other).remaining).toBe("119");
    const patched = await patch({ short_description: "still writable" });
    expect(patched.response.status).toBe(200);
    expect(rateHeaders(patched)).toMatchObject({ limit: "60", remaining: "59" });
  });
});

describe("rate limits: POST /extensions (10 per hour)", () => {
  test("the 11th create in an hour is a 429 that creates nothing; another account can still create", async () => {
    const before = (await list()).data?.extensions.length ?? Number.NaN;
    for (let i = 1; i <= 10; i++) {
      const res = await create(`Burst ${i}`);
      expect(res.response.status).toBe(201);
      expect(rateHeaders(res)).toMatchObject({ limit: "10", remaining: String(10 - i) });
    }
    emu.clock.advance(600);
    const refused = await create("Burst 11");
    expectEnvelope(refused, 429, "rate_limited");
    expect(refused.response.headers.get("retry-after")).toBe("3000");
    expect((await list()).data?.extensions.length).toBe(before + 10);
    expect((await create("Other Burst", OTHER_KEY)).response.status).toBe(201);
    emu.clock.advance(3000);
    expect((await create("Burst 11")).response.status).toBe(201);
  });
});

describe("rate limits: DELETE endpoints (30 per minute)", () => {
  test("the 31st DELETE is refused and does nothing; error responses count too", async () => {
    await putSecret("KEEP", "v");
    await repeat(30, () => deleteSecret("MISSING"), 404);
    const refused = await deleteSecret("KEEP");
    expectEnvelope(refused, 429, "rate_limited");
    expect(refused.response.headers.get("retry-after")).toBe("60");
    expect(rateHeaders(refused)).toMatchObject({ limit: "30", remaining: "0" });
    expect((await emu.client.GET("/developer/v1/extensions/{id}/secrets", byId(extId))).data?.keys).toContain("KEEP");
  });
});

describe("rate limits: PUT and PATCH (shared, 60 per minute)", () => {
  test("PUT and PATCH count against one window", async () => {
    for (let i = 1; i <= 60; i++) {
      const res = i % 2 === 0 ? await putSecret("S", `v${i}`) : await patch({ short_description: `d${i}` });
      expect(res.response.status).toBe(i % 2 === 0 ? 204 : 200);
      expect(rateHeaders(res)).toMatchObject({ limit: "60", remaining: String(60 - i) });
    }
    expectEnvelope(await patch({ short_description: "no" }), 429, "rate_limited");
    expectEnvelope(await putSecret("S", "no"), 429, "rate_limited");
    expect((await get(extId)).data?.short_description).toBe("d59");
  });
});

describe("rate limits: POST /extensions/:id/versions (30 per hour)", () => {
  test("version submissions have their own window, apart from extension creation", async () => {
    const res = await developer("POST", `/extensions/${extId}/versions`, {
      body: "x",
      headers: { "content-type": "text/plain" },
    });
    expect(rateHeaders(res)).toMatchObject({ limit: "30", remaining: "29" });
    await repeat(
      29,
      () =>
        developer("POST", `/extensions/${extId}/versions`, { body: "x", headers: { "content-type": "text/plain" } }),
      res.status,
    );
    expectEnvelope(
      await developer("POST", `/extensions/${extId}/versions`, {
        body: "x",
        headers: { "content-type": "text/plain" },
      }),
      429,
      "rate_limited",
    );
    const created = await create("Not Blocked");
    expect(created.response.status).toBe(201);
    expect(rateHeaders(created)).toMatchObject({ limit: "10", remaining: "9" });
  });
});

describe("rate limits: only a request that reaches a route counts", () => {
  test("404s and 405s spend nothing; once the window is full an unknown route is still a 404, a wrong method a 405", async () => {
    await repeat(130, () => developer("GET", "/no-such-route"), 404);
    await repeat(70, () => developer("PUT", "/extensions", { json: {} }), 405);
    expect(rateHeaders(await list()).remaining).toBe("119");
    const patched = await patch({ name: "Rate Target" });
    expect(patched.response.status).toBe(200);
    expect(rateHeaders(patched).remaining).toBe("59");

    await repeat(119, () => get(extId), 200);
    expectEnvelope(await list(), 429, "rate_limited");
    const unknown = await developer("GET", `/extensions/${extId}/no-such-thing`);
    expectEnvelope(unknown, 404, "not_found");
    // Told where the window stands, without spending it.
    expect(rateHeaders(unknown)).toEqual({
      limit: "120",
      remaining: "0",
      reset: String(Math.ceil((t0 + 60_000) / 1000)),
    });
    expect((await developer("HEAD", "/no-such-route")).status).toBe(404);
    // Under /developer/v1 the key still comes first: without one, an unknown path is a 401.
    expectEnvelope(await developer("GET", "/no-such-route", { key: null }), 401, "unauthorized");
  });
});

describe("rate limits: X-RateLimit-* headers", () => {
  test("are on every authenticated response, errors included, and absent on a 401", async () => {
    const responses: [string, AnyResponse][] = [
      ["200 list", await list()],
      ["201 create", await create("Headers")],
      ["204 put", await putSecret("H", "v")],
      ["204 delete", await deleteSecret("H")],
      ["404 extension_not_found", await get("ext_missing")],
      ["404 secret_not_found", await deleteSecret("H")],
      ["404 not_found", await developer("GET", "/no-such-route")],
      ["405 method_not_allowed", await developer("PUT", `/extensions/${extId}`, { json: {} })],
      ["403 forbidden", await putSecret("H", "v", READ_KEY)],
      [
        "415 unsupported_media_type",
        await developer("PATCH", `/extensions/${extId}`, { body: "x", headers: { "content-type": "text/plain" } }),
      ],
      ["422 validation_error", await developer("PATCH", `/extensions/${extId}`, { json: { nope: 1 } })],
      ["limits path of the deploy tool", await emu.client.GET("/v1/developer/extensions/{id}/limits", byId(extId))],
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
    const unauthenticated = await list(null);
    expectEnvelope(unauthenticated, 401, "unauthorized");
    expect(rateHeaders(unauthenticated)).toEqual({ limit: null, remaining: null, reset: null });
  });

  test("with rate limits off, nothing is counted and no header is sent", async () => {
    emu.runtime.rateLimiter.setEnabled(false);
    try {
      await repeat(130, () => list(), 200);
      expect(rateHeaders(await list())).toEqual({ limit: null, remaining: null, reset: null });
    } finally {
      emu.runtime.rateLimiter.setEnabled(true);
    }
  });
});
