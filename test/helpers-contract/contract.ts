/**
 * One test of the `Emulator` interface, type-checked (tsc --strict) and run against BOTH helpers: "emulator-helper"
 * resolves to the Bun helper (src/programmatic.ts) or to the built Node package (its declarations and its
 * bundle), by tsconfig paths and by the runner in helpers-contract.test.ts. The @ts-expect-error lines
 * prove the types refuse a misspelt field and an unknown API path: an unused one fails the type check.
 */
import { ApiCallError, type Emulator, startEmulator } from "emulator-helper";

/** What a rejected call rejected with: an ApiCallError's status, code and the limits its details name. */
async function refusal(call: Promise<unknown>) {
  try {
    await call;
  } catch (e) {
    if (!(e instanceof ApiCallError)) return { error: e instanceof Error, apiCallError: false };
    return {
      status: e.status,
      code: e.code,
      limits: e.details.flatMap((d) => (typeof d.limit === "string" ? [d.limit] : [])),
    };
  }
  return { resolved: true };
}

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
    const refused = {
      approveMissing: await refusal(emu.approveVersion("ver_missing")),
      deployMissingFolder: await refusal(emu.deploy(`${folder}/missing`, { extensionId: id, version: "9.0.0" })),
      deployMissingExtension: await refusal(emu.deploy(folder, { extensionId: "ext_missing", version: "9.0.0" })),
      deployExistingVersion: await refusal(emu.deploy(folder, { extensionId: id, version: "1.0.0" })),
      deployOverLimit: await emu
        .setOverride({ extensionId: id }, { max_sounds_per_extension: 0 })
        .then(() => refusal(emu.deploy(folder, { extensionId: id, version: "9.0.0" }))),
    };
    const adminState = (await emu.admin.GET("/_emulator/state")).data?.counts.extensions;
    // The control plane takes nothing without the token, which the helper sends on every call and hands on.
    const controlPlane = {
      tokenless: (await fetch(`${emu.adminUrl}/state`)).status,
      wrongToken: (await fetch(`${emu.adminUrl}/state`, { headers: { authorization: "Bearer adm_wrong" } })).status,
      envToken: emu.env.EXT_ADMIN_TOKEN === emu.adminToken && emu.adminToken.length > 0,
    };
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
      refused,
      adminState,
      controlPlane,
      afterReset,
    };
  } finally {
    await emu.stop();
  }
}

/** An emulator's one extension named "Exported Board": it, its versions, and the first one's bundle tree. */
export async function exportedBoard(emu: Emulator) {
  const extensions = (await emu.client.GET("/developer/v1/extensions")).data?.extensions ?? [];
  const board = extensions.find((e) => e.name === "Exported Board");
  if (!board) return null;
  const versions =
    (await emu.client.GET("/developer/v1/extensions/{id}/versions", { params: { path: { id: board.id } } })).data
      ?.versions ?? [];
  const first = versions[0];
  const bundle = first
    ? (await emu.admin.GET("/_emulator/versions/{versionId}/bundle", { params: { path: { versionId: first.id } } }))
        .data
    : undefined;
  const installs = (
    await emu.client.GET("/developer/v1/extensions/{id}/installs", { params: { path: { id: board.id } } })
  ).data;
  return { board, versions, bundle, installs };
}

/** What an emulator started from an export directory answers, and what one whose keys are all hashes says. */
export async function fromExport(dir: string, hashOnlyDir: string) {
  const emu = await startEmulator({ fixture: dir });
  try {
    return {
      loaded: await exportedBoard(emu),
      hashOnly: await refusalMessage(startEmulator({ fixture: hashOnlyDir })),
    };
  } finally {
    await emu.stop();
  }
}

async function refusalMessage(start: Promise<Emulator>) {
  try {
    await (await start).stop();
    return "started";
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}
