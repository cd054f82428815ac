/**
 * One test of the `Emulator` interface, type-checked (tsc --strict) and run against BOTH helpers: "emulator-helper"
 * resolves to the Bun helper (tools/helper/start-emulator.ts) or to the built Node package (its declarations and its
 * bundle), by tsconfig paths and by the runner in helpers-contract.slow.test.ts. The @ts-expect-error lines
 * prove the types refuse a misspelt field and an unknown API path: an unused one fails the type check.
 */
import {
  ApiCallError,
  connectEmulator,
  type DeployResult,
  type Emulator,
  type Extension,
  type Fixture,
  type LimitValues,
  type Profile,
  startEmulator,
} from "emulator-helper";

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

/** The message a call threw with, and whether it threw the class both helpers throw it with. */
function thrown(call: () => unknown) {
  try {
    call();
  } catch (e) {
    return { name: (e as Error).name, message: (e as Error).message };
  }
  return { name: "none", message: "" };
}

/** One fixture type for both helpers: fields with a default are left out. */
const ownFixture: Fixture = {
  accounts: [
    {
      id: "acc_contract",
      name: "Contract",
      apiKeys: [{ name: "k", key: "ext_contract_0123456789abcdefghij", scopes: ["*"] }],
    },
  ],
};

/** A limit key is typed in a fixture too. */
const misspeltFixture: Fixture = {
  accounts: [
    {
      id: "acc_typo",
      name: "Typo",
      apiKeys: [],
      // @ts-expect-error a misspelt limit key
      overrides: { max_sound_per_extension: 3 },
    },
  ],
};

/** The number of extensions the emulator lists. */
async function count(emu: Pick<Emulator, "client">): Promise<number | undefined> {
  return (await emu.client.GET("/developer/v1/extensions")).data?.extensions.length;
}

/** A deploy's result, without what differs from run to run (ids, the archive's hash). */
function deployed(d: DeployResult) {
  return {
    ok: d.ok,
    dryRun: d.dryRun,
    version: d.version,
    status: d.status,
    versionId: typeof d.versionId === "string" && d.versionId.startsWith("ver_"),
    files: d.files,
    excluded: d.excluded,
    soundLimit: d.soundLimit,
    warnings: d.warnings,
  };
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
    // @ts-expect-error a misspelt limit key
    const misspeltLimit = () => emu.setOverride({ extensionId: id }, { max_sound_per_extension: 80 });
    // What createExtension() gives is an Extension, to be passed on as one.
    const asExtension: Extension = created;
    // @ts-expect-error a misspelt limit key in the API's limit-values model (override and limit-request bodies)
    const misspeltBody: LimitValues = { max_sound_per_extension: 80 };
    void [misspeltInput, misspeltAnswer, unknownPath, misspeltLimit, misspeltBody, asExtension, misspeltFixture];

    // The members that say where the emulator is and how to reach it.
    const where = {
      baseUrl: emu.baseUrl === `${emu.url}/developer/v1`,
      adminUrl: emu.adminUrl === `${emu.url}/_emulator`,
      port: emu.url === `http://127.0.0.1:${emu.port}`,
      env: Object.keys(emu.env),
      envValues:
        emu.env.EXT_BASE_URL === emu.baseUrl &&
        emu.env.EXT_LOCAL_URL === emu.baseUrl &&
        emu.env.EXT_ADMIN_URL === emu.adminUrl &&
        emu.env.EXT_API_KEY === emu.apiKey,
      // Fresh for each emulator: the demo fixture's public key (in the README) is not one of its keys.
      apiKey: /^ext_[0-9A-Za-z]{40}$/.test(emu.apiKey),
      demoKey: (
        await fetch(`${emu.baseUrl}/extensions`, {
          headers: { authorization: "Bearer ext_demo_0123456789abcdefghijklmnopqrstuv" },
        })
      ).status,
    };
    const first = await emu.deploy(folder, { extensionId: id, version: "1.0.0", changelog: "first" });
    const firstId: string = first.versionId;
    const approved = await emu.approveVersion(firstId);
    const firstListed = (
      await emu.client.GET("/developer/v1/extensions/{id}/versions", { params: { path: { id } } })
    ).data?.versions.find((v) => v.id === firstId);
    const installs = await emu.addInstalls(id, 3);
    const second = await emu.deploy(folder, { extensionId: id, version: "1.1.0" });
    const secondId = second.versionId;
    await emu.approveVersion(secondId);
    const rolled = await emu.rollout(id);
    const third = await emu.deploy(folder, { extensionId: id, version: "1.2.0" });
    const rejected = await emu.rejectVersion(third.versionId, "not this one");
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
    // A snapshot is the state as it was, restored as often as asked.
    const snap = await emu.snapshot();
    await emu.createExtension({ name: "After the snapshot" });
    const beforeRestore = await count(emu);
    await emu.restore(snap);
    const restoredOnce = await count(emu);
    await emu.createExtension({ name: "After the restore" });
    await emu.restore(snap);
    const snapshots = { beforeRestore, restoredOnce, restoredTwice: await count(emu) };

    // Another emulator's view of the same server, from its variables: every call goes to the same state.
    const other = connectEmulator(emu.env);
    const otherCreated = await other.createExtension({ name: "Through the connection" });
    const otherDeployed = await other.deploy(folder, { extensionId: otherCreated.id, version: "1.0.0" });
    const otherSnap = await other.snapshot();
    await other.createExtension({ name: "Undone" });
    await other.restore(otherSnap);
    const connected = {
      same: ["baseUrl", "apiKey", "adminUrl", "url", "adminToken"].map(
        (k) => other[k as keyof typeof other] === emu[k as keyof typeof emu],
      ),
      env: JSON.stringify(other.env) === JSON.stringify(emu.env),
      deployed: deployed(otherDeployed),
      seenByStarter: await count(emu),
      approved: (await other.approveVersion(otherDeployed.versionId)).version.status,
      withOption: (
        await connectEmulator({ ...emu.env, EXT_ADMIN_TOKEN: "" }, { adminToken: emu.adminToken }).requests(1)
      ).length,
      missing: thrown(() => connectEmulator({})),
      // @ts-expect-error an unknown option
      unknownOption: thrown(() => connectEmulator(emu.env, { adminTokn: "x" })),
    };
    const startRefusals = {
      // @ts-expect-error an unknown option: refused, never ignored
      unknownOption: (await refusalMessage(startEmulator({ ratelimits: true }))).replace(/ \(known: .*\)$/, ""),
      ownFixture: await startEmulator({ fixture: ownFixture }).then(async (own) => {
        const key = own.apiKey;
        await own.stop();
        return key;
      }),
    };

    await emu.reset();
    const afterReset = await count(emu);
    return {
      created: { id, status: created.status, visibility: created.visibility, installCount: created.installCount },
      where,
      first: deployed(first),
      firstListed: { version: firstListed?.version, changelog: firstListed?.changelog },
      approved: { status: approved.version.status, current: approved.extension.currentVersionId === firstId },
      installs: { total: installs.total, active: installs.active, counts: Object.values(installs.byVersion) },
      rolled: { active: rolled.active, onSecond: rolled.byVersion[secondId] },
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
      snapshots,
      connected,
      startRefusals,
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

/**
 * The helpers' rate limits: off by default, so a suite that creates an extension per test passes the spec's
 * 10 creates an hour; on when asked, with a refusal that says how to turn them off or move the clock.
 */
export async function rateLimits() {
  const creates = async (emu: Emulator, n: number) => {
    const outcomes: (number | string)[] = [];
    for (let i = 0; i < n; i++)
      outcomes.push(
        await emu.createExtension({ name: `Rate ${i}` }).then(
          () => 201,
          (e) => (e instanceof ApiCallError ? `${e.status} ${e.message}` : String(e)),
        ),
      );
    return outcomes;
  };
  const byDefault = await startEmulator();
  const on = await startEmulator({ rateLimits: true });
  try {
    const defaultOutcomes = await creates(byDefault, 11);
    const onOutcomes = await creates(on, 11);
    await on.advanceClock(3600);
    const afterAnHour = await creates(on, 1);
    return { defaultOutcomes, onOutcomes, afterAnHour };
  } finally {
    await byDefault.stop();
    await on.stop();
  }
}

/** A platform profile: the helper's `profile` option, as the profile itself or its file, and `profile()`. */
export async function profiles(file: string) {
  const profile: Profile = {
    profileVersion: 1,
    entries: [
      {
        operation: "GET /developer/v1/extensions/{id}/secrets",
        answer: 200,
        difference: "field-renamed",
        path: "keys",
        observed: "names",
      },
      { operation: "POST /developer/v1/extensions", answer: 201, difference: "status", observed: 200 },
    ],
  };
  const fromObject = await startEmulator({ profile });
  const fromFile = await startEmulator({ profile: file });
  try {
    const answers = async (emu: Emulator) => {
      const created = await fetch(`${emu.baseUrl}/extensions`, {
        method: "POST",
        headers: { authorization: `Bearer ${emu.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "Profiled" }),
      });
      const { extension } = (await created.json()) as { extension: { id: string } };
      const secrets = await fetch(`${emu.baseUrl}/extensions/${extension.id}/secrets`, {
        headers: { authorization: `Bearer ${emu.apiKey}` },
      });
      const active = await connectEmulator(emu.env).profile();
      return { created: created.status, secrets: await secrets.json(), entries: active?.entries.map((e) => e.change) };
    };
    const broken = { ...profile, entries: [{ ...profile.entries[0]!, path: "names" }] };
    return {
      object: await answers(fromObject),
      file: await answers(fromFile),
      refused: (await refusalMessage(startEmulator({ profile: broken }))).includes(
        "entry 1 (GET /developer/v1/extensions/{id}/secrets, answer 200, field-renamed names): the answer has no field names",
      ),
    };
  } finally {
    await fromObject.stop();
    await fromFile.stop();
  }
}
