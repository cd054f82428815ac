/** The harness's suite-wide secret search is itself tested, so it cannot pass by checking nothing. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  assertNoSecretValue,
  DEMO_KEY,
  OTHER_KEY,
  startTestEmulator,
  stopTestEmulator,
  type TestEmulator,
} from "./emulator";

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => stopTestEmulator(emu));

async function createExtension(name: string): Promise<string> {
  const { data } = await emu.client.POST("/developer/v1/extensions", { body: { name } });
  if (!data) throw new Error("the extension was not created");
  return data.extension.id;
}

describe("test harness: secret values never come back", () => {
  test("a value PUT through the typed client is searched for in every later response, body and headers", async () => {
    const id = await createExtension("Harness Check");
    const value = `harness-secret-${crypto.randomUUID()}`;
    const put = await emu.client.PUT("/developer/v1/extensions/{id}/secrets/{key}", {
      params: { path: { id, key: "HARNESS" } },
      body: { value },
    });
    expect(put.response.status).toBe(204);
    // The real responses pass…
    const listed = await emu.client.GET("/developer/v1/extensions/{id}/secrets", { params: { path: { id } } });
    expect(listed.data?.keys).toEqual(["HARNESS"]);
    // …and a response carrying the value, in its body or a header, fails.
    expect(() => assertNoSecretValue("GET /x", `{"leak":"${value}"}`, new Headers())).toThrow(/secret value/);
    expect(() => assertNoSecretValue("GET /x", "{}", new Headers({ "x-debug": value }))).toThrow(/secret value/);
    expect(() => assertNoSecretValue("GET /x", "{}", new Headers())).not.toThrow();
  });

  test("a value PUT through the raw escape hatch is remembered too", async () => {
    const id = await createExtension("Harness Raw");
    const value = `harness-raw-${crypto.randomUUID()}`;
    const put = await emu.rawRequest("PUT", `/developer/v1/extensions/${id}/secrets/RAW`, {
      key: DEMO_KEY,
      json: { value },
    });
    expect(put.status).toBe(204);
    expect(() => assertNoSecretValue("GET /x", `{"leak":"${value}"}`, new Headers())).toThrow(/secret value/);
  });
});

describe("test harness: the typed clients", () => {
  test("clientFor acts with the key it is given, and with none for null", async () => {
    expect((await emu.clientFor(OTHER_KEY).GET("/developer/v1/extensions")).response.status).toBe(200);
    expect((await emu.clientFor(null).GET("/developer/v1/extensions")).response.status).toBe(401);
    expect(emu.clientFor(OTHER_KEY)).toBe(emu.clientFor(OTHER_KEY));
  });

  test("control acts with the admin token; rawRequest sends no key unless told", async () => {
    expect((await emu.control.GET("/_emulator/state")).response.status).toBe(200);
    expect((await emu.rawRequest("GET", "/_emulator/state")).status).toBe(401);
  });
});

describe("test harness: the typed clients and a stream", () => {
  test("the request log's stream opens through the control client (its body is not read to the end first)", async () => {
    const opened = await emu.control.GET("/_emulator/requests/stream", { parseAs: "stream" });
    expect(opened.response.status).toBe(200);
    expect(opened.response.headers.get("content-type")).toStartWith("text/event-stream");
    await opened.response.body?.cancel();
  });
});
