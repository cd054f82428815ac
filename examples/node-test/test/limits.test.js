// Runs at the same time as deploy.test.js, against its own emulator.

import assert from "node:assert/strict";
import { test } from "node:test";
import { unwrap } from "ext-emulator";
import { useEmulator } from "../emulator.js";

const emulator = useEmulator({ rateLimits: false });

test("a limit override shows in the limits endpoint", async () => {
  const emu = emulator.current;
  const extension = await emu.createExtension({ name: "Big Board" });
  await emu.setOverride({ extensionId: extension.id }, { max_sounds_per_extension: 80 });
  const limits = unwrap(
    await emu.client.GET("/developer/v1/extensions/{id}/limits", { params: { path: { id: extension.id } } }),
  );
  assert.match(JSON.stringify(limits), /extension_override/);
});

test("an injected fault answers in the API's error envelope", async () => {
  const emu = emulator.current;
  await emu.injectFault({ method: "GET", path: "/extensions", status: 503, code: "maintenance", times: 1 });
  const faulted = await emu.client.GET("/developer/v1/extensions");
  assert.equal(faulted.response.status, 503);
  assert.equal(faulted.error.error.code, "maintenance");
  assert.equal((await emu.client.GET("/developer/v1/extensions")).response.status, 200);
  assert.deepEqual(
    (await emu.requests()).map((r) => r.status),
    [200, 503],
  );
});
