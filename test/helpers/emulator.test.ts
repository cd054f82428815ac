/** The harness's suite-wide secret search is itself tested, so it cannot pass by checking nothing. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { assertNoSecretValue, startTestEmulator, stopTestEmulator, type TestEmulator } from "./emulator";

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => stopTestEmulator(emu));

describe("test harness: secret values never come back", () => {
  test("a value PUT through the harness is searched for in every later response, body and headers", async () => {
    const id = (await emu.api("POST", "/extensions", { json: { name: "Harness Check" } })).body.extension.id;
    const value = `harness-secret-${crypto.randomUUID()}`;
    expect((await emu.api("PUT", `/extensions/${id}/secrets/HARNESS`, { json: { value } })).status).toBe(204);
    // The real responses pass…
    expect((await emu.api("GET", `/extensions/${id}/secrets`)).body.keys).toEqual(["HARNESS"]);
    // …and a response carrying the value, in its body or a header, fails.
    expect(() => assertNoSecretValue("GET /x", `{"leak":"${value}"}`, new Headers())).toThrow(/secret value/);
    expect(() => assertNoSecretValue("GET /x", "{}", new Headers({ "x-debug": value }))).toThrow(/secret value/);
    expect(() => assertNoSecretValue("GET /x", "{}", new Headers())).not.toThrow();
  });
});
