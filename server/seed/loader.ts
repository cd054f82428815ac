/**
 * Applies a fixture, or an export (a fixture with the exported fields: ids, timestamps, statuses, hashes,
 * bundles). Every row goes in through its table's one writer — the one the API's services call, with its
 * defaults and rules (server/resources/accounts/writer.ts, key-writer.ts, member-writer.ts, server/resources/limits/overrides.ts,
 * server/resources/extensions/writer.ts, server/resources/versions/writer.ts, server/resources/installs/service.ts, server/resources/secrets/service.ts,
 * server/resources/limit-requests/service.ts) — and a version's status through review's transitions
 * (server/resources/versions/review.ts); a refusal is the API's own message at the entry's path.
 *
 * Idempotent: what already exists (an account, key, extension, version or limit request by id, a key by its
 * name or hash, a member by email, a secret by name) is left as it is, and overrides and install statistics are
 * set to the fixture's values, so loading the same file twice changes nothing. All of it happens in one
 * transaction, the clock set once it has committed: a fixture that fails half-way leaves nothing behind.
 */

import { generateApiKey } from "../../common/api-key";
import { errors } from "../errors/catalog";
import { type BundleDir, checkBundleFiles, createBundleFiles } from "./bundle-files";
import { loadExtension } from "./extensions";
import { apiRule, FixtureError, problemFromApiError } from "./fixture-error";
import { collectingPass } from "./large-pass";
import type { FixtureDeps, Load } from "./load";
import type { Fixture, SeedReport } from "./model";

type FixtureAccount = Fixture["accounts"][number];

export function createFixtureLoader(deps: FixtureDeps): (fixture: Fixture, bundleDir?: BundleDir) => SeedReport {
  return (fixture, bundleDir = null) => applyFixture(deps, fixture, bundleDir);
}

function applyFixture(deps: FixtureDeps, fixture: Fixture, bundleDir: BundleDir): SeedReport {
  const { db, clock } = deps;
  // Before anything is written: an export's bundles/ holds exactly the files its fixture names.
  if (bundleDir !== null) checkBundleFiles(bundleDir, fixture);
  const report: SeedReport = { accountsCreated: 0, extensionsCreated: 0, keys: [] };
  const bundles = createBundleFiles(deps, bundleDir);
  try {
    db.write(() => {
      const load: Load = { deps, now: clock.iso(), bundles, report, slugs: new Map() };
      const collect = collectingPass();
      for (const [i, acc] of fixture.accounts.entries()) {
        collect();
        loadAccount(load, acc, `accounts[${i}]`);
      }
    });
  } catch (e) {
    bundles.discard();
    throw e;
  }
  // Validated with the rows (server/seed/instants.ts), so it cannot fail once they are in.
  if (fixture.clock)
    clock.set(
      fixture.clock.now === undefined ? clock.nowMs() : Date.parse(fixture.clock.now),
      fixture.clock.mode === "frozen",
    );
  return report;
}

function loadAccount(load: Load, acc: FixtureAccount, at: string): void {
  const { services } = load.deps;
  if (!services.accountWriter.exists(acc.id)) {
    services.accountWriter.insertAccount({ id: acc.id, name: acc.name, createdAt: acc.createdAt ?? load.now });
    load.report.accountsCreated++;
  }
  if (acc.overrides && Object.keys(acc.overrides).length > 0)
    services.overrides.setOverrides("account", acc.id, acc.overrides);
  for (const [j, k] of (acc.apiKeys ?? []).entries()) loadKey(load, acc.id, k, `${at}.apiKeys[${j}]`);
  for (const [j, m] of (acc.teamMembers ?? []).entries()) {
    const members = services.memberWriter;
    if (members.withEmail(acc.id, m.email)) continue;
    const member = { id: m.id, accountId: acc.id, email: m.email, role: m.role, createdAt: m.createdAt ?? load.now };
    apiRule(`${at}.teamMembers[${j}]`, () => members.insertMember(member));
  }
  for (const [j, x] of (acc.extensions ?? []).entries()) loadExtension(load, acc.id, x, `${at}.extensions[${j}]`);
  for (const [j, r] of (acc.limitRequests ?? []).entries()) {
    const requests = services.limitRequests;
    const rat = `${at}.limitRequests[${j}]`;
    const holder = requests.accountOf(r.id);
    if (holder === acc.id) continue;
    if (holder !== undefined) throw refusal(errors.idTaken(r.id, "another account's limit request"), rat);
    apiRule(`${rat}.extensionId`, () => requests.checkTarget(acc.id, r.extensionId));
    apiRule(rat, () => requests.insertLimitRequest({ ...r, accountId: acc.id }));
  }
}

const refusal = (e: Parameters<typeof problemFromApiError>[0], at: string) =>
  new FixtureError([problemFromApiError(e, at)]);

/**
 * A key of an export (given with its id or hash) or a revoked one is found again by its id, else by its hash
 * (the same key loaded here by its fixture before); any other by its name among the account's active keys
 * (validateFixture holds those names unique). Found in the account, it is left as it is; anything else is
 * inserted, and the writer refuses a hash or an id another key holds.
 */
function loadKey(load: Load, accountId: string, k: NonNullable<FixtureAccount["apiKeys"]>[number], at: string) {
  const { keyHasher, fixturePlaintexts, services } = load.deps;
  const keys = services.keyWriter;
  const hash = k.key !== undefined ? keyHasher.hash(k.key) : k.keyHash;
  if (k.key !== undefined && hash !== undefined) fixturePlaintexts.set(hash, k.key);
  const byName = k.id === undefined && k.keyHash === undefined && k.revokedAt === undefined;
  const found = byName
    ? keys.activeNamed(accountId, k.name)
    : ((k.id !== undefined ? keys.byId(k.id) : undefined) ?? (hash !== undefined ? keys.byHash(hash) : undefined));
  if (found && found.accountId === accountId) {
    load.report.keys.push({ accountId, name: k.name, created: false });
    return;
  }
  const generated = k.key === undefined && k.keyHash === undefined ? generateApiKey() : undefined;
  const plaintext = k.key ?? generated;
  const common = {
    id: k.id,
    accountId,
    name: k.name,
    scopes: k.scopes,
    createdAt: k.createdAt ?? load.now,
    revokedAt: k.revokedAt,
  };
  apiRule(at, () =>
    keys.insertKey(
      plaintext !== undefined
        ? { ...common, plaintext, keyPrefix: k.keyPrefix }
        : { ...common, keyHash: k.keyHash!, keyPrefix: k.keyPrefix },
    ),
  );
  load.report.keys.push({ accountId, name: k.name, created: true, ...(generated ? { key: generated } : {}) });
}
