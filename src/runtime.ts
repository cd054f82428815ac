/**
 * Everything a running emulator owns — config, clock, database, blob store, rate windows and the services
 * built on them — created once and passed down. Routes, CLI commands and tests all go through this.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createAuthService } from "./auth/service";
import { BlobStore } from "./blobs/blob-store";
import { EmulatorClock } from "./clock";
import type { ServerConfig } from "./config";
import { openDatabase, type Db } from "./db/database";
import { createExtensionService } from "./extensions/service";
import { applyFixture } from "./fixtures/loader";
import type { Fixture, SeedReport } from "./fixtures/model";
import { parseFixtureText } from "./fixtures/validate";
import { createLimitsService } from "./limits/service";
import { createLogger, type Logger } from "./logger";
import { RateLimiter } from "./ratelimit/limiter";

export interface RuntimeOptions {
  logger?: Logger;
  clock?: EmulatorClock;
  /** A fixture given as an object (programmatic start) instead of `config.seed`. */
  seedFixture?: Fixture;
}

function buildServices(db: Db, clock: EmulatorClock, blobs: BlobStore) {
  const limits = createLimitsService(db);
  const auth = createAuthService(db);
  const extensions = createExtensionService({ db, clock, limits, blobs });
  return { limits, auth, extensions };
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
  /** The fixture applied at start (re-applied by a reset), if any. */
  startupFixture: Fixture | null;
  seed(fixture: Fixture): SeedReport;
  close(): void;
}

export function loadFixtureFile(path: string): Fixture {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new Error(`cannot read fixture ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  return parseFixtureText(text, path);
}

export function createRuntime(config: ServerConfig, options: RuntimeOptions = {}): Runtime {
  const logger = options.logger ?? createLogger(config.logLevel);
  const clock = options.clock ?? new EmulatorClock();
  const startupFixture = options.seedFixture ?? (config.seed ? loadFixtureFile(config.seed) : null);

  let blobRoot: string;
  let db: Db;
  let tempRoot: string | null = null;
  if (config.memory) {
    tempRoot = mkdtempSync(join(tmpdir(), "ext-memory-"));
    blobRoot = join(tempRoot, "blobs");
    db = openDatabase(":memory:");
  } else {
    const dir = resolve(config.dataDir);
    mkdirSync(dir, { recursive: true });
    blobRoot = join(dir, "blobs");
    db = openDatabase(join(dir, "ext.sqlite"));
  }
  const blobs = new BlobStore(blobRoot);
  const services = buildServices(db, clock, blobs);
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
    services,
    startupFixture,
    seed: (fixture) => applyFixture({ db, clock, limits: services.limits, extensions: services.extensions }, fixture),
    close() {
      db.$client.close();
      if (tempRoot) rmSync(tempRoot, { recursive: true, force: true });
    },
  };
  if (startupFixture) runtime.seed(startupFixture);
  return runtime;
}
