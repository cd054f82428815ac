import { fileURLToPath } from "node:url";
import { ApiCallError, connectEmulator, unwrap } from "ext-emulator";
import { beforeEach, expect, inject, test } from "vitest";

// The emulator global-setup.ts started, reached from this test file's process.
const emulator = connectEmulator(inject("emulator"));
// A compiled extension as `ext deploy` takes it: manifest.json at its root.
const myExtension = fileURLToPath(new URL("./my-extension", import.meta.url));

beforeEach(() => emulator.reset());

test("create an extension, deploy it, approve it, read its installs", async () => {
  const extension = await emulator.createExtension({ name: "Sound Board" });
  expect(extension.status).toBe("draft");

  const version = await emulator.deploy(myExtension, {
    extensionId: extension.id,
    version: "1.0.0",
    changelog: "First release",
  });
  expect(version).toMatchObject({ version: "1.0.0", status: "pending" });

  const reviewed = await emulator.approveVersion(version.versionId);
  expect(reviewed.extension).toMatchObject({ status: "approved", currentVersionId: version.versionId });

  const added = await emulator.addInstalls(extension.id, 3);
  expect(added).toMatchObject({ total: 3, active: 3 });
  // The developer API itself, typed (paths, parameters, answers); unwrap() throws a refusal as an ApiCallError.
  const installs = unwrap(
    await emulator.client.GET("/developer/v1/extensions/{id}/installs", { params: { path: { id: extension.id } } }),
  );
  expect(installs.byVersion[version.versionId]).toBe(3);
});

test("a refusal is an ApiCallError with the API's status and code", async () => {
  const refused = emulator.approveVersion("ver_missing");
  await expect(refused).rejects.toBeInstanceOf(ApiCallError);
  await expect(refused).rejects.toMatchObject({ status: 404, code: "version_not_found" });
});

test("each test starts from the fixture alone", async () => {
  const { extensions } = unwrap(await emulator.client.GET("/developer/v1/extensions"));
  expect(extensions).toEqual([]);
});
