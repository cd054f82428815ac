/** What one load of a fixture works with: the services it writes through, and the load's own state. */

import type { KeyHasher } from "../auth/keys";
import type { EmulatorClock } from "../base/clock";
import type { BlobStore } from "../blobs/blob-store";
import type { Db } from "../db/database";
import type { KeyWriter } from "../resources/accounts/key-writer";
import type { MemberWriter } from "../resources/accounts/member-writer";
import type { AccountWriter } from "../resources/accounts/writer";
import type { ExtensionService } from "../resources/extensions/service";
import type { SlugBatch } from "../resources/extensions/slug";
import type { InstallService } from "../resources/installs/service";
import type { LimitRequestService } from "../resources/limit-requests/service";
import type { OverrideService } from "../resources/limits/overrides";
import type { LimitsService } from "../resources/limits/service";
import type { SecretCipher } from "../resources/secrets/cipher";
import type { SecretService } from "../resources/secrets/service";
import type { VersionService } from "../resources/versions/service";
import type { BundleFiles } from "./bundle-files";
import type { SeedReport } from "./model";

/** The services a load writes through; each is read on its first use, so a fixture builds only what it needs. */
export interface FixtureServices {
  readonly limits: LimitsService;
  readonly accountWriter: AccountWriter;
  readonly keyWriter: KeyWriter;
  readonly memberWriter: MemberWriter;
  readonly overrides: OverrideService;
  readonly extensions: ExtensionService;
  readonly versions: VersionService;
  readonly installs: InstallService;
  readonly secrets: SecretService;
  readonly limitRequests: LimitRequestService;
}

export interface FixtureDeps {
  db: Db;
  clock: EmulatorClock;
  blobs: BlobStore;
  keyHasher: KeyHasher;
  cipher: SecretCipher;
  services: FixtureServices;
  /**
   * Stored key hash → plaintext, for the keys a fixture wrote in plaintext: an export writes those keys as the
   * fixture did (every other key only as its hash).
   */
  fixturePlaintexts: Map<string, string>;
}

/** One load: its instant (every row it makes without a timestamp of its own gets it) and its bundle files. */
export interface Load {
  deps: FixtureDeps;
  now: string;
  bundles: BundleFiles;
  report: SeedReport;
  /** Where each name's slug search stands in this load, which frees no slug (server/resources/extensions/slug.ts). */
  slugs: SlugBatch;
}
