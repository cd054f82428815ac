/**
 * What the installs tests share: an extension made through the API, and approved versions inserted as rows
 * directly (as review would leave them), so these tests do not depend on the versions API.
 */
import { expect } from "bun:test";
import { versions } from "../../src/db/schema";
import type { TestEmulator, TestResponse } from "../helpers/emulator";

let seq = 0;

export async function newExtension(emu: TestEmulator, name: string): Promise<string> {
  const res = await emu.api("POST", "/extensions", { json: { name } });
  expect(res.status).toBe(201);
  return res.body.extension.id;
}

/** A version row as review would leave it; `current` also points the extension at it. */
export function addVersion(
  emu: TestEmulator,
  extensionId: string,
  label: string,
  opts: { status?: string; soundCount?: number; current?: boolean } = {},
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

/** The call must succeed; returns the statistics it answers with. */
export async function ok(res: Promise<TestResponse>) {
  const r = await res;
  if (r.status !== 200) throw new Error(`expected 200, got ${r.status} ${r.text}`);
  return r.body;
}
