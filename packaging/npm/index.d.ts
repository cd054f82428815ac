/**
 * ext-emulator for Node ≥ 20 (no Bun): start the `ext` emulator as a child process and drive it.
 * The same names and meanings as the in-process Bun `startEmulator()` of the repository where they overlap
 * (baseUrl, apiKey, adminUrl, url, port, reset, advanceClock, stop).
 */

export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";

/** The fixture format of `ext serve --seed` (README, "Fixture format"); the server validates it. */
export interface Fixture {
  accounts: Array<{
    id: string;
    name?: string;
    apiKeys?: Array<{ name: string; key?: string; scopes?: string[] }>;
    overrides?: Record<string, number>;
    teamMembers?: Array<{ email: string; role?: string }>;
    extensions?: Array<{
      id?: string;
      name: string;
      visibility?: string;
      status?: string;
      overrides?: Record<string, number>;
      [field: string]: unknown;
    }>;
    [field: string]: unknown;
  }>;
  [field: string]: unknown;
}

export interface StartEmulatorOptions {
  /** A fixture object, a fixture file path, or "demo" (the default: the demo fixture embedded in the binary). */
  fixture?: Fixture | string;
  /** Keep the data in this directory (a restart finds it again); in memory when absent. */
  dataDir?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Enforce the spec's rate limits (default true, as `ext serve`). */
  rateLimits?: boolean;
  /** Approve every valid submission by itself after this many ms; off by default. */
  autoApproveMs?: number | null;
  /** The server's log level, on this process's stderr (default "silent"). */
  logLevel?: LogLevel;
  /** The `ext` executable to run; default `EXT_BINARY`, else the installed platform package's. */
  binary?: string;
  /** Give up (and kill the server) when it is not ready after this long; default 30000. */
  startTimeoutMs?: number;
}

/** The variables `ext exec` sets for its command, for this emulator; `connectEmulator()` reads them back. */
export interface EmulatorEnv {
  EXT_BASE_URL: string;
  /** Same as EXT_BASE_URL: `ext deploy --target local` goes to this emulator. */
  EXT_LOCAL_URL: string;
  EXT_ADMIN_URL: string;
  EXT_API_KEY: string;
  EXT_ADMIN_TOKEN: string;
}

export interface ReviewedVersion {
  version: {
    id: string;
    extensionId: string;
    version: string;
    status: string;
    submittedAt: string;
    approvedAt: string | null;
    rejectedAt: string | null;
    rejectReason: string | null;
  };
  extension: { id: string; status: string; currentVersionId: string | null };
}

export interface InstallStats {
  /** Every install ever recorded, uninstalled ones included. */
  total: number;
  /** Installs not uninstalled. */
  active: number;
  /** Active installs per version id. */
  byVersion: Record<string, number>;
  [field: string]: unknown;
}

export interface LimitOverrides {
  scope: "account" | "extension";
  id: string;
  overrides: Record<string, number>;
}

export interface FaultRuleInput {
  method?: "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD";
  /** Relative to /developer/v1: exact segments, :param for one segment, * for anything. */
  path: string;
  status?: number;
  code?: string;
  message?: string;
  latencyMs?: number;
  times?: number;
  probability?: number;
}

export interface FaultRule {
  id: string;
  method: string | null;
  path: string;
  status: number | null;
  code: string | null;
  message: string | null;
  latencyMs: number;
  times: number | null;
  probability: number;
  fired: number;
  createdAt: string;
}

export interface RequestLogEntry {
  method: string;
  path: string;
  status: number;
  accountId: string | null;
  durationMs: number;
  at: string;
}

/** The control plane (README, "Control plane"), typed; every call rejects with ControlPlaneError on a non-2xx answer, and with an Error whose `cause` is the socket error when no answer comes (the emulator is gone). */
export interface EmulatorClient {
  /** http://host:port */
  url: string;
  /** The developer API base, ending in /developer/v1. */
  baseUrl: string;
  /** The control plane, ending in /_emulator. */
  adminUrl: string;
  /** The fixture's first API key with a plaintext `key`. */
  apiKey: string;
  /** Sent with every control-plane call, so they work off loopback too. */
  adminToken: string;
  /** EXT_BASE_URL, EXT_LOCAL_URL, EXT_ADMIN_URL, EXT_API_KEY, EXT_ADMIN_TOKEN: for a child process or test workers. */
  env: EmulatorEnv;
  /** Wipes every row, bundle, rate window, fault and clock change, and re-applies the start-up fixture (POST /reset). */
  reset(): Promise<void>;
  /** Moves the emulator's clock forward (timestamps and rate windows follow it; the auto-approve delay is real time). */
  advanceClock(seconds: number): Promise<void>;
  /** What a platform reviewer does: a pending version becomes approved. */
  approveVersion(versionId: string): Promise<ReviewedVersion>;
  rejectVersion(versionId: string, reason: string): Promise<ReviewedVersion>;
  /** End users install the extension: `count` installs (default 1) of `versionId` (default its current version). */
  addInstalls(extensionId: string, what?: number | { count?: number; versionId?: string }): Promise<InstallStats>;
  /** Replaces the limit overrides of an extension or an account (keys of GET …/limits). */
  setOverride(
    target: { extensionId: string } | { accountId: string },
    limits: Record<string, number>,
  ): Promise<LimitOverrides>;
  /** Makes matching developer-API requests fail or slow down. */
  injectFault(rule: FaultRuleInput): Promise<FaultRule>;
  /** Recent developer-API requests, newest first (default 100). */
  requests(limit?: number): Promise<RequestLogEntry[]>;
  /** Any other control-plane call: `control("POST", "/extensions/ext_1/disable")`. Resolves to the parsed JSON body (undefined for 204). */
  // biome-ignore lint/suspicious/noExplicitAny: any control-plane answer.
  control(method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE", path: string, body?: unknown): Promise<any>;
}

export interface Emulator extends EmulatorClient {
  port: number;
  /** The server process. */
  pid: number;
  /** SIGTERM (the server drains for up to 5 s), SIGKILL if it is still there 10 s later; removes its temp files. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Spawns `ext serve --memory --port 0` (options permitting) and resolves once it is listening. The server
 * stops when this process exits, even by SIGKILL; `stop()` ends it sooner. Environment variables EXT_* are
 * not passed to it: the options alone decide.
 */
export function startEmulator(options?: StartEmulatorOptions): Promise<Emulator>;

/** The control plane of an emulator started elsewhere, from `emulator.env` (default: process.env). */
export function connectEmulator(env?: Partial<EmulatorEnv> | Record<string, string | undefined>): EmulatorClient;

/** The `ext` executable: EXT_BINARY, else the one in this platform's package (throws BinaryNotFoundError). */
export function binaryPath(env?: Record<string, string | undefined>): string;

export class StartEmulatorError extends Error {}
export class ControlPlaneError extends Error {
  status: number;
  code: string;
}
export class BinaryNotFoundError extends Error {}
