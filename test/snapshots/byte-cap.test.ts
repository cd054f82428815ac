/** Snapshots are bounded by the bytes of rows they hold together, not only by their count. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { ApiError } from "../../server/errors/api-error";
import { createSnapshotStore } from "../../server/resources/snapshots/store";
import { startTestEmulator, stopTestEmulator, type TestEmulator } from "../helpers/emulator";

let emu: TestEmulator;
beforeAll(async () => {
  emu = await startTestEmulator();
  // About 400 KB of rows: 20 extensions with a 20,000-character description each.
  for (let i = 0; i < 20; i++) {
    const created = await emu.client.POST("/developer/v1/extensions", {
      body: { name: `Large ${i}`, short_description: "x", description: "d".repeat(20_000) },
    });
    expect(created.response.status).toBe(201);
  }
});
afterAll(() => stopTestEmulator(emu));

const refusalOf = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return e as ApiError;
  }
  throw new Error("not refused");
};

test("past the byte cap a snapshot is a 422 limit_exceeded saying how much is held; a deletion makes room", () => {
  const { db, blobs, clock } = emu.runtime;
  const store = createSnapshotStore({ db, blobs, clock, bytesMax: 1024 * 1024 });
  try {
    const first = store.take();
    store.take();
    const refusal = refusalOf(() => store.take());
    expect(refusal).toBeInstanceOf(ApiError);
    expect([refusal.status, refusal.code]).toEqual([422, "limit_exceeded"]);
    expect(refusal.message).toMatch(
      /^Snapshots keep at most 1\.0 MB of rows in memory together: this one \(\d+ KB\) would bring them to 1\.\d MB\. Delete one/,
    );
    expect(store.list()).toHaveLength(2);
    store.remove(first);
    store.take();
    expect(store.list()).toHaveLength(2);
  } finally {
    store.clear();
  }
});

test("a state larger than the whole cap cannot be snapshotted at all, and nothing is kept", () => {
  const { db, blobs, clock } = emu.runtime;
  const store = createSnapshotStore({ db, blobs, clock, bytesMax: 100 * 1024 });
  try {
    expect(refusalOf(() => store.take()).code).toBe("limit_exceeded");
    expect(store.list()).toEqual([]);
  } finally {
    store.clear();
  }
});
