// Runs at the same time as deploy.test.js, against its own emulator.

import assert from "node:assert/strict";
import { test } from "node:test";
import { api, useEmulator } from "../emulator.js";

const emulator = useEmulator({ rateLimits: false });

test("a limit override shows in the limits endpoint", async () => {
  const emu = emulator.current;
  const { extension } = await (
    await api(emu, "/extensions", { method: "POST", body: JSON.stringify({ name: "Big Board" }) })
  ).json();
  await emu.setOverride({ extensionId: extension.id }, { max_sounds_per_extension: 80 });
  const limits = await (await api(emu, `/extensions/${extension.id}/limits`)).json();
  assert.match(JSON.stringify(limits), /extension_override/);
});

test("an injected fault answers in the API's error envelope", async () => {
  const emu = emulator.current;
  await emu.injectFault({ method: "GET", path: "/extensions", status: 503, code: "maintenance", times: 1 });
  const res = await api(emu, "/extensions");
  assert.equal(res.status, 503);
  assert.equal((await res.json()).error.code, "maintenance");
  assert.equal((await api(emu, "/extensions")).status, 200);
  assert.deepEqual(
    (await emu.requests()).map((r) => r.status),
    [200, 503],
  );
});
