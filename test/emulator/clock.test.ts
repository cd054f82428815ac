/** GET/POST /_emulator/clock: timestamps and rate-limit windows follow the emulator's time. */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { expectEnvelope, startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";

let emu: TestEmulator;

beforeAll(async () => {
  emu = await startTestEmulator({ config: { rateLimits: true } });
});
afterAll(() => stopTestEmulator(emu));
beforeEach(async () => {
  await emu.admin("POST", "/reset");
});

describe("POST /_emulator/clock", () => {
  test("a day the calendar does not have is refused, not rolled over to the next month", async () => {
    const before = (await emu.admin("GET", "/clock")).body;
    for (const set of ["2030-02-30T00:00:00Z", "2031-02-29T12:00:00.000Z", "2030-04-31T00:00:00+02:00"]) {
      const res = await emu.admin("POST", "/clock", { set });
      const error = expectEnvelope(res, 422, "validation_error");
      expect(error.message).toBe(`Request failed validation: set: ${set.slice(0, 10)} is not a day of the calendar.`);
    }
    expect((await emu.admin("GET", "/clock")).body.offsetMs).toBe(before.offsetMs);
    // A leap day is a day.
    expect((await emu.admin("POST", "/clock", { set: "2032-02-29T00:00:00.000Z" })).body.now).toBe(
      "2032-02-29T00:00:00.000Z",
    );
  });

  test("advancing the clock an hour lets the 11th extension through", async () => {
    // Frozen, so every instant below is the emulator's and exact: nothing is compared with the machine's time.
    const start = Date.parse(
      (await emu.admin("POST", "/clock", { set: "2030-05-01T10:00:00.000Z", freeze: true })).body.now,
    );
    for (let i = 1; i <= 10; i++)
      expect((await emu.api("POST", "/extensions", { json: { name: `Ext ${i}` } })).status).toBe(201);
    const refused = await emu.api("POST", "/extensions", { json: { name: "Ext 11" } });
    expectEnvelope(refused, 429, "rate_limited");
    expect(Number(refused.headers.get("retry-after"))).toBe(3600);
    const moved = await emu.admin("POST", "/clock", { advanceSeconds: 3600 });
    expect(moved.status).toBe(200);
    const created = await emu.api("POST", "/extensions", { json: { name: "Ext 11" } });
    expect(created.status).toBe(201);
    // Its timestamp moved the same hour.
    expect(Date.parse(created.body.extension.createdAt) - start).toBe(3_600_000);
  });

  test("set + freeze pins time; advance moves a frozen clock; mode real returns to the machine's time", async () => {
    const pinned = await emu.admin("POST", "/clock", { set: "2030-01-01T00:00:00.000Z", freeze: true });
    expect(pinned.body).toMatchObject({ now: "2030-01-01T00:00:00.000Z", mode: "frozen" });
    const created = await emu.api("POST", "/extensions", { json: { name: "Pinned" } });
    expect(created.body.extension.createdAt).toBe("2030-01-01T00:00:00.000Z");
    expect((await emu.admin("POST", "/clock", { advanceSeconds: 90 })).body).toMatchObject({
      now: "2030-01-01T00:01:30.000Z",
      mode: "frozen",
    });
    expect((await emu.admin("GET", "/clock")).body.now).toBe("2030-01-01T00:01:30.000Z");
    const real = await emu.admin("POST", "/clock", { mode: "real" });
    expect(real.body.mode).toBe("real");
    // The offset of four years and more is dropped (the bound only absorbs the two reads of real time).
    expect(Math.abs(real.body.offsetMs)).toBeLessThan(60_000);
    expect(real.body.now.startsWith("2030-01-01")).toBe(false);
  });

  test("mode frozen stops the clock where it is; set without freeze keeps it running", async () => {
    const frozen = (await emu.admin("POST", "/clock", { mode: "frozen" })).body;
    expect(frozen.mode).toBe("frozen");
    await Bun.sleep(5);
    expect((await emu.admin("GET", "/clock")).body.now).toBe(frozen.now);
    const running = (await emu.admin("POST", "/clock", { set: "2031-06-01T12:00:00.000Z" })).body;
    expect(running.mode).toBe("real");
    expect(running.now.startsWith("2031-06-01T12:00")).toBe(true);
  });

  test("anything but exactly one operation is a 422", async () => {
    for (const body of [
      {},
      { advanceSeconds: 1, mode: "real" },
      { freeze: true },
      { mode: "paused" },
      { set: "yesterday" },
      { advanceSeconds: "60" },
    ]) {
      expectEnvelope(await emu.admin("POST", "/clock", body), 422, "validation_error");
    }
    expect((await emu.admin("GET", "/clock")).body.mode).toBe("real");
  });

  test("a value that would leave 1970-01-01 … 9999-12-31 is a 422 and changes nothing; the API keeps working", async () => {
    const pinned = (await emu.admin("POST", "/clock", { set: "2030-01-01T00:00:00.000Z", freeze: true })).body;
    const refused = [
      { advanceSeconds: 1e300 },
      { advanceSeconds: -1e15 },
      { advanceSeconds: -2_000_000_000 },
      { advanceSeconds: Number.MAX_VALUE },
      { set: "1969-12-31T23:59:59.999Z" },
      { set: "+010000-01-01T00:00:00.000Z" },
    ];
    for (const body of refused) {
      const res = await emu.admin("POST", "/clock", body);
      expectEnvelope(res, 422, "validation_error");
      expect((await emu.admin("GET", "/clock")).body).toMatchObject({ now: pinned.now, mode: "frozen" });
    }
    // The largest instant is allowed; one more millisecond from there is not.
    const last = await emu.admin("POST", "/clock", { set: "9999-12-31T23:59:59.999Z", freeze: true });
    expect(last.body.now).toBe("9999-12-31T23:59:59.999Z");
    expectEnvelope(await emu.admin("POST", "/clock", { advanceSeconds: 0.001 }), 422, "validation_error");
    expectEnvelope(await emu.admin("POST", "/clock", { advanceSeconds: 1 }), 422, "validation_error");
    expect((await emu.admin("GET", "/clock")).body.now).toBe("9999-12-31T23:59:59.999Z");
    // Everything that stamps or lists time still answers.
    expect((await emu.api("POST", "/extensions", { json: { name: "At the end of time" } })).status).toBe(201);
    expect((await emu.admin("GET", "/state")).status).toBe(200);
    expect((await emu.admin("GET", "/requests")).status).toBe(200);
    // The first instant is allowed too, and nothing goes before it.
    expect((await emu.admin("POST", "/clock", { set: "1970-01-01T00:00:00.000Z", freeze: true })).body.now).toBe(
      "1970-01-01T00:00:00.000Z",
    );
    expectEnvelope(await emu.admin("POST", "/clock", { advanceSeconds: -0.001 }), 422, "validation_error");
  });

  test("a running clock set to the last instant stops there instead of running past it", async () => {
    const running = await emu.admin("POST", "/clock", { set: "9999-12-31T23:59:59.999Z" });
    expect(running.body.mode).toBe("real");
    await Bun.sleep(5);
    expect((await emu.admin("GET", "/clock")).body.now).toBe("9999-12-31T23:59:59.999Z");
    expect((await emu.api("POST", "/extensions", { json: { name: "Still running" } })).status).toBe(201);
  });
});
