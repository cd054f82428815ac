const { connectEmulator } = require("ext-emulator");
const { deploy, extensionDir } = require("./deploy");

// EXT_BASE_URL, EXT_ADMIN_URL, EXT_API_KEY, EXT_ADMIN_TOKEN: set by global-setup.js.
const emulator = connectEmulator();
const api = (path, init = {}) =>
  fetch(emulator.baseUrl + path, {
    ...init,
    headers: { authorization: `Bearer ${emulator.apiKey}`, "content-type": "application/json" },
  });

beforeEach(() => emulator.reset());

test("create an extension, deploy it, approve it, read its installs", async () => {
  const created = await api("/extensions", { method: "POST", body: JSON.stringify({ name: "Sound Board" }) });
  expect(created.status).toBe(201);
  const { extension } = await created.json();

  deploy(extensionDir("1.0.0"), extension.id);
  const { versions } = await (await api(`/extensions/${extension.id}/versions`)).json();
  expect(versions).toHaveLength(1);
  expect(versions[0]).toMatchObject({ version: "1.0.0", status: "pending" });

  const reviewed = await emulator.approveVersion(versions[0].id);
  expect(reviewed.extension).toMatchObject({ status: "approved", currentVersionId: versions[0].id });

  await emulator.addInstalls(extension.id, 3);
  const installs = await (await api(`/extensions/${extension.id}/installs`)).json();
  expect(installs).toMatchObject({ total: 3, active: 3 });
});

test("each test starts from the fixture alone", async () => {
  const { extensions } = await (await api("/extensions")).json();
  expect(extensions).toEqual([]);
});
