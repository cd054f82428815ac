/**
 * What an outside fuzzer found the seed door letting through: timestamps that match the pattern but are no
 * instant of the calendar, and a refused load that still committed part of itself. Each is refused as
 * POST /_emulator/clock refuses it (a 422 with the clock's own message) and leaves nothing behind.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { expectEnvelope, startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => stopTestEmulator(emu));
beforeEach(async () => {
  await emu.admin("POST", "/reset");
});

const extensionAt = (createdAt: string) => ({
  accounts: [{ id: "acc_test", name: "Test Developer", extensions: [{ id: "ext_bad_date", name: "Bad", createdAt }] }],
});
const limitRequestAt = (createdAt: string) => ({
  accounts: [
    {
      id: "acc_test",
      name: "Test Developer",
      limitRequests: [
        {
          id: "req_bad_date",
          scope: "account",
          limits: { max_api_keys: 30 },
          reason: "we need more keys for our CI runners",
          status: "pending",
          createdAt,
        },
      ],
    },
  ],
});

describe("timestamps of a seed are instants of the calendar, as the clock API requires", () => {
  test("clock.now with month 13 or year 0000 is the clock API's 422, and the clock does not move", async () => {
    const before = (await emu.admin("GET", "/clock")).body;
    for (const now of ["2026-13-45T25:61:61.000Z", "0000-01-01T00:00:00.000Z"]) {
      const viaClock = expectEnvelope(await emu.admin("POST", "/clock", { set: now }), 422, "validation_error");
      const res = await emu.admin("POST", "/seed", { accounts: [], clock: { now } });
      const error = expectEnvelope(res, 422, "validation_error");
      // The clock API's own message, for the fixture's field.
      expect(error.details).toEqual([{ field: "clock.now", message: viaClock.message.replace(/^.*?set: /, "now: ") }]);
    }
    expect((await emu.admin("GET", "/clock")).body.offsetMs).toBe(before.offsetMs);
  });

  test("an extension created on 2026-13-45 is refused, and the API keeps answering", async () => {
    const res = await emu.admin("POST", "/seed", extensionAt("2026-13-45T99:99:99.000Z"));
    const error = expectEnvelope(res, 422, "validation_error");
    expect(error.details![0]).toEqual({
      field: "accounts[0].extensions[0].createdAt",
      message: "createdAt: 2026-13-45 is not a day of the calendar.",
    });
    expectEnvelope(await emu.api("GET", "/extensions/ext_bad_date"), 404, "extension_not_found");
    expect((await emu.api("GET", "/extensions")).body.extensions).toEqual([]);
  });

  test("February 31st is refused; February 29th of a leap year loads", async () => {
    const error = expectEnvelope(
      await emu.admin("POST", "/seed", extensionAt("2026-02-31T10:00:00.000Z")),
      422,
      "validation_error",
    );
    expect(error.details![0]!.message).toBe("createdAt: 2026-02-31 is not a day of the calendar.");
    expect((await emu.admin("POST", "/seed", extensionAt("2028-02-29T10:00:00.000Z"))).status).toBe(200);
    expect((await emu.api("GET", "/extensions/ext_bad_date")).body.createdAt).toBe("2028-02-29T10:00:00.000Z");
  });

  test("a limit request created on 2026-13-45 is refused; the list keeps answering", async () => {
    const res = await emu.admin("POST", "/seed", limitRequestAt("2026-13-45T99:99:99.000Z"));
    expect(expectEnvelope(res, 422, "validation_error").details![0]!.field).toBe(
      "accounts[0].limitRequests[0].createdAt",
    );
    const list = await emu.admin("GET", "/limit-requests");
    expect(list.status).toBe(200);
    expect(list.body.limitRequests).toEqual([]);
  });

  test("a time of day that does not exist is refused", async () => {
    const error = expectEnvelope(
      await emu.admin("POST", "/seed", extensionAt("2026-01-01T24:00:00.000Z")),
      422,
      "validation_error",
    );
    expect(error.details![0]!.message).toBe("createdAt: 24:00:00 is not a time of day.");
  });
});

test("a seed refused for its clock is refused whole: its accounts are not committed", async () => {
  const res = await emu.admin("POST", "/seed", {
    clock: { now: "2030-13-45T99:99:99.999Z" },
    accounts: [{ id: "acc_x", name: "x" }],
  });
  expectEnvelope(res, 422, "validation_error");
  expectEnvelope(await emu.admin("GET", "/accounts/acc_x/keys"), 404, "account_not_found");
  expect((await emu.admin("GET", "/state")).body.counts.accounts).toBe(2);
});

test("a seeded limit request is held to the limit catalogue: nothing an admin could approve into an override", async () => {
  for (const [limits, field, message] of [
    [JSON.parse('{"__proto__": 30}'), "limits.__proto__", "__proto__ is not a known limit key"],
    [{ max_widgets: 30 }, "limits.max_widgets", "max_widgets is not a known limit key"],
    [
      { max_versions_per_extension: 900 },
      "limits.max_versions_per_extension",
      "max_versions_per_extension cannot exceed its hard limit of 500 (got 900)",
    ],
  ] as const) {
    const fixture = limitRequestAt("2030-01-01T00:00:00.000Z");
    fixture.accounts[0]!.limitRequests[0]!.limits = limits as never;
    const error = expectEnvelope(await emu.admin("POST", "/seed", fixture), 422, "validation_error");
    expect(error.details![0]!.field).toBe(`accounts[0].limitRequests[0].${field}`);
    expect(error.details![0]!.message).toStartWith(message);
  }
  expect((await emu.admin("GET", "/limit-requests")).body.limitRequests).toEqual([]);
});
