/**
 * One test of the `Emulator` interface, type-checked (tsc --strict) and run against BOTH helpers: "emulator-helper"
 * resolves to the Bun helper (src/programmatic.ts) or to the built Node package (its declarations and its
 * bundle), by tsconfig paths and by the runner in helpers-contract.test.ts. The @ts-expect-error lines
 * prove the types refuse a misspelt field and an unknown API path: an unused one fails the type check.
 */
import { startEmulator } from "emulator-helper";

export async function contract(folder: string) {
  const emu = await startEmulator({ rateLimits: false });
  try {
    const created = await emu.createExtension({ name: "Contract Board" });
    const id: string = created.id;
    // @ts-expect-error a misspelt field of the input
    const misspeltInput = () => emu.createExtension({ nmae: "Typo" });
    // @ts-expect-error a misspelt field of the answer
    const misspeltAnswer = () => created.nmae;
    // @ts-expect-error an unknown API path
    const unknownPath = () => emu.client.GET("/developer/v1/extensionz");
    void [misspeltInput, misspeltAnswer, unknownPath];

    const first = await emu.deploy(folder, { extensionId: id, version: "1.0.0", changelog: "first" });
    const approved = await emu.approveVersion(first.id);
    const installs = await emu.addInstalls(id, 3);
    const second = await emu.deploy(folder, { extensionId: id, version: "1.1.0" });
    await emu.approveVersion(second.id);
    const rolled = await emu.rollout(id);
    const third = await emu.deploy(folder, { extensionId: id, version: "1.2.0" });
    const rejected = await emu.rejectVersion(third.id, "not this one");
    const override = await emu.setOverride({ extensionId: id }, { max_sounds_per_extension: 80 });
    const fault = await emu.injectFault({ method: "GET", path: "/extensions", status: 503, times: 1 });
    const faulted = (await emu.client.GET("/developer/v1/extensions")).response.status;
    const set = await emu.setClock("2030-01-01T00:00:00.000Z", { freeze: true });
    const advanced = await emu.advanceClock(60);
    const requests = await emu.requests(1);
    const adminState = (await emu.admin.GET("/_emulator/state")).data?.counts.extensions;
    await emu.reset();
    const afterReset = (await emu.client.GET("/developer/v1/extensions")).data?.extensions.length;
    return {
      created: { id, status: created.status },
      first: { version: first.version, status: first.status, changelog: first.changelog, warnings: first.warnings },
      approved: { status: approved.version.status, current: approved.extension.currentVersionId === first.id },
      installs: { total: installs.total, active: installs.active, counts: Object.values(installs.byVersion) },
      rolled: { active: rolled.active, onSecond: rolled.byVersion[second.id] },
      rejected: { status: rejected.version.status, reason: rejected.version.rejectReason },
      override: override.overrides,
      fault: { status: fault.status, times: fault.times },
      faulted,
      set: { now: set.now, mode: set.mode },
      advanced: advanced.now,
      requests: requests.map((r) => ({ status: r.status, keyId: typeof r.keyId, id: typeof r.id })),
      adminState,
      afterReset,
    };
  } finally {
    await emu.stop();
  }
}
