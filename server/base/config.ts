/**
 * The server's configuration, parsed once: command-line flags win over environment variables, which win over
 * defaults. The server's only reader of `process.env` (the tools read theirs in tools/config.ts); everything
 * else receives a typed object.
 */
import { DEFAULT_DATA_DIR, DEFAULT_HOST, DEFAULT_PORT, isLoopback } from "../../common/addresses";
import { isMountPoint } from "../data-dir/mount-point";
import type { LogLevel } from "./logger";

export interface ServerConfig {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** Directory holding the SQLite file, blobs and the secrets key. Ignored in memory mode. */
  dataDir: string;
  /** SQLite in memory and a temporary blob directory removed on exit. */
  memory: boolean;
  /** Fixture file loaded at start (and re-applied by reset). */
  seed: string | null;
  /**
   * `ext serve` on a data directory with no account creates a starter account and prints its key, so a first
   * run leads somewhere; true starts with no account at all.
   */
  empty: boolean;
  rateLimits: boolean;
  /** The control plane's token, on every bind; generated at start when null. */
  adminToken: string | null;
  /** The control plane without a token, as before tokens were required on loopback; loopback binds only. */
  openControlPlane: boolean;
  /**
   * Host names (and addresses) requests may be addressed to besides the loopback ones: with any given, the
   * Host check (DNS rebinding) runs on every bind, a non-loopback one included; empty leaves non-loopback
   * binds answering any Host.
   */
  allowedHosts: string[];
  /** Approve every valid submission by itself after this many ms; null = off. */
  autoApproveMs: number | null;
  logLevel: LogLevel;
  /** Write {url, baseUrl, adminUrl, port, pid} here (atomically) once listening. */
  readyFile: string | null;
  /** `ext serve` stops when its standard input reaches its end: the pipe of a parent that died, even by SIGKILL. */
  exitWithStdin: boolean;
  /** Print each start-up phase's time on stderr (common/startup-trace.ts). */
  traceStartup: boolean;
  /** On a clean stop, write the whole state here as an export directory (fixture.json + bundles/). */
  exportOnExit: string | null;
  /** A platform profile file (docs/profiles.md): the developer API answers in the platform's observed shape. */
  profile: string | null;
}

/** The raw values a user can give as flags; every field optional. */
export type ServerFlags = { [K in keyof ServerConfig]?: string | number | boolean | null };

export class ConfigError extends Error {
  override name = "ConfigError";
}

type Env = Record<string, string | undefined>;

export const ENV_NAMES: Record<keyof ServerConfig, string> = {
  host: "EXT_HOST",
  port: "EXT_PORT",
  dataDir: "EXT_DATA_DIR",
  memory: "EXT_MEMORY",
  seed: "EXT_SEED",
  empty: "EXT_EMPTY",
  rateLimits: "EXT_RATE_LIMITS",
  adminToken: "EXT_ADMIN_TOKEN",
  openControlPlane: "EXT_OPEN_CONTROL_PLANE",
  allowedHosts: "EXT_ALLOWED_HOSTS",
  autoApproveMs: "EXT_AUTO_APPROVE",
  logLevel: "EXT_LOG_LEVEL",
  readyFile: "EXT_READY_FILE",
  exitWithStdin: "EXT_EXIT_WITH_STDIN",
  traceStartup: "EXT_TRACE_STARTUP",
  exportOnExit: "EXT_EXPORT_ON_EXIT",
  profile: "EXT_PROFILE",
};

function pick(flags: ServerFlags, env: Env, key: keyof ServerConfig): string | number | boolean | null | undefined {
  const flag = flags[key];
  if (flag !== undefined) return flag;
  const fromEnv = env[ENV_NAMES[key]];
  return fromEnv === undefined || fromEnv === "" ? undefined : fromEnv;
}

function toBool(key: string, value: string | number | boolean): boolean {
  if (typeof value === "boolean") return value;
  const v = String(value).toLowerCase();
  if (["1", "true", "on", "yes"].includes(v)) return true;
  if (["0", "false", "off", "no"].includes(v)) return false;
  throw new ConfigError(`${key} must be on or off (got "${value}")`);
}

function toInt(key: string, value: string | number | boolean, min: number, max: number): number {
  // Number("") is 0: an empty `--port=` must be an error, not "pick a free port".
  const n = typeof value === "number" ? value : /^\s*-?\d+\s*$/.test(String(value)) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < min || n > max)
    throw new ConfigError(`${key} must be an integer from ${min} to ${max} (got "${value}")`);
  return n;
}

const LOG_LEVELS: LogLevel[] = ["debug", "info", "warn", "error", "silent"];

export function parseServerConfig(flags: ServerFlags = {}, env: Env = process.env): ServerConfig {
  const host = String(pick(flags, env, "host") ?? DEFAULT_HOST);
  const portRaw = pick(flags, env, "port");
  const port = portRaw === undefined || portRaw === null ? DEFAULT_PORT : toInt("port", portRaw, 0, 65535);
  const memoryRaw = pick(flags, env, "memory");
  const rateRaw = pick(flags, env, "rateLimits");
  const autoRaw = pick(flags, env, "autoApproveMs");
  const stdinRaw = pick(flags, env, "exitWithStdin");
  const traceRaw = pick(flags, env, "traceStartup");
  const emptyRaw = pick(flags, env, "empty");
  const openRaw = pick(flags, env, "openControlPlane");
  const openControlPlane = openRaw === undefined || openRaw === null ? false : toBool("open control plane", openRaw);
  if (openControlPlane && !isLoopback(host))
    throw new ConfigError(
      `--open-control-plane opens the control plane to anyone who can reach ${host}: it is allowed on a loopback address only (127.0.0.1, ::1, localhost)`,
    );
  const logRaw = String(pick(flags, env, "logLevel") ?? "info") as LogLevel;
  if (!LOG_LEVELS.includes(logRaw))
    throw new ConfigError(`log level must be one of ${LOG_LEVELS.join(", ")} (got "${logRaw}")`);
  const str = (k: keyof ServerConfig) => {
    const v = pick(flags, env, k);
    return v === undefined || v === null || v === "" ? null : String(v);
  };
  const dataDir = String(pick(flags, env, "dataDir") ?? DEFAULT_DATA_DIR);
  let autoApproveMs: number | null = null;
  if (autoRaw !== undefined && autoRaw !== null && autoRaw !== false) {
    // `--auto-approve` alone means "at once"; a number is the delay in milliseconds.
    autoApproveMs =
      autoRaw === true || autoRaw === "" || autoRaw === "true"
        ? 0
        : toInt("auto-approve delay", autoRaw, 0, 86_400_000);
  }
  return {
    host,
    port,
    dataDir,
    memory: memoryOf(memoryRaw, dataDir),
    seed: str("seed"),
    empty: emptyRaw === undefined || emptyRaw === null ? false : toBool("empty", emptyRaw),
    rateLimits: rateRaw === undefined || rateRaw === null ? true : toBool("rate limits", rateRaw),
    adminToken: str("adminToken"),
    openControlPlane,
    allowedHosts: allowedHostsOf(str("allowedHosts")),
    autoApproveMs,
    logLevel: logRaw,
    readyFile: str("readyFile"),
    exitWithStdin: stdinRaw === undefined || stdinRaw === null ? false : toBool("exit with stdin", stdinRaw),
    traceStartup: traceRaw === undefined || traceRaw === null ? false : toBool("trace startup", traceRaw),
    exportOnExit: str("exportOnExit"),
    profile: str("profile"),
  };
}

const HOST_NAME = /^(?:[a-z0-9._-]{1,253}|\[[0-9a-f:.]{2,45}\])$/;

/** `--allowed-hosts a.example,ext`: names (or addresses) without a port, compared case-insensitively. */
function allowedHostsOf(raw: string | null): string[] {
  if (raw === null) return [];
  const names = raw
    .split(",")
    .map((n) => n.trim().toLowerCase())
    .filter((n) => n !== "");
  for (const name of names)
    if (!HOST_NAME.test(name))
      throw new ConfigError(
        `allowed hosts must be host names or addresses without a port, comma-separated (got "${name}")`,
      );
  return names;
}

/** `auto` (the container image's default): in memory unless the data dir is a mounted volume. */
function memoryOf(raw: string | number | boolean | null | undefined, dataDir: string): boolean {
  if (raw === undefined || raw === null) return false;
  if (String(raw).toLowerCase() === "auto") return !isMountPoint(dataDir);
  return toBool("memory", raw);
}
