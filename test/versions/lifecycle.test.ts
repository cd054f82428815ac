import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectEnvelope, startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";
import { bundleDir, createExtension, submitVersion } from "../helpers/bundles";

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

const ext = async (id: string) => (await emu.api("GET", `/extensions/${id}`)).body;
const submit = async (id: string, v: string) => (await submitVersion(emu, id, { version: v, bundle: tiny })).body.version.id as string;

describe("version review (domain operations used by the control plane)", () => {
  test("approve: version approved with approvedAt, extension approved, current = newest approved", async () => {
    const id = await createExtension(emu, "Approve Me");
    const v1 = await submit(id, "1");
    const v2 = await submit(id, "2");
    const approved = emu.runtime.services.versions.approve(v2);
    expect(approved).toMatchObject({ status: "approved", approvedAt: expect.any(String) });
    expect(await ext(id)).toMatchObject({ status: "approved", currentVersionId: v2 });
    emu.runtime.services.versions.approve(v1); // older one approved later: current stays the newest approved
    expect((await ext(id)).currentVersionId).toBe(v2);
  });

  test("approving a public extension lists it for good: DELETE becomes 409", async () => {
    const id = await createExtension(emu, "Listed");
    await emu.api("PATCH", `/extensions/${id}`, { json: { visibility: "public" } });
    emu.runtime.services.versions.approve(await submit(id, "1"));
    expectEnvelope(await emu.api("DELETE", `/extensions/${id}`), 409, "extension_listed");
  });

  test("reject: extension rejected only if it never had an approved version", async () => {
    const id = await createExtension(emu, "Reject Me");
    const v1 = await submit(id, "1");
    expect(emu.runtime.services.versions.reject(v1, "crashes on load")).toMatchObject({ status: "rejected", rejectReason: "crashes on load" });
    expect((await ext(id)).status).toBe("rejected");
    // A new submission puts it back in review; once approved, a later rejection leaves it approved.
    const v2 = await submit(id, "2");
    expect((await ext(id)).status).toBe("in_review");
    emu.runtime.services.versions.approve(v2);
    emu.runtime.services.versions.reject(await submit(id, "3"), "nope");
    expect(await ext(id)).toMatchObject({ status: "approved", currentVersionId: v2 });
  });

  test("a disabled extension keeps status disabled through submit, approve and reject", async () => {
    const id = await createExtension(emu, "Disabled");
    emu.runtime.db.$client.prepare("UPDATE extensions SET status = 'disabled' WHERE id = ?").run(id);
    const v1 = await submit(id, "1");
    expect((await ext(id)).status).toBe("disabled");
    emu.runtime.services.versions.approve(v1);
    expect(await ext(id)).toMatchObject({ status: "disabled", currentVersionId: v1 });
    emu.runtime.services.versions.reject(await submit(id, "2"), "no");
    expect((await ext(id)).status).toBe("disabled");
  });

  test("onSubmitted listeners hear each successful submission, not refused ones", async () => {
    const heard: { id: string; extensionId: string }[] = [];
    emu.runtime.services.versions.onSubmitted((v) => heard.push(v));
    const id = await createExtension(emu, "Listened");
    const v1 = await submit(id, "1");
    await submitVersion(emu, id, { version: "1", bundle: tiny }); // 409
    expect(heard).toEqual([{ id: v1, extensionId: id }]);
  });

  test("findById of an unknown version throws version_not_found", () => {
    expect(() => emu.runtime.services.versions.findById("ver_nope")).toThrow(expect.objectContaining({ code: "version_not_found", status: 404 }));
  });
});
