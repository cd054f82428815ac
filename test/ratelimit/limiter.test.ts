import { describe, expect, test } from "bun:test";
import { API_PREFIX } from "../../common/addresses";
import { EmulatorClock } from "../../server/base/clock";
import { ApiError } from "../../server/errors/api-error";
import { RouteTable } from "../../server/http/route-table";
import {
  POST_ROUTE_GROUPS,
  RATE_GROUPS,
  type RateGroup,
  RateLimiter,
  rateGroupOf,
} from "../../server/ratelimit/limiter";
import { everyRoute } from "../../server/start/app";
import { documentRuntime } from "../../server/start/document";

const T0 = 1_800_000_000_500; // half a second past a whole second: Reset must round up

function setup(enabled = true) {
  const clock = new EmulatorClock(() => T0);
  clock.freeze();
  return { clock, limiter: new RateLimiter(clock, enabled) };
}

function refusal(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error("expected a 429");
}

/** The app's own route table, as the developer API's gate reads it. */
const appRoutes = (await everyRoute(documentRuntime())).routes;
const index = new RouteTable();
index.add(appRoutes);

describe("rateGroupOf, on the route the app's table says a request reaches", () => {
  test.each([
    ["GET", "/developer/v1/extensions", "get"],
    ["HEAD", "/developer/v1/extensions/ext_1", "get"],
    ["GET", "/v1/developer/extensions/ext_1/limits", "get"],
    ["POST", "/developer/v1/extensions", "create_extension"],
    ["POST", "/developer/v1/extensions/", "create_extension"],
    ["POST", "/developer/v1/extensions/ext_1/versions", "submit_version"],
    ["POST", "/developer/v1/extensions/ext_1/versions/", "submit_version"],
    ["DELETE", "/developer/v1/extensions/ext_1", "delete"],
    ["DELETE", "/developer/v1/extensions/ext_1/secrets/A", "delete"],
    ["PUT", "/developer/v1/extensions/ext_1/secrets/A", "put_patch"],
    ["PATCH", "/developer/v1/extensions/ext_1", "put_patch"],
    ["POST", "/developer/v1/extensions/ext_1", null],
    ["POST", "/developer/v1/extensions/ext_1/secrets", null],
    ["OPTIONS", "/developer/v1/extensions", null],
    ["POST", "/v1/developer/extensions", null],
    ["POST", "/v1/developer/extensions/ext_1/versions", null],
    ["POST", "/developer/v1/nothing/extensions", null],
    ["POST", "/developer/v1/nothing/extensions/ext_1/versions", null],
  ] as const)("%s %s → %s", (method, path, group) => {
    expect(rateGroupOf(method, index.routeOf(method, path))).toBe(group as RateGroup | null);
  });

  test("the POST groups name routes of the app, and every developer-API POST route has its group", () => {
    const posts = appRoutes
      .filter((r) => r.method === "POST" && r.path.startsWith(`${API_PREFIX}/`))
      .map((r) => r.path)
      .sort();
    expect(Object.keys(POST_ROUTE_GROUPS).sort()).toEqual(posts);
  });

  test("the spec's table, plus PUT and PATCH sharing 60 per minute", () => {
    const table = Object.fromEntries(Object.entries(RATE_GROUPS).map(([g, v]) => [g, [v.limit, v.periodMs]]));
    expect(table).toEqual({
      get: [120, 60_000],
      create_extension: [10, 3_600_000],
      submit_version: [30, 3_600_000],
      delete: [30, 60_000],
      put_patch: [60, 60_000],
    });
  });
});

describe("RateLimiter.take", () => {
  test("counts down, then refuses with the true wait in whole seconds", () => {
    const { clock, limiter } = setup();
    const first = limiter.take("acc_a", "get")!;
    expect(first).toEqual({
      "X-RateLimit-Limit": "120",
      "X-RateLimit-Remaining": "119",
      "X-RateLimit-Reset": String(Math.ceil((T0 + 60_000) / 1000)),
    });
    for (let i = 2; i <= 120; i++) expect(limiter.take("acc_a", "get")!["X-RateLimit-Remaining"]).toBe(String(120 - i));
    clock.advance(17.25);
    const err = refusal(() => limiter.take("acc_a", "get"));
    expect([err.status, err.code]).toEqual([429, "rate_limited"]);
    // 60 - 17.25 = 42.75 s left: Retry-After rounds up, never down.
    expect(err.headers).toMatchObject({
      "Retry-After": "43",
      "X-RateLimit-Limit": "120",
      "X-RateLimit-Remaining": "0",
    });
  });

  test("a refused request consumes nothing and does not push the window out", () => {
    const { clock, limiter } = setup();
    for (let i = 0; i < 10; i++) limiter.take("acc_a", "create_extension");
    clock.advance(600);
    for (let i = 0; i < 5; i++)
      expect(refusal(() => limiter.take("acc_a", "create_extension")).headers?.["Retry-After"]).toBe("3000");
    clock.advance(2999.5);
    expect(refusal(() => limiter.take("acc_a", "create_extension")).headers?.["Retry-After"]).toBe("1");
    clock.advance(0.5);
    expect(limiter.take("acc_a", "create_extension")!["X-RateLimit-Remaining"]).toBe("9");
  });

  test("windows are per account and per group", () => {
    const { limiter } = setup();
    for (let i = 0; i < 30; i++) limiter.take("acc_a", "delete");
    refusal(() => limiter.take("acc_a", "delete"));
    expect(limiter.take("acc_b", "delete")!["X-RateLimit-Remaining"]).toBe("29");
    expect(limiter.take("acc_a", "put_patch")!["X-RateLimit-Remaining"]).toBe("59");
    expect(limiter.take("acc_a", "get")!["X-RateLimit-Remaining"]).toBe("119");
  });

  test("a clock moved back before the window's start opens a new window", () => {
    const { clock, limiter } = setup();
    for (let i = 0; i < 30; i++) limiter.take("acc_a", "submit_version");
    refusal(() => limiter.take("acc_a", "submit_version"));
    clock.advance(-1);
    expect(limiter.take("acc_a", "submit_version")!["X-RateLimit-Remaining"]).toBe("29");
  });

  test("disabled: nothing is counted and no headers are produced; clear() forgets every window", () => {
    const { limiter } = setup(false);
    for (let i = 0; i < 200; i++) expect(limiter.take("acc_a", "get")).toBeNull();
    limiter.setEnabled(true);
    for (let i = 0; i < 120; i++) limiter.take("acc_a", "get");
    refusal(() => limiter.take("acc_a", "get"));
    limiter.clear();
    expect(limiter.take("acc_a", "get")!["X-RateLimit-Remaining"]).toBe("119");
  });
});

describe("RateLimiter.peek", () => {
  test("tells where the window stands without counting, and never refuses, even when the window is full", () => {
    const { clock, limiter } = setup();
    const reset = String(Math.ceil((T0 + 60_000) / 1000));
    expect(limiter.peek("acc", "get")).toEqual({
      "X-RateLimit-Limit": "120",
      "X-RateLimit-Remaining": "120",
      "X-RateLimit-Reset": reset,
    });
    limiter.take("acc", "get");
    clock.advance(10);
    expect(limiter.peek("acc", "get")?.["X-RateLimit-Remaining"]).toBe("119");
    expect(limiter.take("acc", "get")?.["X-RateLimit-Remaining"]).toBe("118");
    for (let i = 0; i < 118; i++) limiter.take("acc", "get");
    expect(limiter.peek("acc", "get")).toEqual({
      "X-RateLimit-Limit": "120",
      "X-RateLimit-Remaining": "0",
      "X-RateLimit-Reset": reset,
    });
    expect(refusal(() => limiter.take("acc", "get")).status).toBe(429);
    expect(setup(false).limiter.peek("acc", "get")).toBeNull();
  });
});
