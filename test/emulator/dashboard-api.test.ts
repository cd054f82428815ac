/** The control-plane reads the dashboard is built on: accounts, its own key, review queue, bundles, limits, request detail, SSE. */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ExtensionUpdate } from "../../client";
import { exportState } from "../../server/exports/document";
import { KEY_EPOCH_FILE } from "../../server/resources/accounts/dashboard-key-epoch";
import type { Fixture } from "../../server/seed/model";
import { type BundleDir, bundleDir, createExtension, uploadVersion } from "../helpers/bundles";
import {
  baseFixture,
  DEMO_KEY,
  errorOf,
  expectEnvelope,
  jsonAt,
  type RequestOptions,
  startTestEmulator,
  stopTestEmulator,
  type TestEmulator,
} from "../helpers/emulator";
import { waitFor } from "../helpers/wait-for";

let emu: TestEmulator;
let bundles: BundleDir;
beforeAll(async () => {
  emu = await startTestEmulator();
  bundles = bundleDir();
});
afterAll(async () => {
  await stopTestEmulator(emu);
  bundles.cleanup();
});
beforeEach(async () => {
  expect((await reset()).response.status).toBe(200);
});

const reset = (e: TestEmulator = emu) => e.control.POST("/_emulator/reset");
const account = (accountId = "acc_test") => ({ params: { path: { accountId } } });
const dashboardKey = (e: TestEmulator = emu, accountId = "acc_test") =>
  e.control.POST("/_emulator/accounts/{accountId}/dashboard-key", account(accountId));
const keysOf = async (e: TestEmulator = emu) =>
  (await e.control.GET("/_emulator/accounts/{accountId}/keys", account())).data?.apiKeys ?? [];
const createKey = (e: TestEmulator, name: string) =>
  e.control.POST("/_emulator/accounts/{accountId}/keys", { ...account(), body: { name, scopes: ["*"] } });
const revoke = (e: TestEmulator, keyId: string) =>
  e.control.DELETE("/_emulator/accounts/{accountId}/keys/{keyId}", {
    params: { path: { accountId: "acc_test", keyId } },
  });
const listAs = (e: TestEmulator, key: string) => e.clientFor(key).GET("/developer/v1/extensions");
const requests = async (limit?: number) =>
  (await emu.control.GET("/_emulator/requests", limit === undefined ? {} : { params: { query: { limit } } })).data
    ?.requests ?? [];
const requestDetail = (id: number) => emu.control.GET("/_emulator/requests/{id}", { params: { path: { id } } });
const byVersion = (versionId: string) => ({ params: { path: { versionId } } });
const approve = (versionId: string) =>
  emu.control.POST("/_emulator/versions/{versionId}/approve", byVersion(versionId));
const soundFile = (versionId: string, path: string) =>
  emu.control.GET("/_emulator/versions/{versionId}/sound", { params: { path: { versionId }, query: { path } } });
const limits = (query: { accountId: string; extensionId?: string }) =>
  emu.control.GET("/_emulator/limits", { params: { query } });
const patchExtension = (id: string, body: ExtensionUpdate) =>
  emu.client.PATCH("/developer/v1/extensions/{id}", { params: { path: { id } }, body });
/** Raw, as DEMO_KEY (unless told): queries and bodies the document does not have, kept by the request log. */
const developer = (method: string, path: string, opts: RequestOptions = {}) =>
  emu.rawRequest(method, `/developer/v1${path}`, { key: DEMO_KEY, ...opts });

async function pendingVersion(): Promise<{ extensionId: string; versionId: string }> {
  const extensionId = await createExtension(emu, "Queue Board");
  const res = await uploadVersion(emu, extensionId, {
    version: "1.0.0",
    changelog: "first",
    bundle: await bundles.make(),
  });
  expect(res.response.status).toBe(202);
  return { extensionId, versionId: res.data?.version.id ?? "" };
}

describe("accounts and the dashboard key", () => {
  test("GET /accounts lists every account with its counts", async () => {
    await createExtension(emu, "Counted");
    const res = await emu.control.GET("/_emulator/accounts");
    expect(res.response.status).toBe(200);
    // Seeded in the same millisecond: oldest first, then by id.
    expect(res.data?.accounts.map((a) => [a.id, a.extensions, a.activeApiKeys])).toEqual([
      ["acc_other", 0, 1],
      ["acc_test", 1, 2],
    ]);
  });

  test("the dashboard key is an ordinary key named dashboard, made once and reused until revoked", async () => {
    const first = await dashboardKey();
    expect(first.response.status).toBe(200);
    const made = first.data;
    expect(made?.created).toBe(true);
    expect(made?.apiKey).toMatchObject({ name: "dashboard", scopes: ["*"], revokedAt: null });
    const again = await dashboardKey();
    expect(again.data).toMatchObject({ created: false, plaintext: made?.plaintext });
    expect((await listAs(emu, made?.plaintext ?? "")).response.status).toBe(200);
    const keys = await keysOf();
    expect(keys.filter((k) => k.name === "dashboard")).toHaveLength(1);
    await revoke(emu, made?.apiKey.id ?? "");
    const third = (await dashboardKey()).data;
    expect(third?.created).toBe(true);
    expect(third?.plaintext).not.toBe(made?.plaintext);
  });

  test("after a reset the account has one working dashboard key again", async () => {
    await dashboardKey();
    await reset();
    const after = (await dashboardKey()).data;
    expect(after?.created).toBe(true);
    expect((await listAs(emu, after?.plaintext ?? "")).response.status).toBe(200);
    const keys = await keysOf();
    expect(keys.filter((k) => k.name === "dashboard")).toHaveLength(1);
  });

  test("a revoked dashboard key is not made again by a reset, nor by a restart followed by a reset", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "ext-dashboard-revoked-"));
    const revoked: string[] = [];
    // The account's creation time fixed, as an export fixes it: a reset makes it anew with the same one.
    const fixture = baseFixture();
    fixture.accounts[0]!.createdAt = "2026-01-01T00:00:00.000Z";
    try {
      const first = await startTestEmulator({ dataDir, fixture });
      try {
        const key = (await dashboardKey(first)).data;
        await revoke(first, key?.apiKey.id ?? "");
        revoked.push(key?.plaintext ?? "");
        await reset(first);
        const after = (await dashboardKey(first)).data;
        expect(revoked).not.toContain(after?.plaintext);
        await revoke(first, after?.apiKey.id ?? "");
        revoked.push(after?.plaintext ?? "");
      } finally {
        await stopTestEmulator(first, true);
      }
      // A new process knows the revocations only from the rows, which the reset is about to wipe.
      const second = await startTestEmulator({ dataDir, fixture });
      try {
        await reset(second);
        const key = (await dashboardKey(second)).data;
        expect(key?.created).toBe(true);
        expect(revoked).not.toContain(key?.plaintext);
        for (const old of revoked) expect((await listAs(second, old)).response.status).toBe(401);
      } finally {
        await stopTestEmulator(second, true);
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test("a restart revokes the previous run's dashboard key before it serves; the user's own keys are untouched", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "ext-dashboard-restart-"));
    try {
      const first = await startTestEmulator({ dataDir });
      let old: string;
      let own: string[];
      try {
        old = (await dashboardKey(first)).data?.plaintext ?? "";
        expect((await listAs(first, old)).response.status).toBe(200);
        // A key of the user's own, and one they named like the dashboard's: neither is the server's to revoke.
        own = await Promise.all(
          ["ci", "dashboard"].map(async (name) => (await createKey(first, name)).data?.plaintext ?? ""),
        );
      } finally {
        await stopTestEmulator(first, true);
      }
      const second = await startTestEmulator({ dataDir, fixture: null });
      try {
        // The first request this server answers: a tab of the previous run (or whoever it sent its key to) is refused.
        expect((await listAs(second, old)).response.status).toBe(401);
        for (const key of [...own, DEMO_KEY]) expect((await listAs(second, key)).response.status).toBe(200);
        const renewed = (await dashboardKey(second)).data;
        expect(renewed?.created).toBe(true);
        expect(renewed?.plaintext).not.toBe(old);
        expect((await listAs(second, renewed?.plaintext ?? "")).response.status).toBe(200);
        const named = (await keysOf(second)).filter((k) => k.name === "dashboard");
        expect(named.map((k) => k.revokedAt === null)).toEqual([false, true, true]);
      } finally {
        await stopTestEmulator(second, true);
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test("an export writes the dashboard key revoked: seeding it, a reset and restarts never revive it", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "ext-dashboard-export-"));
    try {
      const first = await startTestEmulator({ dataDir });
      let dashboard: string;
      let own: string;
      let exported: Fixture;
      try {
        dashboard = (await dashboardKey(first)).data?.plaintext ?? "";
        own = (await createKey(first, "ci")).data?.plaintext ?? "";
        exported = exportState(first.runtime).document;
        // The export leaves the working key revoked as of its own time; the live key still works for this run.
        const written = exported.accounts
          .find((a) => a.id === "acc_test")
          ?.apiKeys?.find((k) => k.name === "dashboard");
        expect(written?.revokedAt).toBe(exported.exportedAt);
        expect((await listAs(first, dashboard)).response.status).toBe(200);
      } finally {
        await stopTestEmulator(first, true);
      }
      // The export as the start-up fixture (--seed DIR, as --export-on-exit DIR leaves it for the next start);
      // a reset wipes the rows that said the key was revoked and loads the export again.
      for (let start = 0; start < 2; start++) {
        const server = await startTestEmulator({ dataDir, fixture: exported });
        try {
          expect((await listAs(server, dashboard)).response.status).toBe(401);
          expect((await reset(server)).response.status).toBe(200);
          expect((await listAs(server, dashboard)).response.status).toBe(401);
          expect((await listAs(server, own)).response.status).toBe(200);
          // The Keys page shows it revoked; it takes no room under the key cap, and the dashboard gets a new one.
          const named = (await keysOf(server)).filter((k) => k.name === "dashboard");
          expect(named.map((k) => k.revokedAt === null)).toEqual([false]);
          const renewed = (await dashboardKey(server)).data;
          expect(renewed?.created).toBe(true);
          expect((await listAs(server, renewed?.plaintext ?? "")).response.status).toBe(200);
        } finally {
          await stopTestEmulator(server, true);
        }
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test("a snapshot restored after a reset brings its dashboard key back revoked; before a reset, working", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "ext-dashboard-snapshot-"));
    try {
      const first = await startTestEmulator({ dataDir });
      let dashboard: string;
      try {
        dashboard = (await dashboardKey(first)).data?.plaintext ?? "";
        const snap = {
          params: { path: { id: (await first.control.POST("/_emulator/snapshots")).data?.snapshot.id ?? "" } },
        };
        // Same epoch: the run's own key comes back working (the open tab keeps it).
        expect((await first.control.POST("/_emulator/snapshots/{id}/restore", snap)).response.status).toBe(204);
        expect((await listAs(first, dashboard)).response.status).toBe(200);
        // After a reset no start could recognise it: it comes back revoked.
        expect((await reset(first)).response.status).toBe(200);
        expect((await first.control.POST("/_emulator/snapshots/{id}/restore", snap)).response.status).toBe(204);
        expect((await listAs(first, dashboard)).response.status).toBe(401);
        expect((await listAs(first, DEMO_KEY)).response.status).toBe(200);
      } finally {
        await stopTestEmulator(first, true);
      }
      const second = await startTestEmulator({ dataDir, fixture: null });
      try {
        expect((await listAs(second, dashboard)).response.status).toBe(401);
      } finally {
        await stopTestEmulator(second, true);
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test("a restart with no dashboard key changes nothing", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "ext-dashboard-none-"));
    try {
      const first = await startTestEmulator({ dataDir });
      let before: Awaited<ReturnType<typeof keysOf>>;
      try {
        await createKey(first, "dashboard");
        before = await keysOf(first);
      } finally {
        await stopTestEmulator(first, true);
      }
      const second = await startTestEmulator({ dataDir, fixture: null });
      try {
        expect(await keysOf(second)).toEqual(before);
        expect(existsSync(join(dataDir, KEY_EPOCH_FILE))).toBe(false);
      } finally {
        await stopTestEmulator(second, true);
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test("restarts on one data directory never fill the key cap with dashboard keys", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "ext-dashboard-key-"));
    const keys: string[] = [];
    try {
      // Each start revokes the key of the one before and makes one: one active, however many starts.
      for (let start = 0; start < 4; start++) {
        const server = await startTestEmulator({ dataDir, fixture: start === 0 ? undefined : null });
        try {
          const res = await dashboardKey(server);
          expect(res.response.status).toBe(200);
          expect(res.data?.created).toBe(true);
          const plaintext = res.data?.plaintext ?? "";
          keys.push(plaintext);
          expect((await listAs(server, plaintext)).response.status).toBe(200);
          const active = (await keysOf(server)).filter((k) => k.name === "dashboard" && k.revokedAt === null);
          expect(active).toHaveLength(1);
        } finally {
          await stopTestEmulator(server, true);
        }
      }
      expect(new Set(keys).size).toBe(keys.length);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test("another data directory derives other dashboard keys", async () => {
    const other = await startTestEmulator();
    try {
      const here = (await dashboardKey()).data?.plaintext;
      const there = (await dashboardKey(other)).data?.plaintext;
      expect(there).toMatch(/^ext_[0-9A-Za-z]{40}$/);
      expect(there).not.toBe(here);
    } finally {
      await stopTestEmulator(other);
    }
  });

  test("the key list's lastUsedAt is the last request each key authenticated; a reset forgets it", async () => {
    const before = emu.clock.nowMs();
    await emu.client.GET("/developer/v1/extensions");
    const keys = await keysOf();
    const usedAt = Date.parse(keys.find((k) => k.name === "full")?.lastUsedAt ?? "");
    expect(usedAt).toBeGreaterThanOrEqual(before);
    expect(usedAt).toBeLessThanOrEqual(emu.clock.nowMs());
    expect(keys.find((k) => k.name === "read")?.lastUsedAt).toBeNull();
    await reset();
    expect((await keysOf()).every((k) => k.lastUsedAt === null)).toBe(true);
  });

  test("an account at its key cap gets the API's limit_exceeded, naming the cap", async () => {
    for (let i = 0; i < 18; i++)
      expect(
        (
          await emu.control.POST("/_emulator/accounts/{accountId}/keys", {
            ...account(),
            body: { name: `k${i}`, scopes: ["*"] },
          })
        ).response.status,
      ).toBe(201);
    const err = expectEnvelope(await dashboardKey(), 422, "limit_exceeded");
    expect(err.message).toContain("20 active API keys");
  });

  test("an unknown account is a 404", async () => {
    expectEnvelope(await dashboardKey(emu, "acc_nope"), 404, "account_not_found");
  });
});

describe("review queue and bundles", () => {
  test("a pending version is in the queue; its bundle lists files, manifest and warnings; a sound plays", async () => {
    const { extensionId, versionId } = await pendingVersion();
    const queue = (await emu.control.GET("/_emulator/review-queue")).data?.versions;
    expect(queue).toEqual([
      expect.objectContaining({
        versionId,
        extensionId,
        extensionName: "Queue Board",
        accountId: "acc_test",
        version: "1.0.0",
        soundCount: 7,
      }),
    ]);

    const bundle = await emu.control.GET("/_emulator/versions/{versionId}/bundle", byVersion(versionId));
    expect(bundle.response.status).toBe(200);
    expect(jsonAt(bundle.data?.manifest, "name")).toBe("sample");
    expect(bundle.data?.files.map((f) => f.path)).toContain("sounds/s0.mp3");
    expect(bundle.data?.files.find((f) => f.path === "sounds/s0.mp3")).toEqual({
      path: "sounds/s0.mp3",
      size: 256,
      audio: "MP3",
    });
    expect(bundle.data?.truncated).toBe(false);

    const sound = await fetch(`${emu.adminUrl}/versions/${versionId}/sound?path=sounds/s0.mp3`, {
      headers: { authorization: `Bearer ${emu.runtime.control.adminToken}` },
    });
    expect(sound.status).toBe(200);
    expect(sound.headers.get("content-type")).toBe("audio/mpeg");
    expect(sound.headers.get("x-content-type-options")).toBe("nosniff");
    expect((await sound.arrayBuffer()).byteLength).toBe(256);

    // Not a sound: never served, so no bundle file can become a page on this origin.
    expectEnvelope(await soundFile(versionId, "assets/logo.svg"), 404, "bundle_file_not_found");
    expectEnvelope(await soundFile(versionId, "sounds/none.mp3"), 404, "bundle_file_not_found");
    expectEnvelope(
      await emu.control.GET("/_emulator/versions/{versionId}/bundle", byVersion("ver_nope")),
      404,
      "version_not_found",
    );

    await approve(versionId);
    expect((await emu.control.GET("/_emulator/review-queue")).data?.versions).toEqual([]);
  });
});

describe("GET /_emulator/limits", () => {
  test("account scope: usage of extensions, keys and members; per-extension rows are null", async () => {
    await createExtension(emu, "One");
    const res = await limits({ accountId: "acc_test" });
    expect(res.response.status).toBe(200);
    const row = (key: string) => res.data?.limits.find((l) => l.key === key);
    expect(row("max_extensions_per_account")).toMatchObject({ value: 25, usage: 1, source: "platform_default" });
    expect(row("max_api_keys")).toMatchObject({ value: 20, usage: 2 });
    expect(row("max_team_members")).toMatchObject({ value: 10, usage: 1 });
    expect(row("max_secrets_per_extension")?.usage).toBeNull();
    expect(row("max_versions_per_extension")).toMatchObject({ hardMax: 500 });
    // The spec's rate-limit groups, as the limiter enforces them.
    expect(res.data?.rateLimits).toContainEqual({
      group: "get",
      label: "GET endpoints",
      limit: 120,
      periodSeconds: 60,
    });
    expect(res.data?.rateLimits).toContainEqual({
      group: "create_extension",
      label: "POST /extensions",
      limit: 10,
      periodSeconds: 3600,
    });
  });

  test("extension scope: versions, secrets and the current version's sounds against the resolved sound limit", async () => {
    const { extensionId, versionId } = await pendingVersion();
    await approve(versionId);
    await emu.client.PUT("/developer/v1/extensions/{id}/secrets/{key}", {
      params: { path: { id: extensionId, key: "API_TOKEN" } },
      body: { value: "s3cr3t-value-1" },
    });
    await emu.control.PUT("/_emulator/overrides/extensions/{id}", {
      params: { path: { id: extensionId } },
      body: { max_sounds_per_extension: 80 },
    });
    const res = await limits({ accountId: "acc_test", extensionId });
    const row = (key: string) => res.data?.limits.find((l) => l.key === key);
    expect(row("max_sounds_per_extension")).toMatchObject({ value: 80, source: "extension_override", usage: 7 });
    expect(row("max_versions_per_extension")?.usage).toBe(1);
    expect(row("max_secrets_per_extension")?.usage).toBe(1);
    expectEnvelope(await limits({ accountId: "acc_other", extensionId }), 404, "extension_not_found");
  });
});

describe("request detail", () => {
  test("keeps the query, masked Authorization, a small JSON body and an error body; never a secret value", async () => {
    const extensionId = await createExtension(emu, "Detailed");
    // A query the document does not have, and a visibility outside its enum: raw, so the log keeps them.
    await developer("GET", "/extensions?limit=1");
    await emu.client.PUT("/developer/v1/extensions/{id}/secrets/{key}", {
      params: { path: { id: extensionId, key: "TOKEN" } },
      body: { value: "never-in-the-log-42" },
    });
    await developer("PATCH", `/extensions/${extensionId}`, { json: { visibility: "nope" } });
    const [patch, put, get, post] = await requests();
    expect([patch?.method, put?.method, get?.method, post?.method]).toEqual(["PATCH", "PUT", "GET", "POST"]);

    const created = (await requestDetail(post?.id ?? 0)).data;
    expect(created?.detail.requestBody).toBe(JSON.stringify({ name: "Detailed" }));
    expect(created?.detail.requestHeaders.authorization).toBe(`Bearer ${DEMO_KEY.slice(0, 8)}…`);
    expect(JSON.stringify(created)).not.toContain(DEMO_KEY);

    expect((await requestDetail(get?.id ?? 0)).data?.detail.query).toBe("limit=1");

    const secret = (await requestDetail(put?.id ?? 0)).data;
    expect(secret?.detail.requestBody).toBeNull();
    expect(secret?.detail.requestBodyNote).toContain("secret");
    expect(JSON.stringify(secret)).not.toContain("never-in-the-log-42");

    const failed = (await requestDetail(patch?.id ?? 0)).data;
    expect(failed?.status).toBe(422);
    expect(errorOf(JSON.parse(failed?.detail.responseBody ?? "null"))?.code).toBe("validation_error");

    expectEnvelope(await requestDetail(999999), 404, "request_not_found");
  });

  test("keeps a JSON success answer too; credentials in any kept body are masked like the header", async () => {
    const extensionId = await createExtension(emu, "Answered");
    const generated = `ext_${"Ab1".repeat(13)}x`;
    await patchExtension(extensionId, { short_description: `pasted ${DEMO_KEY}`, description: generated });
    // Refused (no such field), but its body is kept: the token must be masked there too. Raw: no such field.
    await developer("PATCH", `/extensions/${extensionId}`, { json: { token: "tok-1234567" } });
    const [refused, patch] = await requests();

    const patched = (await requestDetail(patch?.id ?? 0)).data?.detail;
    expect(JSON.parse(patched?.responseBody ?? "null")).toMatchObject({ id: extensionId, name: "Answered" });
    const sent = JSON.parse(patched?.requestBody ?? "null");
    expect(sent).toEqual({
      short_description: `pasted ${DEMO_KEY.slice(0, 8)}…`,
      description: `${generated.slice(0, 8)}…`,
    });
    expect(JSON.stringify(patched)).not.toContain(generated);
    expect(JSON.stringify(patched)).not.toContain(DEMO_KEY);
    const refusedDetail = (await requestDetail(refused?.id ?? 0)).data?.detail;
    expect(JSON.parse(refusedDetail?.requestBody ?? "null")).toEqual({ token: "tok-…" });
    expect(JSON.stringify(refusedDetail)).not.toContain("tok-1234567");
  });

  test("keeps the body of a small JSON write answered before the handler read it (a 401)", async () => {
    const sent = JSON.stringify({ name: "Never Authorized" });
    const res = await fetch(`${emu.baseUrl}/extensions`, {
      method: "POST",
      headers: { authorization: "Bearer ext_unknown_key_0123456789abcdefghij", "content-type": "application/json" },
      body: sent,
    });
    expect(res.status).toBe(401);
    const [entry] = await requests(1);
    expect([entry?.method, entry?.status]).toEqual(["POST", 401]);
    // Read after the response was sent: wait for it rather than for a fixed time.
    const requestBody = await waitFor(
      async () => (await requestDetail(entry?.id ?? 0)).data?.detail.requestBody,
      "the kept request body",
    );
    expect(requestBody).toBe(sent);
  });
});

describe("the request log's client field", () => {
  test("is dashboard only for the exact header X-Ext-Client: dashboard, whatever the key; null otherwise", async () => {
    const handed = (await dashboardKey()).data?.plaintext ?? "";
    const sent: [string, string | undefined, string | null][] = [
      ["/extensions?by=page", "dashboard", "dashboard"],
      // The CLI acts with the same key and sends no such header: its requests are not the dashboard's.
      ["/extensions?by=cli", undefined, null],
      ["/extensions?by=case", "Dashboard", null],
      ["/extensions?by=longer", "dashboard-x", null],
      ["/extensions?by=list", "dashboard, dashboard", null],
      ["/extensions?by=other", "cli", null],
    ];
    for (const [path, header] of sent)
      expect(
        (
          await developer("GET", path, {
            key: handed,
            headers: header === undefined ? {} : { "x-ext-client": header },
          })
        ).status,
      ).toBe(200);
    // An unauthenticated request can say it too: the field says who sent it, not whose key it was.
    expect(
      (await developer("GET", "/extensions?by=nokey", { key: null, headers: { "x-ext-client": "dashboard" } })).status,
    ).toBe(401);

    const list = (await requests()).reverse();
    expect(list.map((e): string | null => e.client)).toEqual([...sent.map(([, , client]) => client), "dashboard"]);
    const stream = await fetch(`${emu.url}/_emulator/requests/stream?recent=${sent.length + 1}`, {
      headers: { accept: "text/event-stream", authorization: `Bearer ${emu.runtime.control.adminToken}` },
      signal: AbortSignal.timeout(10_000),
    });
    const reader = stream.body!.getReader();
    let text = "";
    expect(stream.status).toBe(200);
    while ((text.match(/^data: /gm) ?? []).length < sent.length + 1) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended after: ${text}`);
      text += new TextDecoder().decode(value);
    }
    await reader.cancel();
    const streamed = [...text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]!).client);
    expect(streamed).toEqual([...sent.map(([, , client]) => client), "dashboard"]);
    // The detail lists the header as sent, for any value.
    expect((await requestDetail(list[2]?.id ?? 0)).data?.detail.requestHeaders["x-ext-client"]).toBe("Dashboard");
  });
});

describe("GET /_emulator/requests/stream", () => {
  test("sends recent entries, then each new request as it completes", async () => {
    const get = (id: string) => emu.client.GET("/developer/v1/extensions/{id}", { params: { path: { id } } });
    await get("ext_before");
    const controller = new AbortController();
    const res = await fetch(`${emu.adminUrl}/requests/stream?recent=1`, {
      headers: { authorization: `Bearer ${emu.runtime.control.adminToken}` },
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/event-stream");
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    const waitFor = async (needle: string) => {
      while (!text.includes(needle)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended before ${needle}`);
        text += decoder.decode(value, { stream: true });
      }
    };
    await waitFor("/extensions/ext_before");
    await get("ext_after");
    await waitFor("/extensions/ext_after");
    const events = text.split("\n\n").filter((e) => e.includes("event: request"));
    const last = JSON.parse(
      events
        .at(-1)!
        .split("\n")
        .find((l) => l.startsWith("data: "))!
        .slice(6),
    );
    expect(last).toMatchObject({
      method: "GET",
      path: "/developer/v1/extensions/ext_after",
      status: 404,
      accountId: "acc_test",
    });
    controller.abort();
  });
});
