/**
 * Everything a running emulator owns — config, clock, database, blob store, rate windows and the services
 * built on them — created once and passed down. Routes, CLI commands and tests all go through this.
 */
import { closeSync, existsSync, openSync } from "node:fs";
import { join, resolve } from "node:path";
import { count, eq, sql } from "drizzle-orm";
import { markStartup } from "../../common/startup-trace";
import { createKeyHasher, type KeyHasher } from "../auth/keys";
import { createAuthService } from "../auth/service";
import { EmulatorClock } from "../base/clock";
import type { ServerConfig } from "../base/config";
import { createLogger, type Logger } from "../base/logger";
import { onFirstUse, onFirstUseEach } from "../base/on-first-use";
import { BlobStore } from "../blobs/blob-store";
import { ignoreInVersionControl } from "../data-dir/ignore";
import { createMemoryDir, lockDataDir } from "../data-dir/lock";
import { makeDataDirPrivate, PRIVATE_FILE_MODE } from "../data-dir/modes";
import { type Db, openDatabase } from "../db/database";
import { accounts as accountRows, versions } from "../db/schema";
import { type LoadedProfile, profileFromValue, readProfileFile } from "../profile/load";
import { RateLimiter } from "../ratelimit/limiter";
import { activeDashboardKeyRows, createDashboardKeys } from "../resources/accounts/dashboard-key";
import { fileKeyEpoch, type KeyEpoch, memoryKeyEpoch } from "../resources/accounts/dashboard-key-epoch";
import { createKeyWriter, type KeyWriter } from "../resources/accounts/key-writer";
import { createMemberWriter, type MemberWriter } from "../resources/accounts/member-writer";
import { createAccountService } from "../resources/accounts/service";
import { createAccountWriter } from "../resources/accounts/writer";
import { createAdminStatusService } from "../resources/extensions/admin-status";
import { createExtensionService } from "../resources/extensions/service";
import { createInstallService } from "../resources/installs/service";
import { createLimitRequestService } from "../resources/limit-requests/service";
import { createOverrideService } from "../resources/limits/overrides";
import { createLimitsService } from "../resources/limits/service";
import { createLimitUsage } from "../resources/limits/usage";
import { createLimitsView } from "../resources/limits/view";
import {
  createSecretCipher,
  ephemeralKey,
  loadOrCreateKeyFile,
  SECRETS_KEY_FILE,
  type SecretCipher,
} from "../resources/secrets/cipher";
import { createSecretService } from "../resources/secrets/service";
import { createSnapshotStore, type SnapshotStore } from "../resources/snapshots/store";
import { createBundleContents } from "../resources/versions/bundle-contents";
import { createReviewQueue } from "../resources/versions/review-queue";
import { createVersionService } from "../resources/versions/service";
import type { BundleDir } from "../seed/bundle-files";
import { createFixtureLoader } from "../seed/loader";
import type { Fixture, SeedReport } from "../seed/model";
import { resolveFixtureSource } from "../seed/resolve";
import { type StarterAccount, starterFixture } from "../seed/starter";
import { validateFixture } from "../seed/validate";
import { startAutoApprove } from "./control-state/auto-approve";
import { type ControlPlane, createControlPlane } from "./control-state/control";
import { createEmulatorStore } from "./control-state/store";

export interface RuntimeOptions {
  logger?: Logger;
  clock?: EmulatorClock;
  /** A fixture given as an object (programmatic start) instead of `config.seed`. */
  seedFixture?: Fixture;
  /** The export directory `seedFixture` came from, whose bundle files it names. */
  seedBundleDir?: BundleDir;
  /** The file (or folder) `seedFixture` was read from, named when it brings a profile. */
  seedSource?: string;
  /** A platform profile already loaded (startEmulator's `profile`, a CLI that read the file): wins over the config's. */
  profile?: LoadedProfile;
  /**
   * With no start-up fixture and no account in the database, create the starter account (`ext serve`): done by
   * startServer once it listens (createStarterAccount), never by a start that fails.
   */
  starterAccount?: boolean;
}

interface Storage {
  db: Db;
  blobRoot: string;
  secretKey: Buffer;
  keyEpoch: KeyEpoch;
  release(): void;
}

/** The database, blob root and secrets key, in memory or in the data directory, behind its lock. */
function openStorage(config: ServerConfig, logger: Logger): Storage {
  if (config.memory) {
    const memoryDir = createMemoryDir();
    if (memoryDir.swept.length > 0)
      logger.info("removed memory directories of servers that are gone", { count: memoryDir.swept.length });
    // Memory mode: the key dies with the process, like the data it protects.
    return {
      db: openDatabase(":memory:"),
      blobRoot: join(memoryDir.dir, "blobs"),
      secretKey: ephemeralKey(),
      keyEpoch: memoryKeyEpoch(),
      release: memoryDir.release,
    };
  }
  const dir = resolve(config.dataDir);
  const created = !existsSync(dir);
  const tightened = makeDataDirPrivate(dir);
  if (tightened.length > 0)
    logger.warn("made the data directory private (others could read it): folders 0700, files 0600", {
      dir,
      changed: tightened.length,
    });
  // The only writer of its data directory: what the read caches rely on (server/db/generation.ts).
  const lock = lockDataDir(dir);
  if (created) ignoreInVersionControl(dir);
  try {
    // Before the database opens: a damaged key file refuses the start (SecretsKeyError) and leaves nothing open.
    const loaded = loadOrCreateKeyFile(join(dir, SECRETS_KEY_FILE));
    const file = join(dir, "ext.sqlite");
    // Created 0600 before SQLite opens it: its WAL and shared-memory files take the database file's mode.
    closeSync(openSync(file, "a", PRIVATE_FILE_MODE));
    return {
      db: openDatabase(file),
      blobRoot: join(dir, "blobs"),
      secretKey: loaded.key,
      keyEpoch: fileKeyEpoch(dir),
      release: lock.release,
    };
  } catch (e) {
    lock.release();
    throw e;
  }
}

function buildServices(
  db: Db,
  clock: EmulatorClock,
  blobs: BlobStore,
  cipher: SecretCipher,
  keyHasher: KeyHasher,
  keyEpoch: KeyEpoch,
) {
  // Each built on its first use (server/base/on-first-use.ts): a service prepares its SQL statements when it is built,
  // and a start needs few of them until a request or the fixture does. A maker that reads another service
  // through `services` names its type (TypeScript cannot infer an object from makers that read it).
  const services = onFirstUseEach({
    limits: () => createLimitsService(db),
    generation: () => db.generation,
    auth: () => createAuthService(db, db.credentialsGeneration, keyHasher),
    extensions: (): ReturnType<typeof createExtensionService> =>
      createExtensionService({ db, clock, limits: services.limits, blobs, generation: db.generation }),
    secrets: (): ReturnType<typeof createSecretService> =>
      createSecretService({ db, clock, limits: services.limits, extensions: services.extensions, cipher }),
    installs: (): ReturnType<typeof createInstallService> =>
      createInstallService({
        db,
        clock,
        limits: services.limits,
        extensions: services.extensions,
        generation: db.generation,
      }),
    versions: (): ReturnType<typeof createVersionService> =>
      createVersionService({ db, clock, limits: services.limits, blobs, extensions: services.extensions }),
    limitsView: (): ReturnType<typeof createLimitsView> =>
      createLimitsView({ db, limits: services.limits, extensions: services.extensions, generation: db.generation }),
    // Control-plane domain services.
    // The writers of the account tables (server/resources/accounts/): the API's services and the fixture loader share them.
    accountWriter: () => createAccountWriter(db),
    keyWriter: (): KeyWriter => createKeyWriter({ db, clock, limits: services.limits, keyHasher }),
    memberWriter: (): MemberWriter => createMemberWriter({ db, clock, limits: services.limits }),
    accounts: (): ReturnType<typeof createAccountService> =>
      createAccountService({ db, clock, limits: services.limits, writers: services }),
    overrides: () => createOverrideService({ db, clock }),
    limitRequests: (): ReturnType<typeof createLimitRequestService> =>
      createLimitRequestService({ db, clock, overrides: services.overrides, limits: services.limits }),
    adminStatus: () =>
      createAdminStatusService({ db, clock, markListed: (id, now) => services.extensions.markListed(id, now) }),
    // The dashboard's reads (server/control-plane/dashboard.ts).
    dashboardKeys: (): ReturnType<typeof createDashboardKeys> =>
      createDashboardKeys({ db, accounts: services.accounts, limits: services.limits, keyHasher, epoch: keyEpoch }),
    bundleContents: () => createBundleContents({ db, blobs }),
    limitUsage: (): ReturnType<typeof createLimitUsage> => createLimitUsage({ db, limits: services.limits }),
    reviewQueue: () => createReviewQueue(db),
    // The control plane's whole-database reads and writes (state counts, reset).
    store: () => createEmulatorStore(db),
  });
  return services;
}

export type Services = ReturnType<typeof buildServices>;

export interface Runtime {
  config: ServerConfig;
  clock: EmulatorClock;
  logger: Logger;
  db: Db;
  blobs: BlobStore;
  rateLimiter: RateLimiter;
  services: Services;
  /** Control-plane state: effective admin token, fault rules, request log, auto-approval timers. */
  control: ControlPlane;
  /** The fixture applied at start (re-applied by a reset), if any. */
  startupFixture: Fixture | null;
  /** In-process snapshots (server/resources/snapshots/store.ts). */
  snapshots: SnapshotStore;
  /** The secrets cipher (an export with secret values opens them). */
  cipher: SecretCipher;
  /** Key hash → plaintext of the keys fixtures gave in plaintext (server/seed/loader.ts). */
  fixturePlaintexts: ReadonlyMap<string, string>;
  /** The export directory of the start-up fixture, if it is one (its bundles are read again by a reset). */
  startupBundleDir: BundleDir;
  /** What applying the start-up fixture did: `ext serve` shows the keys it generated, once. */
  startupSeedReport: SeedReport | null;
  /** The starter account this start created, with its key's plaintext; null when none was made. */
  starter: StarterAccount | null;
  /** The platform profile the developer API answers with (fixed at start); null: the spec's answers. */
  profile: LoadedProfile | null;
  /** Loads a fixture (an export's bundles from `bundleDir`); an export's clock is set once it has loaded. */
  seed(fixture: Fixture, bundleDir?: BundleDir): SeedReport;
  close(): void;
}

export function createRuntime(config: ServerConfig, options: RuntimeOptions = {}): Runtime {
  const logger = options.logger ?? createLogger(config.logLevel);
  const clock = options.clock ?? new EmulatorClock();
  // A fixture given as an object gets the same checks as a file (override keys, hard limits, duplicates).
  const startup = options.seedFixture
    ? { fixture: validateFixture(options.seedFixture, "seedFixture"), bundleDir: options.seedBundleDir ?? null }
    : config.seed
      ? resolveFixtureSource(config.seed)
      : null;
  const startupFixture = startup?.fixture ?? null;
  // Before anything is opened: a profile that does not load refuses the start, naming its entry.
  const profile =
    options.profile ??
    (config.profile ? readProfileFile(config.profile) : null) ??
    fixtureProfile(startup, options.seedFixture ? (options.seedSource ?? null) : config.seed);

  const storage = openStorage(config, logger);
  const { db, blobRoot, secretKey, keyEpoch } = storage;
  markStartup("data directory, secrets key, SQLite opened and migrated");
  const blobs = new BlobStore(blobRoot);
  const keyHasher = createKeyHasher(secretKey);
  const cipher = createSecretCipher(secretKey);
  const services = buildServices(db, clock, blobs, cipher, keyHasher, keyEpoch);
  const rateLimiter = new RateLimiter(clock, config.rateLimits);
  const fixturePlaintexts = new Map<string, string>();
  // The services are read when a fixture first needs them: one without extensions (the starter account's)
  // builds none of the extension services.
  const loadFixture = createFixtureLoader({ db, keyHasher, clock, blobs, cipher, services, fixturePlaintexts });

  // Crash recovery: a blob no version row points to, or a temp file, is a leftover of an interrupted upload.
  // Prepared when the sweep finds a blob: most starts have none.
  const referenced = onFirstUse(() =>
    db
      .select({ n: count() })
      .from(versions)
      .where(eq(versions.bundleBlobId, sql.placeholder("blobId")))
      .prepare(),
  );
  // Safe to sweep: this runtime holds the data directory's lock, so no live server has an upload under way.
  const swept = blobs.sweep((blobId) => (referenced().get({ blobId })?.n ?? 0) > 0);
  if (swept.blobs.length > 0 || swept.temps > 0)
    logger.info("removed upload leftovers", { blobs: swept.blobs.length, temps: swept.temps });

  const runtime: Runtime = {
    config,
    clock,
    logger,
    db,
    blobs,
    rateLimiter,
    control: createControlPlane(config, clock),
    services,
    startupFixture,
    startupBundleDir: startup?.bundleDir ?? null,
    cipher,
    fixturePlaintexts,
    snapshots: createSnapshotStore({ db, blobs, clock, dashboardKeys: () => services.dashboardKeys }),
    startupSeedReport: null,
    starter: null,
    profile,
    seed(fixture, bundleDir = null) {
      return loadFixture(fixture, bundleDir);
    },
    close() {
      runtime.control.cancelTimers();
      runtime.snapshots.clear();
      db.$client.close();
      storage.release();
    },
  };
  try {
    // A database this start made holds no key of an earlier run (nor does memory mode's, always new).
    if (!db.created) revokeEarlierDashboardKeys(runtime);
    if (startupFixture) runtime.startupSeedReport = runtime.seed(startupFixture, runtime.startupBundleDir);
  } catch (e) {
    // A refused start-up fixture must not leave the database open or a memory-mode temp dir behind.
    runtime.close();
    throw e;
  }
  markStartup(startupFixture ? "services built, fixture applied" : "services built");
  if (config.autoApproveMs !== null)
    startAutoApprove({ versions: services.versions, control: runtime.control, logger }, config.autoApproveMs);
  return runtime;
}

/**
 * The profile a start-up fixture carries (an export keeps the one its emulator ran with), marked with the file
 * (`from`) that brought it when it is known.
 */
function fixtureProfile(
  startup: { fixture: Fixture; bundleDir: BundleDir } | null,
  from: string | null,
): LoadedProfile | null {
  if (!startup?.fixture.profile) return null;
  const where = startup.bundleDir?.label ?? from;
  const loaded = profileFromValue(
    startup.fixture.profile,
    where ? `the profile kept in ${where}` : "the seed's profile",
  );
  return where ? { ...loaded, seed: where } : loaded;
}

/**
 * A dashboard key works only while the server that made it runs (a stale tab may have sent it to whoever took
 * the port since): the previous run's are revoked before this one listens. One query when there are none.
 */
function revokeEarlierDashboardKeys(runtime: Runtime): void {
  const leftovers = activeDashboardKeyRows(runtime.db);
  if (leftovers.length === 0) return;
  const revoked = runtime.services.dashboardKeys.revokeEarlierRun(leftovers);
  if (revoked > 0) runtime.logger.info("revoked the dashboard keys of the previous run", { count: revoked });
}

/** Whether the database holds an account: one row read, without building the accounts service's listing. */
function anyAccount(db: Db): boolean {
  return db.select({ id: accountRows.id }).from(accountRows).limit(1).all().length > 0;
}

/**
 * The starter account (`ext serve` on a data directory with no account), on `runtime.starter`. Called by
 * startServer once the server listens: its key is shown once, by the banner that follows, so a start that
 * fails (port in use) must not have made it.
 */
export function createStarterAccount(runtime: Runtime): void {
  if (runtime.startupFixture || anyAccount(runtime.db)) return;
  const fixture = starterFixture();
  const account = fixture.accounts[0]!;
  const key = runtime.seed(fixture).keys.find((k) => k.accountId === account.id && k.key)?.key;
  runtime.starter = key ? { accountId: account.id, name: account.name, key } : null;
}
