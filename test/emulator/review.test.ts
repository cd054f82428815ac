/** Review and admin status: /_emulator/versions/:id/approve|reject, /extensions/:id/disable|enable|installs, --auto-approve. */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { bundleDir, createExtension, submitVersion } from "../helpers/bundles";
import { expectEnvelope, startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";
import { waitFor } from "../helpers/wait-for";

let emu: TestEmulator;
const bundles = bundleDir();
const statusOf = async (id: string) => (await emu.api("GET", `/extensions/${id}`)).body.status;

beforeAll(async () => {
  emu = await startTestEmulator();
});
afterAll(async () => {
  await stopTestEmulator(emu);
  bundles.cleanup();
});
beforeEach(async () => {
  await emu.admin("POST", "/reset");
});

describe("POST /_emulator/versions/:versionId/reject", () => {
  test("rejects with a reason; the extension is rejected while nothing was ever approved", async () => {
    const id = await createExtension(emu);
    const v = (await submitVersion(emu, id, { version: "1.0.0", bundle: await bundles.make() })).body.version.id;
    const res = await emu.admin("POST", `/versions/${v}/reject`, { reason: "Sounds are too loud." });
    expect(res.body.version).toMatchObject({
      status: "rejected",
      rejectReason: "Sounds are too loud.",
      approvedAt: null,
    });
    expect(res.body.extension).toEqual({ id, status: "rejected", currentVersionId: null });
    expectEnvelope(await emu.admin("POST", `/versions/${v}/reject`, {}), 422, "validation_error");
    expectEnvelope(await emu.admin("POST", "/versions/ver_missing/approve"), 404, "version_not_found");
  });
});

describe("POST /_emulator/extensions/:id/disable and /enable", () => {
  test("disable sets the admin status; enable restores the status its versions imply", async () => {
    const id = await createExtension(emu);
    expect((await emu.admin("POST", `/extensions/${id}/disable`)).body.status).toBe("disabled");
    expect(await statusOf(id)).toBe("disabled");
    expect((await emu.admin("POST", `/extensions/${id}/enable`)).body.status).toBe("draft");
    const v = (await submitVersion(emu, id, { version: "1.0.0", bundle: await bundles.make() })).body.version.id;
    await emu.admin("POST", `/extensions/${id}/disable`);
    // Approved while disabled: it stays disabled, and comes back approved.
    expect((await emu.admin("POST", `/versions/${v}/approve`)).body.extension.status).toBe("disabled");
    expect((await emu.admin("POST", `/extensions/${id}/enable`)).body.status).toBe("approved");
    // Enabling an extension that is not disabled changes nothing.
    const again = await emu.admin("POST", `/extensions/${id}/enable`);
    expect(again.body.status).toBe("approved");
    expectEnvelope(await emu.admin("POST", "/extensions/ext_missing/disable"), 404, "extension_not_found");
  });

  test("only rejected versions: enable gives back rejected", async () => {
    const id = await createExtension(emu);
    const v = (await submitVersion(emu, id, { version: "1.0.0", bundle: await bundles.make() })).body.version.id;
    await emu.admin("POST", `/versions/${v}/reject`, { reason: "Sounds are too loud." });
    await emu.admin("POST", `/extensions/${id}/disable`);
    expect((await emu.admin("POST", `/extensions/${id}/enable`)).body.status).toBe("rejected");
    expect(await statusOf(id)).toBe("rejected");
  });

  test("disabling an extension that is already disabled changes nothing, updatedAt included", async () => {
    const id = await createExtension(emu);
    const first = (await emu.admin("POST", `/extensions/${id}/disable`)).body;
    await emu.admin("POST", "/clock", { advanceSeconds: 60 });
    const second = await emu.admin("POST", `/extensions/${id}/disable`);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first);
    expect((await emu.api("GET", `/extensions/${id}`)).body).toMatchObject({
      status: "disabled",
      updatedAt: first.updatedAt,
    });
  });

  test("a pending submission comes back as in_review", async () => {
    const id = await createExtension(emu);
    await submitVersion(emu, id, { version: "1.0.0", bundle: await bundles.make() });
    await emu.admin("POST", `/extensions/${id}/disable`);
    expect((await emu.admin("POST", `/extensions/${id}/enable`)).body.status).toBe("in_review");
  });
});

describe("POST /_emulator/extensions/:id/installs", () => {
  test("an install re-checks the version's sounds against the limit as it resolves now", async () => {
    const id = await createExtension(emu);
    const v = (await submitVersion(emu, id, { version: "1.0.0", bundle: await bundles.make() })).body.version.id;
    expectEnvelope(await emu.admin("POST", `/extensions/${id}/installs`, {}), 409, "no_current_version");
    await emu.admin("POST", `/versions/${v}/approve`);
    expect((await emu.admin("POST", `/extensions/${id}/installs`, {})).body).toEqual({
      total: 1,
      active: 1,
      byVersion: { [v]: 1 },
    });
    // The sample bundle has 7 sounds; an admin lowers the limit to 5 after the upload was accepted.
    await emu.admin("PUT", `/overrides/extensions/${id}`, { max_sounds_per_extension: 5 });
    const refused = await emu.admin("POST", `/extensions/${id}/installs`, {});
    expect(expectEnvelope(refused, 422, "limit_exceeded").details![0]).toMatchObject({
      limit: "max_sounds_per_extension",
      max: 5,
    });
    expect((await emu.api("GET", `/extensions/${id}/installs`)).body.total).toBe(1);
    expectEnvelope(await emu.admin("POST", `/extensions/${id}/installs`, { count: 0 }), 422, "validation_error");
  });
});

describe("ext serve --auto-approve", () => {
  test("every valid submission is approved by itself after the delay", async () => {
    const auto = await startTestEmulator({ config: { autoApproveMs: 0 } });
    try {
      const id = await createExtension(auto);
      const submitted = await submitVersion(auto, id, { version: "1.0.0", bundle: await bundles.make() });
      expect(submitted.body.version.status).toBe("pending");
      await waitFor(
        async () => (await auto.api("GET", `/extensions/${id}/versions`)).body.versions[0].status === "approved",
        "the auto-approval",
      );
      expect((await auto.api("GET", `/extensions/${id}`)).body).toMatchObject({
        status: "approved",
        currentVersionId: submitted.body.version.id,
      });
    } finally {
      await stopTestEmulator(auto);
    }
  });

  test("the delay is real time: moving the emulator clock does not approve early", async () => {
    const auto = await startTestEmulator({ config: { autoApproveMs: 1_000 } });
    try {
      const id = await createExtension(auto);
      await submitVersion(auto, id, { version: "1.0.0", bundle: await bundles.make() });
      await auto.admin("POST", "/clock", { advanceSeconds: 86_400 });
      // A day of emulator time later, the real-time timer is still waiting.
      expect(auto.runtime.control.timers.size).toBe(1);
      expect((await auto.api("GET", `/extensions/${id}/versions`)).body.versions[0].status).toBe("pending");
      await waitFor(
        async () => (await auto.api("GET", `/extensions/${id}/versions`)).body.versions[0].status === "approved",
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
      await submitVersion(auto, id, { version: "1.0.0", bundle: await bundles.make() });
      expect(auto.runtime.control.timers.size).toBe(1);
      await auto.admin("POST", "/reset");
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
      await submitVersion(auto, id, { version: "1.0.0", bundle: await bundles.make() });
      expect(auto.runtime.control.timers.size).toBe(1);
      await stopTestEmulator(auto);
      stopped = true;
      expect(auto.runtime.control.timers.size).toBe(0);
    } finally {
      if (!stopped) await stopTestEmulator(auto);
    }
  });
});
