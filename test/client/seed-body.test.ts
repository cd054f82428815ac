/**
 * POST /_emulator/seed through the typed client takes a fixture as people write one (client/fixture.d.ts, the
 * helpers' fixture type): a field the format gives a default may be left out, and the server applies the
 * default. A value outside a field's choices is still a type error (checked by `npm run typecheck`).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { AdminClient } from "../../client";
import { startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(() => stopTestEmulator(emu));

async function misuse(admin: AdminClient): Promise<void> {
  await admin.POST("/_emulator/seed", {
    body: {
      accounts: [
        {
          id: "acc_x",
          name: "X",
          extensions: [
            {
              name: "x",
              // @ts-expect-error: "live" is not one of an extension's statuses
              status: "live",
            },
          ],
        },
      ],
    },
  });
}

test("a fixture without the defaulted fields (an extension's and a version's status, the clock's mode) loads with their defaults", async () => {
  // An extension with no version stays a draft; one whose version is approved (the default) is approved.
  expect(typeof misuse).toBe("function");
  const seeded = await emu.control.POST("/_emulator/seed", {
    body: {
      clock: { now: "2030-01-01T00:00:00.000Z" },
      accounts: [
        {
          id: "acc_typed",
          name: "Typed",
          apiKeys: [{ name: "ci", key: "ext_typed_seed_key_0123456789abcdefgh", scopes: ["*"] }],
          extensions: [
            { id: "ext_draft", name: "Draft Board" },
            { id: "ext_typed", name: "Typed Board", versions: [{ version: "1.0.0" }] },
          ],
        },
      ],
    },
  });
  expect(seeded.response.status).toBe(200);
  const clock = await emu.control.GET("/_emulator/clock");
  expect(clock.data).toMatchObject({ mode: "real" });
  const own = emu.clientFor("ext_typed_seed_key_0123456789abcdefgh");
  const status = async (id: string) =>
    (await own.GET("/developer/v1/extensions/{id}", { params: { path: { id } } })).data?.status;
  expect(await status("ext_draft")).toBe("draft");
  expect(await status("ext_typed")).toBe("approved");
  const versions = await own.GET("/developer/v1/extensions/{id}/versions", { params: { path: { id: "ext_typed" } } });
  expect(versions.data?.versions.map((v) => [v.version, v.status])).toEqual([["1.0.0", "approved"]]);
});
