/** Review and admin status: /_emulator/versions/:id/approve|reject, /extensions/:id/disable|enable|installs, --auto-approve. */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { bundleDir, createExtension, uploadVersion } from "../helpers/bundles";
import { expectEnvelope, startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";
import { waitFor } from "../helpers/wait-for";

let emu: TestEmulator;
const bundles = bundleDir();
const byId = (id: string) => ({ params: { path: { id } } });
const statusOf = async (id: string) => (await emu.client.GET("/developer/v1/extensions/{id}", byId(id))).data?.status;
/** Submits a fresh valid bundle as 1.0.0 and answers the new version's id. */
const submit = async (e: TestEmulator, id: string) =>
  (await uploadVersion(e, id, { version: "1.0.0", bundle: await bundles.make() })).data?.version.id ?? "";
const approve = (versionId: string) =>
  emu.control.POST("/_emulator/versions/{versionId}/approve", { params: { path: { versionId } } });
const reject = (versionId: string, reason: string) =>
  emu.control.POST("/_emulator/versions/{versionId}/reject", { params: { path: { versionId } }, body: { reason } });
const disable = (id: string) => emu.control.POST("/_emulator/extensions/{id}/disable", byId(id));
const enable = (id: string) => emu.control.POST("/_emulator/extensions/{id}/enable", byId(id));
const install = (id: string, body: { count?: number }) =>
  emu.control.POST("/_emulator/extensions/{id}/installs", { ...byId(id), body });
const firstVersionStatus = async (e: TestEmulator, id: string) =>
  (await e.client.GET("/developer/v1/extensions/{id}/versions", byId(id))).data?.versions[0]?.status;

beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(async () => {
  await stopTestEmulator(emu);
  bundles.cleanup();
});
beforeEach(async () => {
  await emu.control.POST("/_emulator/reset");
});

describe("POST /_emulator/versions/:versionId/reject", () => {
  test("rejects with a reason; the extension is rejected while nothing was ever approved", async () => {
    const id = await createExtension(emu);
    const v = await submit(emu, id);
    const res = await reject(v, "Sounds are too loud.");
    expect(res.data?.version).toMatchObject({
      status: "rejected",
      rejectReason: "Sounds are too loud.",
      approvedAt: null,
    });
    expect(res.data?.extension).toEqual({ id, status: "rejected", currentVersionId: null });
    // No reason: raw, as the typed client would not send it.
    const noReason = await emu.rawRequest("POST", `/_emulator/versions/${v}/reject`, {
      key: emu.runtime.control.adminToken,
      json: {},
    });
    expectEnvelope(noReason, 422, "validation_error");
    expectEnvelope(await approve("ver_missing"), 404, "version_not_found");
  });
});

describe("POST /_emulator/extensions/:id/disable and /enable", () => {
  test("disable sets the admin status; enable restores the status its versions imply", async () => {
    const id = await createExtension(emu);
    expect((await disable(id)).data?.status).toBe("disabled");
    expect(await statusOf(id)).toBe("disabled");
    expect((await enable(id)).data?.status).toBe("draft");
    const v = await submit(emu, id);
    await disable(id);
    // Approved while disabled: it stays disabled, and comes back approved.
    expect((await approve(v)).data?.extension.status).toBe("disabled");
    expect((await enable(id)).data?.status).toBe("approved");
    // Enabling an extension that is not disabled changes nothing.
    const again = await enable(id);
    expect(again.data?.status).toBe("approved");
    expectEnvelope(await disable("ext_missing"), 404, "extension_not_found");
  });

  test("only rejected versions: enable gives back rejected", async () => {
    const id = await createExtension(emu);
    const v = await submit(emu, id);
    await reject(v, "Sounds are too loud.");
    await disable(id);
    expect((await enable(id)).data?.status).toBe("rejected");
    expect(await statusOf(id)).toBe("rejected");
  });

  test("disabling an extension that is already disabled changes nothing, updatedAt included", async () => {
    const id = await createExtension(emu);
    const first = (await disable(id)).data;
    await emu.control.POST("/_emulator/clock", { body: { advanceSeconds: 60 } });
    const second = await disable(id);
    expect(second.response.status).toBe(200);
    expect(second.data).toEqual(first);
    expect((await emu.client.GET("/developer/v1/extensions/{id}", byId(id))).data).toMatchObject({
      status: "disabled",
      updatedAt: first?.updatedAt,
    });
  });

  test("a pending submission comes back as in_review", async () => {
    const id = await createExtension(emu);
    await submit(emu, id);
    await disable(id);
    expect((await enable(id)).data?.status).toBe("in_review");
  });
});

describe("POST /_emulator/extensions/:id/installs", () => {
  test("an install re-checks the version's sounds against the limit as it resolves now", async () => {
    const id = await createExtension(emu);
    const v = await submit(emu, id);
    expectEnvelope(await install(id, {}), 409, "no_current_version");
    await approve(v);
    expect((await install(id, {})).data).toEqual({
      total: 1,
      active: 1,
      byVersion: { [v]: 1 },
    });
    // The sample bundle has 7 sounds; an admin lowers the limit to 5 after the upload was accepted.
    await emu.control.PUT("/_emulator/overrides/extensions/{id}", {
      ...byId(id),
      body: { max_sounds_per_extension: 5 },
    });
    const refused = await install(id, {});
    expect(expectEnvelope(refused, 422, "limit_exceeded").details![0]).toMatchObject({
      limit: "max_sounds_per_extension",
      max: 5,
    });
    expect((await emu.client.GET("/developer/v1/extensions/{id}/installs", byId(id))).data?.total).toBe(1);
    expectEnvelope(await install(id, { count: 0 }), 422, "validation_error");
  });
});

describe("ext serve --auto-approve", () => {
  test("every valid submission is approved by itself after the delay", async () => {
    const auto = await startTestEmulator({ config: { autoApproveMs: 0 } });
    try {
      const id = await createExtension(auto);
      const submitted = await uploadVersion(auto, id, { version: "1.0.0", bundle: await bundles.make() });
      expect(submitted.data?.version.status).toBe("pending");
      await waitFor(async () => (await firstVersionStatus(auto, id)) === "approved", "the auto-approval");
      expect((await auto.client.GET("/developer/v1/extensions/{id}", byId(id))).data).toMatchObject({
        status: "approved",
        currentVersionId: submitted.data?.version.id,
      });
    } finally {
      await stopTestEmulator(auto);
    }
  });

  test("the delay is real time: moving the emulator clock does not approve early", async () => {
    const auto = await startTestEmulator({ config: { autoApproveMs: 1_000 } });
    try {
      const id = await createExtension(auto);
      await submit(auto, id);
      await auto.control.POST("/_emulator/clock", { body: { advanceSeconds: 86_400 } });
      // A day of emulator time later, the real-time timer is still waiting.
      expect(auto.runtime.control.timers.size).toBe(1);
      expect(await firstVersionStatus(auto, id)).toBe("pending");
      await waitFor(
        async () => (await firstVersionStatus(auto, id)) === "approved",
        "the auto-approval after its real-time delay",
      );
    } finally {
      await stopTestEmulator(auto);
    }
  });

  test("a reset cancels approvals still waiting", async () => {
    const auto = await startTestEmulator({ config: { autoApproveMs: 60_000 } });
    try {
      const id = await createExtension(auto);
      await submit(auto, id);
      expect(auto.runtime.control.timers.size).toBe(1);
      await auto.control.POST("/_emulator/reset");
      expect(auto.runtime.control.timers.size).toBe(0);
    } finally {
      await stopTestEmulator(auto);
    }
  });

  test("a stop cancels approvals still waiting", async () => {
    const auto = await startTestEmulator({ config: { autoApproveMs: 60_000 } });
    let stopped = false;
    try {
      const id = await createExtension(auto);
      await submit(auto, id);
      expect(auto.runtime.control.timers.size).toBe(1);
      await stopTestEmulator(auto);
      stopped = true;
      expect(auto.runtime.control.timers.size).toBe(0);
    } finally {
      if (!stopped) await stopTestEmulator(auto);
    }
  });
});
