import assert from "node:assert/strict";
import { test } from "node:test";
import { api, deploy, extensionDir, useEmulator } from "../emulator.js";

const emulator = useEmulator();

test("create an extension, deploy it, approve it, read its installs", async () => {
  const emu = emulator.current;
  const created = await api(emu, "/extensions", { method: "POST", body: JSON.stringify({ name: "Sound Board" }) });
  assert.equal(created.status, 201);
  const { extension } = await created.json();

  deploy(emu, extensionDir("1.0.0"), extension.id);
  const { versions } = await (await api(emu, `/extensions/${extension.id}/versions`)).json();
  assert.equal(versions.length, 1);
  assert.equal(versions[0].status, "pending");

  const reviewed = await emu.approveVersion(versions[0].id);
  assert.equal(reviewed.extension.status, "approved");
  assert.equal(reviewed.extension.currentVersionId, versions[0].id);

  const stats = await emu.addInstalls(extension.id, 3);
  const installs = await (await api(emu, `/extensions/${extension.id}/installs`)).json();
  assert.deepEqual(installs, stats);
  assert.equal(installs.active, 3);
});

test("each test starts from the fixture alone", async () => {
  const { extensions } = await (await api(emulator.current, "/extensions")).json();
  assert.deepEqual(extensions, []);
});
