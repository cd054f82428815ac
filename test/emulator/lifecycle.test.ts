/**
 * The whole life of an extension, through the public API and the control plane:
 * create → submit → approve → make public → delete refused → installs counted per version →
 * limit raised by an approved request → a deploy with more sounds accepted.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { validEntries } from "../../scripts/lib/samples";
import { bundleDir, createExtension, uploadVersion } from "../helpers/bundles";
import { expectEnvelope, startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";

let emu: TestEmulator;
const bundles = bundleDir();

beforeAll(async () => {
  emu = await startTestEmulator({ config: { rateLimits: true } });
});
afterAll(async () => {
  await stopTestEmulator(emu);
  bundles.cleanup();
});

describe("extension life through /developer/v1 and /_emulator", () => {
  test("create → submit → approve → public → delete refused → installs per version → limit request → bigger deploy", async () => {
    // Create and submit.
    const id = await createExtension(emu, "Life Cycle");
    const byId = { params: { path: { id } } };
    const extension = async () => (await emu.client.GET("/developer/v1/extensions/{id}", byId)).data;
    const approve = (versionId: string) =>
      emu.control.POST("/_emulator/versions/{versionId}/approve", { params: { path: { versionId } } });
    const v1 = await uploadVersion(emu, id, { version: "1.0.0", changelog: "first", bundle: await bundles.make() });
    expect(v1.response.status).toBe(202);
    const v1Id = v1.data?.version.id ?? "";
    expect((await extension())?.status).toBe("in_review");

    // Review approves.
    const approved = await approve(v1Id);
    expect(approved.response.status).toBe(200);
    expect(approved.data?.version).toMatchObject({ id: v1Id, status: "approved" });
    expect(approved.data?.extension).toEqual({ id, status: "approved", currentVersionId: v1Id });
    const listed = (await emu.client.GET("/developer/v1/extensions/{id}/versions", byId)).data?.versions;
    expect(listed?.[0]).toMatchObject({ id: v1Id, status: "approved", approvedAt: expect.any(String) });

    // Made public by the developer: now it has been publicly listed and cannot be deleted.
    const patched = await emu.client.PATCH("/developer/v1/extensions/{id}", {
      ...byId,
      body: { visibility: "public" },
    });
    expect(patched.data).toMatchObject({ visibility: "public", status: "approved" });
    expectEnvelope(await emu.client.DELETE("/developer/v1/extensions/{id}", byId), 409, "extension_listed");
    expect((await emu.client.GET("/developer/v1/extensions/{id}", byId)).response.status).toBe(200);

    // Installs, counted per version.
    const installs = (body: { count: number }) =>
      emu.control.POST("/_emulator/extensions/{id}/installs", { ...byId, body });
    expect((await installs({ count: 3 })).data).toEqual({
      total: 3,
      active: 3,
      byVersion: { [v1Id]: 3 },
    });
    const v2 = await uploadVersion(emu, id, { version: "1.1.0", bundle: await bundles.make() });
    const v2Id = v2.data?.version.id ?? "";
    await approve(v2Id);
    expect((await extension())?.currentVersionId).toBe(v2Id);
    await installs({ count: 2 });
    await emu.control.POST("/_emulator/extensions/{id}/uninstalls", { ...byId, body: { versionId: v1Id, count: 1 } });
    expect((await emu.client.GET("/developer/v1/extensions/{id}/installs", byId)).data).toEqual({
      total: 5,
      active: 4,
      byVersion: { [v1Id]: 2, [v2Id]: 2 },
    });
    expect((await extension())?.installCount).toBe(5);

    // 60 sounds do not fit the default limit of 50 ...
    const big = await bundles.make(validEntries({ sounds: 60 }));
    expectEnvelope(await uploadVersion(emu, id, { version: "2.0.0", bundle: big }), 422, "bundle_invalid");

    // ... so the developer asks for 80, and the admin approves.
    const request = await emu.control.POST("/_emulator/limit-requests", {
      body: {
        accountId: "acc_test",
        scope: "extension",
        extensionId: id,
        limits: { max_sounds_per_extension: 80 },
        reason: "Our sound board ships 60 effects in the next release.",
      },
    });
    expect(request.response.status).toBe(201);
    const reqId = request.data?.limitRequest.id ?? "";
    const pending = await emu.control.GET("/_emulator/limit-requests", { params: { query: { status: "pending" } } });
    expect(pending.data?.limitRequests.map((r) => r.id)).toEqual([reqId]);
    const decided = await emu.control.POST("/_emulator/limit-requests/{id}/approve", {
      params: { path: { id: reqId } },
      body: {},
    });
    expect(decided.data?.limitRequest).toMatchObject({ status: "approved", decidedAt: expect.any(String) });
    const limits = await emu.client.GET("/developer/v1/extensions/{id}/limits", { ...byId, parseAs: "text" });
    expect(limits.data).toContain("80");

    // The deploy with more sounds is accepted now.
    const v3 = await uploadVersion(emu, id, { version: "2.0.0", bundle: big });
    expect(v3.response.status).toBe(202);
    expect(v3.data?.version.status).toBe("pending");
  });
});
