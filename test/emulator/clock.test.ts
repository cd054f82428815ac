/** GET/POST /_emulator/clock: timestamps and rate-limit windows follow the emulator's time. */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import type { ClockChange } from "../../client";
import { expectEnvelope, startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";

let emu: TestEmulator;

beforeAll(async () => {
  emu = await startTestEmulator({ config: { rateLimits: true } });
});
afterAll(() => stopTestEmulator(emu));
beforeEach(async () => {
  await emu.control.POST("/_emulator/reset");
});

const clock = async () => (await emu.control.GET("/_emulator/clock")).data;
const setClock = (body: ClockChange) => emu.control.POST("/_emulator/clock", { body });
const create = (name: string) => emu.client.POST("/developer/v1/extensions", { body: { name } });

describe("POST /_emulator/clock", () => {
  test("a day the calendar does not have is refused, not rolled over to the next month", async () => {
    const before = await clock();
    for (const set of ["2030-02-30T00:00:00Z", "2031-02-29T12:00:00.000Z", "2030-04-31T00:00:00+02:00"]) {
      const res = await setClock({ set });
      const error = expectEnvelope(res, 422, "validation_error");
      expect(error.message).toBe(`Request failed validation: set: ${set.slice(0, 10)} is not a day of the calendar.`);
    }
    expect((await clock())?.offsetMs).toBe(before?.offsetMs);
    // A leap day is a day.
    // Frozen, so the answer is the instant set, not a millisecond the running clock has moved on since.
    expect((await setClock({ set: "2032-02-29T00:00:00.000Z", freeze: true })).data?.now).toBe(
      "2032-02-29T00:00:00.000Z",
    );
  });

  test("advancing the clock an hour lets the 11th extension through", async () => {
    // Frozen, so every instant below is the emulator's and exact: nothing is compared with the machine's time.
    const start = Date.parse((await setClock({ set: "2030-05-01T10:00:00.000Z", freeze: true })).data?.now ?? "");
    for (let i = 1; i <= 10; i++) expect((await create(`Ext ${i}`)).response.status).toBe(201);
    const refused = await create("Ext 11");
    expectEnvelope(refused, 429, "rate_limited");
    expect(Number(refused.response.headers.get("retry-after"))).toBe(3600);
    const moved = await setClock({ advanceSeconds: 3600 });
    expect(moved.response.status).toBe(200);
    const created = await create("Ext 11");
    expect(created.response.status).toBe(201);
    // Its timestamp moved the same hour.
    expect(Date.parse(created.data?.extension.createdAt ?? "") - start).toBe(3_600_000);
  });

  test("set + freeze pins time; advance moves a frozen clock; mode real returns to the machine's time", async () => {
    const pinned = await setClock({ set: "2030-01-01T00:00:00.000Z", freeze: true });
    expect(pinned.data).toMatchObject({ now: "2030-01-01T00:00:00.000Z", mode: "frozen" });
    const created = await create("Pinned");
    expect(created.data?.extension.createdAt).toBe("2030-01-01T00:00:00.000Z");
    expect((await setClock({ advanceSeconds: 90 })).data).toMatchObject({
      now: "2030-01-01T00:01:30.000Z",
      mode: "frozen",
    });
    expect((await clock())?.now).toBe("2030-01-01T00:01:30.000Z");
    const real = (await setClock({ mode: "real" })).data;
    expect(real?.mode).toBe("real");
    // The offset of four years and more is dropped (the bound only absorbs the two reads of real time).
    expect(Math.abs(real?.offsetMs ?? Number.NaN)).toBeLessThan(60_000);
    expect(real?.now.startsWith("2030-01-01")).toBe(false);
  });

  test("mode frozen stops the clock where it is; set without freeze keeps it running", async () => {
    const frozen = (await setClock({ mode: "frozen" })).data;
    expect(frozen?.mode).toBe("frozen");
    await Bun.sleep(5);
    expect((await clock())?.now).toBe(frozen?.now);
    const running = (await setClock({ set: "2031-06-01T12:00:00.000Z" })).data;
    expect(running?.mode).toBe("real");
    expect(running?.now.startsWith("2031-06-01T12:00")).toBe(true);
  });

  test("anything but exactly one operation is a 422", async () => {
    const bodies: ClockChange[] = [{}, { advanceSeconds: 1, mode: "real" }, { freeze: true }, { set: "yesterday" }];
    for (const body of bodies) expectEnvelope(await setClock(body), 422, "validation_error");
    // Values of the wrong type or outside the enum: raw, as the typed client would not send them.
    for (const json of [{ mode: "paused" }, { advanceSeconds: "60" }]) {
      const res = await emu.rawRequest("POST", "/_emulator/clock", { key: emu.runtime.control.adminToken, json });
      expectEnvelope(res, 422, "validation_error");
    }
    expect((await clock())?.mode).toBe("real");
  });

  test("a value that would leave 1970-01-01 … 9999-12-31 is a 422 and changes nothing; the API keeps working", async () => {
    const pinned = (await setClock({ set: "2030-01-01T00:00:00.000Z", freeze: true })).data;
    const refused: ClockChange[] = [
      { advanceSeconds: 1e300 },
      { advanceSeconds: -1e15 },
      { advanceSeconds: -2_000_000_000 },
      { advanceSeconds: Number.MAX_VALUE },
      { set: "1969-12-31T23:59:59.999Z" },
      { set: "+010000-01-01T00:00:00.000Z" },
    ];
    for (const body of refused) {
      expectEnvelope(await setClock(body), 422, "validation_error");
      expect(await clock()).toMatchObject({ now: pinned?.now, mode: "frozen" });
    }
    // The largest instant is allowed; one more millisecond from there is not.
    const last = await setClock({ set: "9999-12-31T23:59:59.999Z", freeze: true });
    expect(last.data?.now).toBe("9999-12-31T23:59:59.999Z");
    expectEnvelope(await setClock({ advanceSeconds: 0.001 }), 422, "validation_error");
    expectEnvelope(await setClock({ advanceSeconds: 1 }), 422, "validation_error");
    expect((await clock())?.now).toBe("9999-12-31T23:59:59.999Z");
    // Everything that stamps or lists time still answers.
    expect((await create("At the end of time")).response.status).toBe(201);
    expect((await emu.control.GET("/_emulator/state")).response.status).toBe(200);
    expect((await emu.control.GET("/_emulator/requests")).response.status).toBe(200);
    // The first instant is allowed too, and nothing goes before it.
    expect((await setClock({ set: "1970-01-01T00:00:00.000Z", freeze: true })).data?.now).toBe(
      "1970-01-01T00:00:00.000Z",
    );
    expectEnvelope(await setClock({ advanceSeconds: -0.001 }), 422, "validation_error");
  });

  test("a running clock set to the last instant stops there instead of running past it", async () => {
    const running = await setClock({ set: "9999-12-31T23:59:59.999Z" });
    expect(running.data?.mode).toBe("real");
    await Bun.sleep(5);
    expect((await clock())?.now).toBe("9999-12-31T23:59:59.999Z");
    expect((await create("Still running")).response.status).toBe(201);
  });
});
