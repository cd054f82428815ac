/**
 * The request lifecycle rests on Elysia's public hooks only: no `.wrap` (private in Elysia's types) anywhere
 * in the server, and every answer — a route's, an error raised before routing, an injected fault — reaches
 * the request log with its final status.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { DEMO_KEY, startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";

const SRC = resolve(import.meta.dir, "../../server");

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => stopTestEmulator(emu));

test("no source file under server/ calls Elysia's private .wrap", () => {
  const offenders = (readdirSync(SRC, { recursive: true }) as string[])
    .filter((f) => f.endsWith(".ts"))
    .filter((f) => /\.wrap\(/.test(readFileSync(join(SRC, f), "utf8")));
  expect(offenders).toEqual([]);
});

test("the request log sees the final status of a route, an unknown path, a refused key and a fault", async () => {
  await emu.control.POST("/_emulator/reset");
  await emu.control.POST("/_emulator/faults", { body: { method: "GET", path: "/extensions", status: 429, times: 1 } });
  const statuses = [
    (await emu.client.GET("/developer/v1/extensions")).response.status,
    (await emu.client.GET("/developer/v1/extensions")).response.status,
    // A path outside the document.
    (await emu.rawRequest("GET", "/developer/v1/no-such-route", { key: DEMO_KEY })).status,
    (await emu.clientFor("ext_unknown_key_0123456789abcdefghij").GET("/developer/v1/extensions")).response.status,
  ];
  expect(statuses).toEqual([429, 200, 404, 401]);
  const logged = (await emu.control.GET("/_emulator/requests")).data?.requests.map((e) => e.status) ?? [];
  expect(logged.reverse()).toEqual(statuses);
});
