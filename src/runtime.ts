/**
 * Everything a running emulator owns — config, clock, database, blob store, rate windows and the services
 * built on them — created once and passed down. Routes, CLI commands and tests all go through this.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createAuthService } from "./auth/service";
import { BlobStore } from "./blobs/blob-store";
import { EmulatorClock } from "./clock";
import type { ServerConfig } from "./config";
import { openDatabase, type Db } from "./db/database";
import { createDbGeneration } from "./db/generation";
import { createExtensionService } from "./extensions/service";
import { applyFixture } from "./fixtures/loader";
import type { Fixture, SeedReport } from "./fixtures/model";
import { resolveFixture } from "./fixtures/resolve";
import { validateFixture } from "./fixtures/validate";
import { createLimitsService } from "./limits/service";
import { createLogger, type Logger } from "./logger";
import { RateLimiter } from "./ratelimit/limiter";
import { createInstallService } from "./installs/service";
import { createSecretCipher, ephemeralKey, loadOrCreateKeyFile, SECRETS_KEY_FILE, type SecretCipher } from "./secrets/cipher";
import { createSecretService } from "./secrets/service";
import { createLimitsView } from "./limits/view";
import { createVersionService } from "./versions/service";
import { createAccountService } from "./accounts/service";
import { createAdminStatusService } from "./extensions/admin-status";
import { createOverrideService } from "./limits/overrides";
import { createLimitRequestService } from "./limit-requests/service";
import { createControlPlane, type ControlPlane } from "./emulator/control";
import { startAutoApprove } from "./emulator/auto-approve";
import { markStartup } from "./startup-trace";

export interface RuntimeOptions {
  logger?: Logger;
  clock?: EmulatorClock;
  /** A fixture given as an object (programmatic start) instead of `config.seed`. */
  seedFixture?: Fixture;
}

function buildServices(db: Db, clock: EmulatorClock, blobs: BlobStore, cipher: SecretCipher) {
  const limits = createLimitsService(db);
  const generation = createDbGeneration(db);
  const auth = createAuthService(db, generation);
  const extensions = createExtensionService({ db, clock, limits, blobs, generation });
  const secrets = createSecretService({ db, clock, limits, extensions, cipher });
  const installs = createInstallService({ db, clock, limits, extensions });
  const versions = createVersionService({ db, clock, limits, blobs, extensions });
  const limitsView = createLimitsView({ db, limits, extensions });
  // Control-plane domain services (issue 5).
  const accounts = createAccountService({ db, clock, limits });
  const overrides = createOverrideService({ db, clock });
  const limitRequests = createLimitRequestService({ db, clock, overrides });
  const adminStatus = createAdminStatusService({ db, clock });
  return { limits, generation, auth, extensions, secrets, installs, versions, limitsView, accounts, overrides, limitRequests, adminStatus };
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
  /** What applying the start-up fixture did: `ext serve` shows the keys it generated, once. */
  startupSeedReport: SeedReport | null;
  seed(fixture: Fixture): SeedReport;
  close(): void;
}

export function createRuntime(config: ServerConfig, options: RuntimeOptions = {}): Runtime {
  const logger = options.logger ?? createLogger(config.logLevel);
  const clock = options.clock ?? new EmulatorClock();
  // A fixture given as an object gets the same checks as a file (override keys, hard limits, duplicates).
  const startupFixture = options.seedFixture ? validateFixture(options.seedFixture, "seedFixture") : config.seed ? resolveFixture(config.seed) : null;

  let blobRoot: string;
  let db: Db;
  let tempRoot: string | null = null;
  let secretKey: Buffer;
  if (config.memory) {
    tempRoot = mkdtempSync(join(tmpdir(), "ext-memory-"));
    blobRoot = join(tempRoot, "blobs");
    db = openDatabase(":memory:");
    // Memory mode: the key dies with the process, like the data it protects.
    secretKey = ephemeralKey();
  } else {
    const dir = resolve(config.dataDir);
    mkdirSync(dir, { recursive: true });
    // Before the database opens: a damaged key file refuses the start (SecretsKeyError) and leaves nothing open.
    const loaded = loadOrCreateKeyFile(join(dir, SECRETS_KEY_FILE));
    if (loaded.looseMode) logger.warn("the secrets key file is readable by group or others; chmod 600 it", { file: join(dir, SECRETS_KEY_FILE) });
    secretKey = loaded.key;
    blobRoot = join(dir, "blobs");
    db = openDatabase(join(dir, "ext.sqlite"));
  }
  markStartup("data directory, secrets key, SQLite opened and migrated");
  const blobs = new BlobStore(blobRoot);
  const services = buildServices(db, clock, blobs, createSecretCipher(secretKey));
  const rateLimiter = new RateLimiter(clock, config.rateLimits);

  // Crash recovery: a blob no version row points to, or a temp file, is a leftover of an interrupted upload.
  const referenced = db.$client.prepare<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM versions WHERE bundle_blob_id = ?");
  const swept = blobs.sweep((id) => (referenced.get(id)?.n ?? 0) > 0);
  if (swept.blobs.length > 0 || swept.temps > 0) logger.info("removed upload leftovers", { blobs: swept.blobs.length, temps: swept.temps });

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
    startupSeedReport: null,
    seed: (fixture) => applyFixture({ db, clock, limits: services.limits, extensions: services.extensions }, fixture),
    close() {
      runtime.control.cancelTimers();
      services.generation.close();
      db.$client.close();
      if (tempRoot) rmSync(tempRoot, { recursive: true, force: true });
    },
  };
  if (startupFixture) {
    try {
      runtime.startupSeedReport = runtime.seed(startupFixture);
    } catch (e) {
      // A refused start-up fixture must not leave the database open or a memory-mode temp dir behind.
      runtime.close();
      throw e;
    }
  }
  markStartup(startupFixture ? "services built, fixture applied" : "services built");
  if (config.autoApproveMs !== null) startAutoApprove(runtime, config.autoApproveMs);
  return runtime;
}
