/**
 * The `Emulator` interface: ONE declaration that both test helpers implement and are type-checked against,
 * the Bun one (tools/helper/start-emulator.ts, in process) and the Node one (packaging/npm/src, a child process of the
 * binary). Types only: every model is taken from the generated schema, never copied by hand.
 */
import type { SubmittedDeploy } from "./deploy-result";
import type { AdminClient, ApiClient } from "./index";
import type {
  ActiveProfile,
  ClockState,
  Extension,
  ExtensionCreate,
  FaultRule,
  FaultRuleInput,
  Fixture,
  InstallChange,
  InstallRollout,
  InstallStatistics,
  LimitOverrides,
  LimitValues,
  Profile,
  RequestLogEntry,
  ReviewedVersion,
} from "./models";

/** The fixture format of `ext serve --seed` (README, "Fixture format"), as both helpers accept it. */
export type FixtureInput = Fixture;
/** What `createExtension()` resolves to: the whole extension, as GET /extensions/{id} gives it. */
export type CreatedExtension = Extension;
/** Every limit key of GET …/limits (the document names them); a misspelt key is a type error. */
export type LimitKey = keyof LimitValues & string;
/** Limit values by key, as an override or a limit-increase request names them. */
export type LimitValuesInput = { [K in LimitKey]?: number };
/** What `deploy()` resolves to: the same object `ext deploy --json` prints (client/deploy-result.ts). */
export type { DeployResult, SubmittedDeploy } from "./deploy-result";

export interface DeployOptions {
  extensionId: string;
  /** The version label. */
  version: string;
  changelog?: string;
}

/** An extension's limit overrides, or an account's. */
export type OverrideTarget = { extensionId: string } | { accountId: string };

/** The variables `ext exec` sets for its command; `connectEmulator()` reads them back. */
export interface EmulatorEnv {
  EXT_BASE_URL: string;
  /** Same as EXT_BASE_URL: `ext deploy --target local` goes to this emulator. */
  EXT_LOCAL_URL: string;
  EXT_ADMIN_URL: string;
  EXT_API_KEY: string;
  EXT_ADMIN_TOKEN: string;
}

/** An emulator reached over HTTP: what a test drives, whoever started the server. */
export interface EmulatorConnection {
  /** The developer API base, ending in /developer/v1. */
  baseUrl: string;
  /** The fixture's first API key written with a plaintext `key`. */
  apiKey: string;
  /** The control plane, ending in /_emulator. */
  adminUrl: string;
  /** http://host:port */
  url: string;
  /** Sent with every control-plane call, so they work off loopback too. */
  adminToken: string;
  /** EXT_BASE_URL, EXT_LOCAL_URL, EXT_ADMIN_URL, EXT_API_KEY, EXT_ADMIN_TOKEN: for a child process or test workers. */
  env: EmulatorEnv;
  /** The developer API, typed from the OpenAPI document, authenticated with `apiKey`. */
  client: ApiClient;
  /** The control plane (/_emulator), typed from the OpenAPI document. */
  admin: AdminClient;

  /** POST /extensions with `apiKey`; resolves to the whole extension (an `Extension`), read back once created. */
  createExtension(input: ExtensionCreate): Promise<Extension>;
  /**
   * What `ext deploy FOLDER --extension ID --version V` does, by the same code: pack (default exclusions and
   * `.extignore`), check locally, upload. Resolves to what `ext deploy --json` prints (`versionId`, `status`, …).
   * Needs the admin token (the server proves itself with it before the key goes): a connection without one
   * rejects at once with a `StartEmulatorError`, sending nothing.
   */
  deploy(folder: string, options: DeployOptions): Promise<SubmittedDeploy>;
  /** What a platform reviewer does: a pending version becomes approved. */
  approveVersion(versionId: string): Promise<ReviewedVersion>;
  rejectVersion(versionId: string, reason: string): Promise<ReviewedVersion>;
  /** End users install the extension: `count` installs (default 1) of `versionId` (default its current version). */
  addInstalls(extensionId: string, what?: number | InstallChange): Promise<InstallStatistics>;
  /** Moves active installs to another version (default: all of them onto the current version). */
  rollout(extensionId: string, what?: InstallRollout): Promise<InstallStatistics>;
  /** Replaces the limit overrides of an extension or an account (keys of GET …/limits). */
  setOverride(target: OverrideTarget, limits: LimitValuesInput): Promise<LimitOverrides>;
  /** Makes matching developer-API requests fail or slow down. */
  injectFault(rule: FaultRuleInput): Promise<FaultRule>;
  /** Moves the emulator's clock forward (timestamps and rate windows follow it; the auto-approve delay is real time). */
  advanceClock(seconds: number): Promise<ClockState>;
  /** Jumps the clock to an instant (ISO 8601 or a Date); `freeze` keeps it there. */
  setClock(at: string | Date, options?: { freeze?: boolean }): Promise<ClockState>;
  /** Recent developer-API requests, newest first (default 100). */
  requests(limit?: number): Promise<RequestLogEntry[]>;
  /** The platform profile the emulator answers with (its entries in words), or null: the spec's answers. */
  profile(): Promise<ActiveProfile | null>;
  /** Wipes every row, bundle, rate window, fault and clock change, and re-applies the start-up fixture. */
  reset(): Promise<void>;
  /** Remembers the whole state (rows, bundles, clock) in the emulator; `restore(handle)` returns to it. */
  snapshot(): Promise<EmulatorSnapshot>;
  /**
   * Exactly the state `snapshot()` saw again, with no rate windows, fault rules or logged requests (as after a
   * reset). The snapshot stays: restore it before every test.
   */
  restore(snapshot: EmulatorSnapshot): Promise<void>;
}

/** What `snapshot()` returns: the id of a snapshot kept by the emulator until it stops. */
export interface EmulatorSnapshot {
  readonly id: string;
}

/** An emulator this process started: a connection that also owns the server. */
export interface Emulator extends EmulatorConnection {
  port: number;
  /** Stops the server and removes its temporary files. Idempotent. */
  stop(): Promise<void>;
}

/** What both helpers' `connectEmulator()` take besides the variables. */
export interface ConnectEmulatorOptions {
  /** The control plane's token; default EXT_ADMIN_TOKEN of the variables. Every control-plane call sends it. */
  adminToken?: string;
}

/** The options both helpers' `startEmulator()` take; any other is refused. */
export interface StartEmulatorCommonOptions {
  /**
   * A fixture object, a fixture file path, an export directory (`ext export DIR`: `fixture.json` and its
   * bundles), or "demo" (the default: the demo fixture).
   */
  fixture?: FixtureInput | string;
  /** Keep the data in this directory (a restart finds it again); in memory when absent. */
  dataDir?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /**
   * Enforce the spec's rate limits. Default false, unlike `ext serve`: a suite that creates an extension per
   * test passes the spec's 10 creates an hour by its 11th test. Turn them on in the tests of a client's own
   * 429 handling (then `advanceClock()` moves past a window without waiting).
   */
  rateLimits?: boolean;
  /** Approve every valid submission by itself after this many ms; off by default. */
  autoApproveMs?: number | null;
  /** The server's log level on stderr (default "silent"). */
  logLevel?: "debug" | "info" | "warn" | "error" | "silent";
  /**
   * A platform profile (`ext conformance --save-profile FILE`): a file path or the profile itself. The developer
   * API then answers in the platform's observed shape; its rules and state changes stay the spec's.
   */
  profile?: string | Profile;
}
