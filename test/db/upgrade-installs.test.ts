/**
 * Upgrading a data directory written before install statistics became counters: the migration turns the
 * install rows into one counter row per (extension, version) with the same aggregates, drops the rows, and
 * the emulator opened on the upgraded directory answers as before.
 */

import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { EmulatorClock } from "../../server/base/clock";
import { parseServerConfig } from "../../server/base/config";
import { createLogger } from "../../server/base/logger";
import { migrationMetas } from "../../server/db/migrations";
import { createRuntime } from "../../server/runtime/runtime";

const dataDir = mkdtempSync(join(tmpdir(), "ext-upgrade-installs-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** A data dir as the previous schema (the first migration only) left it, with installs as rows. */
function writeOldDataDir() {
  const sqlite = new Database(join(dataDir, "ext.sqlite"), { create: true, strict: true });
  sqlite.exec("PRAGMA foreign_keys = ON;");
  const db = drizzle({ client: sqlite });
  (db as any).dialect.migrate(migrationMetas().slice(0, 1), (db as any).session, {});
  const at = (m: number) => `2026-11-0${m}T10:00:00.000Z`;
  sqlite.exec(`INSERT INTO accounts (id, name, created_at) VALUES ('acc_old', 'Old', '${at(1)}')`);
  sqlite.exec(
    `INSERT INTO extensions (id, account_id, slug, name, pricing, created_at, updated_at, current_version_id) VALUES ('ext_old', 'acc_old', 'old', 'Old', '{"type":"free"}', '${at(1)}', '${at(1)}', 'ver_b')`,
  );
  for (const [id, seq] of [
    ["ver_a", 1],
    ["ver_b", 2],
  ] as const) {
    sqlite.exec(
      `INSERT INTO versions (id, extension_id, seq, version, status, bundle_blob_id, bundle_size_bytes, bundle_sha256, submitted_at, approved_at) VALUES ('${id}', 'ext_old', ${seq}, '${seq}.0.0', 'approved', 'blob_x${seq}', 1, 'x', '${at(1)}', '${at(1)}')`,
    );
  }
  const rows: [string, string, string | null][] = [
    ["ver_a", at(2), null],
    ["ver_a", at(2), at(4)],
    ["ver_a", at(3), null],
    ["ver_b", at(5), null],
    ["ver_b", at(5), at(6)],
  ];
  rows.forEach(([versionId, installedAt, uninstalledAt], i) => {
    sqlite
      .prepare(
        "INSERT INTO installs (id, extension_id, version_id, installed_at, uninstalled_at) VALUES (?, 'ext_old', ?, ?, ?)",
      )
      .run(`ins_${i}`, versionId, installedAt, uninstalledAt);
  });
  sqlite.close();
}

test("install rows become counters with the same aggregates; the rows' table is gone", () => {
  writeOldDataDir();
  const runtime = createRuntime(parseServerConfig({ dataDir, logLevel: "silent" }, {}), {
    logger: createLogger("silent"),
    clock: new EmulatorClock(),
  });
  try {
    const { $client } = runtime.db;
    expect($client.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'installs'").all()).toEqual(
      [],
    );
    expect(
      $client
        .query("SELECT version_id, installed, active, first_installed_at FROM install_counters ORDER BY version_id")
        .all(),
    ).toEqual([
      { version_id: "ver_a", installed: 3, active: 2, first_installed_at: "2026-11-02T10:00:00.000Z" },
      { version_id: "ver_b", installed: 2, active: 1, first_installed_at: "2026-11-05T10:00:00.000Z" },
    ]);
    expect(runtime.services.installs.stats("ext_old")).toEqual({
      total: 5,
      active: 3,
      byVersion: { ver_a: 2, ver_b: 1 },
    });
    expect(runtime.services.extensions.get("acc_old", "ext_old").installCount).toBe(5);
  } finally {
    runtime.close();
  }
});
