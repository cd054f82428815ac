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
  await emu.control.POST("/_emulator/reset");
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

/**
 * Raw: the document types the seed's body by the model of what it answers (every defaulted field required),
 * so fixtures that lean on defaults, as these do, are not expressible through the typed client.
 */
const seed = (json: unknown) =>
  emu.rawRequest("POST", "/_emulator/seed", { key: emu.runtime.control.adminToken, json });
const badDate = () => emu.client.GET("/developer/v1/extensions/{id}", { params: { path: { id: "ext_bad_date" } } });

describe("timestamps of a seed are instants of the calendar, as the clock API requires", () => {
  test("clock.now with month 13 or year 0000 is the clock API's 422, and the clock does not move", async () => {
    const before = (await emu.control.GET("/_emulator/clock")).data;
    for (const now of ["2026-13-45T25:61:61.000Z", "0000-01-01T00:00:00.000Z"]) {
      const viaClock = expectEnvelope(
        await emu.control.POST("/_emulator/clock", { body: { set: now } }),
        422,
        "validation_error",
      );
      const res = await seed({ accounts: [], clock: { now } });
      const error = expectEnvelope(res, 422, "validation_error");
      // The clock API's own message, for the fixture's field.
      expect(error.details).toEqual([{ field: "clock.now", message: viaClock.message.replace(/^.*?set: /, "now: ") }]);
    }
    expect((await emu.control.GET("/_emulator/clock")).data?.offsetMs).toBe(before?.offsetMs);
  });

  test("an extension created on 2026-13-45 is refused, and the API keeps answering", async () => {
    const res = await seed(extensionAt("2026-13-45T99:99:99.000Z"));
    const error = expectEnvelope(res, 422, "validation_error");
    expect(error.details![0]).toEqual({
      field: "accounts[0].extensions[0].createdAt",
      message: "createdAt: 2026-13-45 is not a day of the calendar.",
    });
    expectEnvelope(await badDate(), 404, "extension_not_found");
    expect((await emu.client.GET("/developer/v1/extensions")).data?.extensions).toEqual([]);
  });

  test("February 31st is refused; February 29th of a leap year loads", async () => {
    const error = expectEnvelope(await seed(extensionAt("2026-02-31T10:00:00.000Z")), 422, "validation_error");
    expect(error.details![0]!.message).toBe("createdAt: 2026-02-31 is not a day of the calendar.");
    expect((await seed(extensionAt("2028-02-29T10:00:00.000Z"))).status).toBe(200);
    expect((await badDate()).data?.createdAt).toBe("2028-02-29T10:00:00.000Z");
  });

  test("a limit request created on 2026-13-45 is refused; the list keeps answering", async () => {
    const res = await seed(limitRequestAt("2026-13-45T99:99:99.000Z"));
    expect(expectEnvelope(res, 422, "validation_error").details![0]!.field).toBe(
      "accounts[0].limitRequests[0].createdAt",
    );
    const list = await emu.control.GET("/_emulator/limit-requests");
    expect(list.response.status).toBe(200);
    expect(list.data?.limitRequests).toEqual([]);
  });

  test("a time of day that does not exist is refused", async () => {
    const error = expectEnvelope(await seed(extensionAt("2026-01-01T24:00:00.000Z")), 422, "validation_error");
    expect(error.details![0]!.message).toBe("createdAt: 24:00:00 is not a time of day.");
  });
});

test("a seed refused for its clock is refused whole: its accounts are not committed", async () => {
  const res = await seed({
    clock: { now: "2030-13-45T99:99:99.999Z" },
    accounts: [{ id: "acc_x", name: "x" }],
  });
  expectEnvelope(res, 422, "validation_error");
  const keys = await emu.control.GET("/_emulator/accounts/{accountId}/keys", {
    params: { path: { accountId: "acc_x" } },
  });
  expectEnvelope(keys, 404, "account_not_found");
  expect((await emu.control.GET("/_emulator/state")).data?.counts.accounts).toBe(2);
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
    const accounts = fixture.accounts.map((a) => ({
      ...a,
      limitRequests: a.limitRequests.map((r) => ({ ...r, limits })),
    }));
    // Limit keys the document does not have: raw, as the typed client would not send them.
    const refused = await emu.rawRequest("POST", "/_emulator/seed", {
      key: emu.runtime.control.adminToken,
      json: { accounts },
    });
    const error = expectEnvelope(refused, 422, "validation_error");
    expect(error.details![0]!.field).toBe(`accounts[0].limitRequests[0].${field}`);
    expect(error.details![0]!.message).toStartWith(message);
  }
  expect((await emu.control.GET("/_emulator/limit-requests")).data?.limitRequests).toEqual([]);
});
