import { connectEmulator } from "ext-emulator";
import { beforeEach, expect, inject, test } from "vitest";
import { deploy, extensionDir } from "./deploy.js";

const env = inject("emulator");
const emulator = connectEmulator(env);
const api = (path: string, init: RequestInit = {}) =>
  fetch(emulator.baseUrl + path, {
    ...init,
    headers: { authorization: `Bearer ${emulator.apiKey}`, "content-type": "application/json" },
  });

beforeEach(() => emulator.reset());

test("create an extension, deploy it, approve it, read its installs", async () => {
  const created = await api("/extensions", { method: "POST", body: JSON.stringify({ name: "Sound Board" }) });
  expect(created.status).toBe(201);
  const { extension } = await created.json();

  deploy(env, extensionDir("1.0.0"), extension.id);
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
