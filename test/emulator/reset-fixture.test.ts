/**
 * A reset re-applies the start-up fixture with statements kept from earlier loads: reset after reset, in
 * memory and in a data directory, the rows are those of a fresh start with the same fixture (ids, times and
 * generated keys aside), and so is the load report.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EmulatorClock } from "../../server/base/clock";
import { parseServerConfig } from "../../server/base/config";
import { createLogger } from "../../server/base/logger";
import { emulatorState, resetEmulator } from "../../server/control-plane/reset";
import { createRuntime, type Runtime } from "../../server/runtime/runtime";
import type { Fixture, SeedReport } from "../../server/seed/model";

const fixture: Fixture = {
  accounts: [
    {
      id: "acc_rich",
      name: "Rich Developer",
      apiKeys: [
        { name: "given", key: "ext_reset_fixture_0123456789abcdefghijkl", scopes: ["*"] },
        { name: "generated", scopes: ["extensions:read"] },
      ],
      overrides: { max_sounds_per_extension: 80 },
      teamMembers: [{ email: "dev@example.com", role: "developer" }],
      extensions: [
        {
          id: "ext_rich",
          name: "Sound Board",
          visibility: "public",
          status: "approved",
          overrides: { max_sounds_per_extension: 120 },
          versions: [{ version: "1.0.0" }, { version: "1.1.0", changelog: "Faster start" }],
          installs: { byVersion: { "1.0.0": 25, "1.1.0": 100 }, active: 90 },
        },
        { name: "Derived Id", versions: [{ version: "0.1.0", status: "pending" }] },
      ],
    },
    {
      id: "acc_plain",
      name: "Plain",
      apiKeys: [{ name: "k", key: "ext_reset_fixture_plain_0123456789abcdef", scopes: ["*"] }],
    },
  ],
};

const opened: Runtime[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const r of opened.splice(0)) r.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function start(memory: boolean): Runtime {
  const dataDir = mkdtempSync(join(tmpdir(), "ext-reset-fixture-"));
  dirs.push(dataDir);
  const config = parseServerConfig(memory ? { memory: true, logLevel: "silent" } : { dataDir, logLevel: "silent" }, {});
  const r = createRuntime(config, { logger: createLogger("silent"), clock: new EmulatorClock(), seedFixture: fixture });
  opened.push(r);
  return r;
}

/** Every row the fixture writes, without what differs from one load to the next (ids, times, generated keys). */
function content(r: Runtime) {
  const all = (sql: string) => r.db.$client.query(sql).all();
  return {
    state: emulatorState(r).counts,
    accounts: all("SELECT id, name FROM accounts ORDER BY id"),
    keys: all(
      "SELECT account_id, name, scopes, revoked_at, CASE WHEN name = 'generated' THEN NULL ELSE key_hash END AS hash FROM api_keys ORDER BY account_id, name",
    ),
    members: all("SELECT account_id, email, role FROM team_members ORDER BY email"),
    accountOverrides: all("SELECT account_id, limit_key, value FROM account_overrides ORDER BY account_id, limit_key"),
    extensions: all(
      "SELECT e.id, e.slug, e.name, e.status, e.visibility, e.listed_at IS NOT NULL AS listed, v.version AS current FROM extensions e LEFT JOIN versions v ON v.id = e.current_version_id ORDER BY e.id",
    ),
    extensionOverrides: all(
      "SELECT extension_id, limit_key, value FROM extension_overrides ORDER BY extension_id, limit_key",
    ),
    versions: all(
      "SELECT extension_id, seq, version, status, changelog, bundle_size_bytes, bundle_sha256 FROM versions ORDER BY extension_id, seq",
    ),
    installs: all(
      "SELECT v.version, c.installed, c.active FROM install_counters c JOIN versions v ON v.id = c.version_id ORDER BY v.version",
    ),
  };
}

/** The load report without the generated key's plaintext, which is new on every load. */
const shape = (report: SeedReport | null) =>
  report && { ...report, keys: report.keys.map(({ key, ...k }) => ({ ...k, generatedKey: typeof key === "string" })) };

describe.each([
  ["in memory", true],
  ["in a data directory", false],
])("reset with a fixture, %s", (_mode, memory) => {
  test("each reset leaves what a fresh start left, and reports the same load", () => {
    const r = start(memory);
    const fresh = content(r);
    expect(fresh.state).toMatchObject({
      accounts: 2,
      apiKeys: 3,
      teamMembers: 1,
      extensions: 2,
      versions: 3,
      bundleFiles: 3,
      activeInstalls: 90,
      installs: 125,
    });
    for (let i = 0; i < 3; i++) {
      r.services.extensions.create("acc_plain", { name: `Written ${i}` });
      const report = resetEmulator(r);
      expect(shape(report.seed)).toEqual(shape(r.startupSeedReport));
      expect(content(r)).toEqual(fresh);
    }
  });
});
