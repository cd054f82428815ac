import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { bundleDir, createExtension, uploadVersion } from "../helpers/bundles";
import { expectEnvelope, startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";

let emu: TestEmulator;
const bundles = bundleDir();
let tiny: string;
beforeAll(async () => {
  emu = await startTestEmulator();
  tiny = await bundles.make([{ name: "manifest.json", data: "{}" }]);
});
afterAll(async () => {
  await stopTestEmulator(emu);
  bundles.cleanup();
});

const ids = (id: string) => ({ params: { path: { id } } });
const ext = async (id: string) => (await emu.client.GET("/developer/v1/extensions/{id}", ids(id))).data;
const submit = async (id: string, v: string) => {
  const { data, error } = await uploadVersion(emu, id, { version: v, bundle: tiny });
  if (!data) throw new Error(`the submission was refused: ${JSON.stringify(error)}`);
  return data.version.id;
};

describe("version review (domain operations used by the control plane)", () => {
  test("approve: version approved with approvedAt, extension approved, current = newest approved", async () => {
    const id = await createExtension(emu, "Approve Me");
    const v1 = await submit(id, "1");
    const v2 = await submit(id, "2");
    expect((await ext(id))?.status).toBe("in_review"); // a second submission while in review: stays
    const approved = emu.runtime.services.versions.approveVersion(v2);
    expect(approved).toMatchObject({ status: "approved", approvedAt: expect.any(String) });
    expect(await ext(id)).toMatchObject({ status: "approved", currentVersionId: v2 });
    emu.runtime.services.versions.approveVersion(v1); // older one approved later: current stays the newest approved
    expect((await ext(id))?.currentVersionId).toBe(v2);
  });

  test("approving a public extension lists it for good: DELETE becomes 409", async () => {
    const id = await createExtension(emu, "Listed");
    await emu.client.PATCH("/developer/v1/extensions/{id}", { ...ids(id), body: { visibility: "public" } });
    emu.runtime.services.versions.approveVersion(await submit(id, "1"));
    expectEnvelope(await emu.client.DELETE("/developer/v1/extensions/{id}", ids(id)), 409, "extension_listed");
  });

  test("reject: extension rejected only if it never had an approved version", async () => {
    const id = await createExtension(emu, "Reject Me");
    const v1 = await submit(id, "1");
    expect(emu.runtime.services.versions.rejectVersion(v1, "crashes on load")).toMatchObject({
      status: "rejected",
      rejectReason: "crashes on load",
    });
    expect((await ext(id))?.status).toBe("rejected");
    // A new submission puts it back in review; once approved, a later rejection leaves it approved.
    const v2 = await submit(id, "2");
    expect((await ext(id))?.status).toBe("in_review");
    emu.runtime.services.versions.approveVersion(v2);
    const v3 = await submit(id, "3");
    expect((await ext(id))?.status).toBe("approved"); // a submission to an approved extension: stays approved
    emu.runtime.services.versions.rejectVersion(v3, "nope");
    expect(await ext(id)).toMatchObject({ status: "approved", currentVersionId: v2 });
    // The developer's list says why: rejectReason on rejected versions only.
    const listed = (await emu.client.GET("/developer/v1/extensions/{id}/versions", ids(id))).data?.versions;
    expect(listed?.map((v) => [v.version, v.rejectReason])).toEqual([
      ["3", "nope"],
      ["2", undefined],
      ["1", "crashes on load"],
    ]);
  });

  test("a disabled extension keeps status disabled through submit, approve and reject", async () => {
    const id = await createExtension(emu, "Disabled");
    emu.runtime.db.write(() =>
      emu.runtime.db.$client.prepare("UPDATE extensions SET status = 'disabled' WHERE id = ?").run(id),
    );
    const v1 = await submit(id, "1");
    expect((await ext(id))?.status).toBe("disabled");
    emu.runtime.services.versions.approveVersion(v1);
    expect(await ext(id)).toMatchObject({ status: "disabled", currentVersionId: v1 });
    emu.runtime.services.versions.rejectVersion(await submit(id, "2"), "no");
    expect((await ext(id))?.status).toBe("disabled");
  });

  test("review decides only pending versions: approving or rejecting a decided one is a 409 version_not_pending, nothing changed", async () => {
    const { versions } = emu.runtime.services;
    const id = await createExtension(emu, "Decided");
    const v1 = await submit(id, "1");
    const approved = versions.approveVersion(v1);
    const rejected = versions.rejectVersion(await submit(id, "2"), "no");
    const before = { ext: await ext(id), v1: versions.findById(v1), v2: versions.findById(rejected.id) };
    for (const [call, status] of [
      [() => versions.approveVersion(v1), "approved"],
      [() => versions.rejectVersion(v1, "changed my mind"), "approved"],
      [() => versions.approveVersion(rejected.id), "rejected"],
      [() => versions.rejectVersion(rejected.id, "again"), "rejected"],
    ] as const) {
      expect(call).toThrow(
        expect.objectContaining({ code: "version_not_pending", status: 409, message: expect.stringContaining(status) }),
      );
    }
    expect({ ext: await ext(id), v1: versions.findById(v1), v2: versions.findById(rejected.id) }).toEqual(before);
    expect(before.ext).toMatchObject({ status: "approved", currentVersionId: v1 });
    expect(approved.approvedAt).toEqual(expect.any(String));
    // Over the control plane, the same 409 envelope.
    expectEnvelope(
      await emu.control.POST("/_emulator/versions/{versionId}/reject", {
        params: { path: { versionId: v1 } },
        body: { reason: "changed my mind" },
      }),
      409,
      "version_not_pending",
    );
  });

  test("approving or rejecting an archived version is a 409 version_archived", async () => {
    const { versions } = emu.runtime.services;
    const id = await createExtension(emu, "Archived");
    expect(
      (
        await emu.control.PUT("/_emulator/overrides/extensions/{id}", {
          ...ids(id),
          body: { max_versions_per_extension: 1 },
        })
      ).response.status,
    ).toBe(200);
    const v1 = await submit(id, "1");
    await submit(id, "2"); // the cap of 1 archives v1
    expect(versions.findById(v1).status).toBe("archived");
    expect(() => versions.approveVersion(v1)).toThrow(
      expect.objectContaining({ code: "version_archived", status: 409 }),
    );
    expect(() => versions.rejectVersion(v1, "too old")).toThrow(
      expect.objectContaining({ code: "version_archived", status: 409 }),
    );
    expectEnvelope(
      await emu.control.POST("/_emulator/versions/{versionId}/approve", { params: { path: { versionId: v1 } } }),
      409,
      "version_archived",
    );
    expect(versions.findById(v1)).toMatchObject({ status: "archived", approvedAt: null, rejectedAt: null });
  });

  test("onSubmitted listeners hear each successful submission, not refused ones", async () => {
    const heard: { id: string; extensionId: string }[] = [];
    emu.runtime.services.versions.onSubmitted((v) => heard.push(v));
    const id = await createExtension(emu, "Listened");
    const v1 = await submit(id, "1");
    expect((await uploadVersion(emu, id, { version: "1", bundle: tiny })).response.status).toBe(409);
    expect(heard).toEqual([{ id: v1, extensionId: id }]);
  });

  test("findById of an unknown version throws version_not_found", () => {
    expect(() => emu.runtime.services.versions.findById("ver_nope")).toThrow(
      expect.objectContaining({ code: "version_not_found", status: 404 }),
    );
  });
});
