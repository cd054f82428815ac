/**
 * The whole life of an extension, through the public API and the control plane:
 * create → submit → approve → make public → delete refused → installs counted per version →
 * limit raised by an approved request → a deploy with more sounds accepted.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { validEntries } from "../../scripts/lib/samples";
import { bundleDir, createExtension, submitVersion } from "../helpers/bundles";
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
    const v1 = await submitVersion(emu, id, { version: "1.0.0", changelog: "first", bundle: await bundles.make() });
    expect(v1.status).toBe(202);
    const v1Id = v1.body.version.id as string;
    expect((await emu.api("GET", `/extensions/${id}`)).body.status).toBe("in_review");

    // Review approves.
    const approved = await emu.admin("POST", `/versions/${v1Id}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body.version).toMatchObject({ id: v1Id, status: "approved" });
    expect(approved.body.extension).toEqual({ id, status: "approved", currentVersionId: v1Id });
    const listed = (await emu.api("GET", `/extensions/${id}/versions`)).body.versions;
    expect(listed[0]).toMatchObject({ id: v1Id, status: "approved", approvedAt: expect.any(String) });

    // Made public by the developer: now it has been publicly listed and cannot be deleted.
    expect((await emu.api("PATCH", `/extensions/${id}`, { json: { visibility: "public" } })).body).toMatchObject({
      visibility: "public",
      status: "approved",
    });
    expectEnvelope(await emu.api("DELETE", `/extensions/${id}`), 409, "extension_listed");
    expect((await emu.api("GET", `/extensions/${id}`)).status).toBe(200);

    // Installs, counted per version.
    expect((await emu.admin("POST", `/extensions/${id}/installs`, { count: 3 })).body).toEqual({
      total: 3,
      active: 3,
      byVersion: { [v1Id]: 3 },
    });
    const v2 = await submitVersion(emu, id, { version: "1.1.0", bundle: await bundles.make() });
    const v2Id = v2.body.version.id as string;
    await emu.admin("POST", `/versions/${v2Id}/approve`);
    expect((await emu.api("GET", `/extensions/${id}`)).body.currentVersionId).toBe(v2Id);
    await emu.admin("POST", `/extensions/${id}/installs`, { count: 2 });
    await emu.admin("POST", `/extensions/${id}/uninstalls`, { versionId: v1Id, count: 1 });
    expect((await emu.api("GET", `/extensions/${id}/installs`)).body).toEqual({
      total: 5,
      active: 4,
      byVersion: { [v1Id]: 2, [v2Id]: 2 },
    });
    expect((await emu.api("GET", `/extensions/${id}`)).body.installCount).toBe(5);

    // 60 sounds do not fit the default limit of 50 ...
    const big = await bundles.make(validEntries({ sounds: 60 }));
    expectEnvelope(await submitVersion(emu, id, { version: "2.0.0", bundle: big }), 422, "bundle_invalid");

    // ... so the developer asks for 80, and the admin approves.
    const request = await emu.admin("POST", "/limit-requests", {
      accountId: "acc_test",
      scope: "extension",
      extensionId: id,
      limits: { max_sounds_per_extension: 80 },
      reason: "Our sound board ships 60 effects in the next release.",
    });
    expect(request.status).toBe(201);
    const reqId = request.body.limitRequest.id as string;
    expect(
      (await emu.admin("GET", "/limit-requests?status=pending")).body.limitRequests.map((r: { id: string }) => r.id),
    ).toEqual([reqId]);
    expect((await emu.admin("POST", `/limit-requests/${reqId}/approve`, {})).body.limitRequest).toMatchObject({
      status: "approved",
      decidedAt: expect.any(String),
    });
    expect((await emu.api("GET", `/extensions/${id}/limits`)).text).toContain("80");

    // The deploy with more sounds is accepted now.
    const v3 = await submitVersion(emu, id, { version: "2.0.0", bundle: big });
    expect(v3.status).toBe(202);
    expect(v3.body.version.status).toBe("pending");
  });
});
