/**
 * What the hot writes (PATCH of an extension, PUT of an existing secret) must keep doing, whatever statements
 * they are made of: a write answers with the row as it now is (its install count, its listing), refuses
 * another account's extension without touching its rows, and every commit that changes keys is seen by the
 * very next request, through whichever door it came. How many statements a write costs is the bench's
 * concern (the fair write ceiling, `npm run bench`), not this file's.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { secrets } from "../../server/db/schema";
import { bundleDir, createExtension, uploadVersion } from "../helpers/bundles";
import { expectEnvelope, OTHER_KEY, startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";

let emu: TestEmulator;
const bundles = bundleDir();
afterAll(async () => {
  await stopTestEmulator(emu);
  bundles.cleanup();
});
beforeAll(async () => {
  emu = await startTestEmulator();
});

const ids = (id: string) => ({ params: { path: { id } } });
const secretPath = (id: string, key: string) => ({ params: { path: { id, key } } });
const secretRows = (extensionId: string) =>
  emu.runtime.db.select().from(secrets).where(eq(secrets.extensionId, extensionId)).all();

describe("PATCH /extensions/:id", () => {
  test("answers with the row as it now is: the change, the install count, the listing it caused", async () => {
    const id = await createExtension(emu, "Patched");
    const tiny = await bundles.make([{ name: "manifest.json", data: "{}" }]);
    const submitted = await uploadVersion(emu, id, { version: "1", bundle: tiny });
    const versionId = submitted.data?.version.id ?? "";
    expect(
      (await emu.control.POST("/_emulator/versions/{versionId}/approve", { params: { path: { versionId } } })).response
        .status,
    ).toBe(200);
    const installed = await emu.control.POST("/_emulator/extensions/{id}/installs", { ...ids(id), body: { count: 3 } });
    expect(installed.response.status).toBe(200);

    for (let i = 0; i < 3; i++) {
      const patched = await emu.client.PATCH("/developer/v1/extensions/{id}", {
        ...ids(id),
        body: { description: `changed ${i}` },
      });
      expect(patched.response.status).toBe(200);
      expect(patched.data).toMatchObject({ id, description: `changed ${i}`, installCount: 3 });
    }
    // Made public with an approved version: listed, for good.
    expect(
      (await emu.client.PATCH("/developer/v1/extensions/{id}", { ...ids(id), body: { visibility: "public" } })).response
        .status,
    ).toBe(200);
    expectEnvelope(await emu.client.DELETE("/developer/v1/extensions/{id}", ids(id)), 409, "extension_listed");
  });

  test("another account's extension is a 404 and is left as it was", async () => {
    const id = await createExtension(emu, "Not Theirs");
    const before = (await emu.client.GET("/developer/v1/extensions/{id}", ids(id))).data;
    const refused = await emu.clientFor(OTHER_KEY).PATCH("/developer/v1/extensions/{id}", {
      ...ids(id),
      body: { description: "taken over" },
    });
    expectEnvelope(refused, 404, "extension_not_found");
    expect((await emu.client.GET("/developer/v1/extensions/{id}", ids(id))).data).toEqual(before);
  });
});

describe("PUT /extensions/:id/secrets/:key of an existing secret", () => {
  test("replaces the value in place, as often as asked", async () => {
    const id = await createExtension(emu, "Secret Kept");
    for (let i = 0; i < 3; i++) {
      const put = await emu.client.PUT("/developer/v1/extensions/{id}/secrets/{key}", {
        ...secretPath(id, "API_TOKEN"),
        body: { value: `hot-write-value-${i}` },
      });
      expect(put.response.status).toBe(204);
    }
    expect((await emu.client.GET("/developer/v1/extensions/{id}/secrets", ids(id))).data).toEqual({
      keys: ["API_TOKEN"],
    });
    expect(secretRows(id)).toHaveLength(1);
  });

  test("another account's extension is a 404 and its stored secret is not touched", async () => {
    const id = await createExtension(emu, "Secret Not Theirs");
    expect(
      (
        await emu.client.PUT("/developer/v1/extensions/{id}/secrets/{key}", {
          ...secretPath(id, "API_TOKEN"),
          body: { value: "hot-write-owner-value" },
        })
      ).response.status,
    ).toBe(204);
    const before = secretRows(id);
    const refused = await emu.clientFor(OTHER_KEY).PUT("/developer/v1/extensions/{id}/secrets/{key}", {
      ...secretPath(id, "API_TOKEN"),
      body: { value: "hot-write-intruder-value" },
    });
    expectEnvelope(refused, 404, "extension_not_found");
    expect(secretRows(id)).toEqual(before);
  });
});

describe("a commit that changes keys is seen by the very next request", () => {
  const newKey = async () => {
    const created = await emu.control.POST("/_emulator/accounts/{accountId}/keys", {
      params: { path: { accountId: "acc_test" } },
      body: { name: `hot-${crypto.randomUUID().slice(0, 8)}`, scopes: ["*"] },
    });
    if (!created.data) throw new Error(`no key: ${JSON.stringify(created.error)}`);
    const key = created.data.plaintext;
    // Used once, so whatever the server keeps of it is warm.
    expect((await emu.clientFor(key).GET("/developer/v1/extensions")).response.status).toBe(200);
    return key;
  };

  test("a reset: a key made after the seed is refused at once", async () => {
    const key = await newKey();
    expect((await emu.control.POST("/_emulator/reset", {})).response.status).toBe(200);
    expectEnvelope(await emu.clientFor(key).GET("/developer/v1/extensions"), 401, "unauthorized");
  });

  test("a restore: a key made after the snapshot is refused at once", async () => {
    const snapshot = await emu.control.POST("/_emulator/snapshots", {});
    const snapshotId = snapshot.data?.snapshot.id ?? "";
    const key = await newKey();
    const restored = await emu.control.POST("/_emulator/snapshots/{id}/restore", ids(snapshotId));
    expect(restored.response.status).toBe(204);
    expectEnvelope(await emu.clientFor(key).GET("/developer/v1/extensions"), 401, "unauthorized");
  });
});
