import assert from "node:assert/strict";
import { test } from "node:test";
import { ApiCallError, unwrap } from "ext-emulator";
import { myExtension, useEmulator } from "../emulator.js";

const emulator = useEmulator();

test("create an extension, deploy it, approve it, read its installs", async () => {
  const emu = emulator.current;
  const extension = await emu.createExtension({ name: "Sound Board" });
  assert.equal(extension.status, "draft");

  const version = await emu.deploy(myExtension, {
    extensionId: extension.id,
    version: "1.0.0",
    changelog: "First release",
  });
  assert.equal(version.status, "pending");

  const reviewed = await emu.approveVersion(version.versionId);
  assert.equal(reviewed.extension.status, "approved");
  assert.equal(reviewed.extension.currentVersionId, version.versionId);

  const added = await emu.addInstalls(extension.id, 3);
  // The developer API itself; unwrap() throws a refusal as an ApiCallError.
  const installs = unwrap(
    await emu.client.GET("/developer/v1/extensions/{id}/installs", { params: { path: { id: extension.id } } }),
  );
  assert.deepEqual(installs, added);
  assert.equal(installs.active, 3);
});

test("a refused deploy is an ApiCallError listing the bundle's problems", async () => {
  const emu = emulator.current;
  const extension = await emu.createExtension({ name: "Too Many Sounds" });
  await emu.setOverride({ extensionId: extension.id }, { max_sounds_per_extension: 0 });
  await assert.rejects(emu.deploy(myExtension, { extensionId: extension.id, version: "1.0.0" }), (error) => {
    assert.ok(error instanceof ApiCallError);
    assert.equal(error.status, 422);
    assert.equal(error.code, "bundle_invalid");
    assert.ok(error.details.some((problem) => problem.limit === "max_sounds_per_extension"));
    return true;
  });
});

test("each test starts from the fixture alone", async () => {
  const { extensions } = unwrap(await emulator.current.client.GET("/developer/v1/extensions"));
  assert.deepEqual(extensions, []);
});
