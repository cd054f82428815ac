/**
 * What the installs tests share: an extension made through the API, and approved versions inserted as rows
 * directly (as review would leave them), so these tests do not depend on the versions API.
 */
import { expect } from "bun:test";
import { versions } from "../../server/db/schema";
import type { VersionStatus } from "../../server/resources/versions/model";
import { DEMO_KEY, type TestEmulator } from "../helpers/emulator";

let seq = 0;

export async function newExtension(emu: TestEmulator, name: string): Promise<string> {
  const res = await emu.client.POST("/developer/v1/extensions", { body: { name } });
  expect(res.response.status).toBe(201);
  if (!res.data) throw new Error(`the extension was not created: ${JSON.stringify(res.error)}`);
  return res.data.extension.id;
}

/** A version row as review would leave it; `current` also points the extension at it. */
export function addVersion(
  emu: TestEmulator,
  extensionId: string,
  label: string,
  opts: { status?: VersionStatus; soundCount?: number; current?: boolean } = {},
): string {
  const id = `ver_test_${label.replace(/\W/g, "_")}_${++seq}`;
  const now = emu.clock.iso();
  const status = opts.status ?? "approved";
  emu.runtime.db.write((tx) =>
    tx
      .insert(versions)
      .values({
        id,
        extensionId,
        seq,
        version: label,
        status,
        bundleBlobId: `blob_none_${seq}`,
        bundleSizeBytes: 100,
        bundleSha256: "0".repeat(64),
        soundCount: opts.soundCount ?? 0,
        submittedAt: now,
        approvedAt: status === "approved" ? now : null,
      })
      .run(),
  );
  if (opts.current)
    emu.runtime.db.write(() =>
      emu.runtime.db.$client.prepare("UPDATE extensions SET current_version_id = ? WHERE id = ?").run(id, extensionId),
    );
  return id;
}

/** The typed client's call must succeed with a 200; returns what it answers with. */
export async function ok<T>(res: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const r = await res;
  if (r.response.status !== 200 || r.data === undefined)
    throw new Error(`expected 200, got ${r.response.status} ${JSON.stringify(r.error)}`);
  return r.data;
}

type CountBody = { versionId?: string; count?: number };
type RolloutBody = { fromVersionId?: string; toVersionId?: string; count?: number };

/** The end users' side of the platform, through the control plane: installs, uninstalls, rollouts. */
/** `emulator` is asked on each call: the test file starts its emulator after these are made. */
export function installCalls(emulator: () => TestEmulator) {
  const path = (id: string) => ({ params: { path: { id } } });
  return {
    install: (id: string, body: CountBody = {}) =>
      emulator().control.POST("/_emulator/extensions/{id}/installs", { ...path(id), body }),
    uninstall: (id: string, body: CountBody = {}) =>
      emulator().control.POST("/_emulator/extensions/{id}/uninstalls", { ...path(id), body }),
    rollout: (id: string, body: RolloutBody = {}) =>
      emulator().control.POST("/_emulator/extensions/{id}/rollouts", { ...path(id), body }),
    /** The developer's view of the statistics. */
    stats: async (id: string, key?: string) => {
      const res = await emulator()
        .clientFor(key ?? DEMO_KEY)
        .GET("/developer/v1/extensions/{id}/installs", path(id));
      expect(res.response.status).toBe(200);
      if (!res.data) throw new Error(`no statistics: ${JSON.stringify(res.error)}`);
      return res.data;
    },
    extension: async (id: string) => ok(emulator().client.GET("/developer/v1/extensions/{id}", path(id))),
    listed: async (id: string) =>
      (await ok(emulator().client.GET("/developer/v1/extensions"))).extensions.find((e) => e.id === id),
    advanceClock: (seconds: number) =>
      ok(emulator().control.POST("/_emulator/clock", { body: { advanceSeconds: seconds } })),
  };
}
