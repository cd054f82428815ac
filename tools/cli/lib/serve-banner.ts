/**
 * What `ext serve` prints once listening. Secret values (a generated admin token shown for want of another
 * place, API keys) are printed only to a terminal: output sent to a file or a pipe
 * (`ext serve > serve.log &`) may be read by others (a log is world-readable under umask 022), so each such
 * line then says where the secret is kept instead (the ready file, server.json, `ext dashboard`).
 */
import { resolve } from "node:path";
import { DEFAULT_DATA_DIR, isLoopback } from "../../../common/addresses";
import { serverFilePath } from "../../../common/server-file";
import { printable } from "../../../common/text/printable";
import { shellQuote } from "../../../common/text/shell-quote";
import {
  explainEntry,
  firstPlaintextKey,
  type LoadedProfile,
  type RunningEmulator,
  type StartupKey,
  startupKeys,
} from "../../../server";
import { NOT_A_TERMINAL } from "./terminal";

export interface BannerOptions {
  /** True when stdout is a terminal: only then are secret values printed. */
  terminal: boolean;
}

type Runtime = RunningEmulator["runtime"];

export function bannerLines(emulator: RunningEmulator, { terminal }: BannerOptions): string[] {
  const { runtime } = emulator;
  const keys = startupKeys(runtime);
  const lines = [`ext emulator listening on ${emulator.baseUrl}`, dashboardLine(emulator, terminal)];
  lines.push(`  docs:          ${emulator.url}/docs`, `  control plane: ${emulator.adminUrl}`);
  lines.push(...adminTokenLines(runtime, terminal));
  if (runtime.config.autoApproveMs !== null) lines.push(`  auto-approve:  after ${runtime.config.autoApproveMs} ms`);
  lines.push(`  data:          ${runtime.config.memory ? "in memory" : runtime.config.dataDir}`);
  lines.push(...profileLines(runtime));
  for (const key of keys.slice(0, BANNER_KEYS_MAX)) lines.push(apiKeyLine(emulator, key, terminal));
  if (keys.length > BANNER_KEYS_MAX) lines.push(moreKeysLine(runtime, keys.length - BANNER_KEYS_MAX));
  lines.push(...exportLines(emulator, keys, terminal));
  return lines;
}

/** A fixture may generate a key for each of thousands of accounts: the banner names the first few. */
export const BANNER_KEYS_MAX = 5;

function moreKeysLine(runtime: Runtime, more: number): string {
  const where = runtime.config.readyFile
    ? "the ready file's apiKeys lists them all"
    : "start with --ready-file FILE to have them all";
  return `  api keys:      and ${more} more (${where})`;
}

/**
 * How to open the dashboard: never a login link, nor its address. A link is a credential in a URL, and a URL a
 * terminal opens on a click is handed to the browser on its command line, which every local user can read
 * (`/proc/PID/cmdline`); the address is new each start (server/dashboard/origin.ts) and reaches the owner only
 * through the control plane. `ext dashboard` logs a browser in without either.
 */
function dashboardLine(emulator: RunningEmulator, terminal: boolean): string {
  const at = "  dashboard:     at an address of its own each start";
  if (tokenKeptNowhere(emulator.runtime, terminal))
    return `${at}  (no way to log in without the token, ${NOT_A_TERMINAL}: ${RESTART})`;
  return `${at}  (to log a browser in: \`${controlCommand(emulator, "dashboard")}\`)`;
}

/** A control-plane command (`ext dashboard`, `ext keys create`) as another shell types it to reach this server. */
function controlCommand(emulator: RunningEmulator, command: string): string {
  const { config, control } = emulator.runtime;
  if (!config.memory) return `${inDataDir(config.dataDir)}ext ${command}`;
  if (control.open) return `ext ${command} --target ${emulator.url}`;
  return `EXT_ADMIN_TOKEN=<the admin token> ext ${command} --target ${emulator.url}`;
}

/** What a command needs before it to find this server by its data directory (nothing for ./.ext-data). */
function inDataDir(dataDir: string): string {
  return resolve(dataDir) === resolve(DEFAULT_DATA_DIR) ? "" : `EXT_DATA_DIR=${shellQuote(dataDir)} `;
}

/**
 * A generated token is shown when nothing else holds it for the owner's tools: in memory mode (no server.json)
 * or on a non-loopback bind (callers elsewhere). Given with --admin-token, the user has it already.
 */
function tokenShown(runtime: Runtime): boolean {
  const { config, control } = runtime;
  return control.adminTokenGenerated && (config.memory || !isLoopback(config.host));
}

/**
 * A generated token of a --memory server with no ready file, its output not a terminal: nothing holds it, so
 * nothing can use the control plane or the dashboard; the lines that would send there say how to start again.
 */
function tokenKeptNowhere(runtime: Runtime, terminal: boolean): boolean {
  const { config, control } = runtime;
  return !terminal && !control.open && config.memory && !config.readyFile && tokenShown(runtime);
}

/** The one way out when the token is kept nowhere. */
const RESTART = "restart with --ready-file FILE (it holds the token), or with --admin-token or EXT_ADMIN_TOKEN";

function adminTokenLines(runtime: Runtime, terminal: boolean): string[] {
  const { config, control } = runtime;
  if (control.open)
    return [
      "  WARNING:       --open-control-plane: any local user (and any script on this machine) can reset, seed and",
      "                 export this server with its secret values, and mint keys; drop the flag to require the token",
    ];
  const serverFile = config.memory ? null : serverFilePath(config.dataDir);
  if (tokenShown(runtime)) {
    if (terminal) return [`  admin token:   ${control.adminToken}`];
    const places = [config.readyFile && `the ready file ${config.readyFile}`, serverFile].filter(Boolean);
    if (places.length > 0) return [`  admin token:   in ${places.join(" and ")} (${NOT_A_TERMINAL})`];
    return [
      `  admin token:   generated, kept nowhere else and ${NOT_A_TERMINAL}: to use the control plane, start`,
      "                 with --ready-file FILE (it holds the token), or choose one with --admin-token or EXT_ADMIN_TOKEN",
    ];
  }
  if (serverFile && control.adminTokenGenerated)
    return [`  admin token:   in ${serverFile} (this folder's commands read it)`];
  if (!control.adminTokenGenerated && control.adminToken.length < STRONG_TOKEN_LENGTH)
    return [
      `  WARNING:       the admin token is ${control.adminToken.length} characters: whoever guesses it has the control plane;`,
      "                 `openssl rand -hex 32` makes one (or leave it out and one is generated)",
    ];
  return [];
}

/** Entries the banner lists; `--explain` lists them all. */
const BANNER_ENTRIES_MAX = 8;

/**
 * A profile a seed brought, in words (null for any other): whoever wrote the fixture chose how the emulator
 * answers, so a shared fixture never changes the answers unannounced.
 */
export function seedProfileWarning(profile: LoadedProfile | null): string | null {
  if (!profile?.seed) return null;
  const n = profile.compiled.profile.entries.length;
  return `the seed ${printable(profile.seed)} brings a platform profile: the developer API's answers change as that file says (${n} ${n === 1 ? "difference" : "differences"}), not as the spec does; --profile FILE replaces it`;
}

/** The active profile: where it came from, and what it changes (one line per entry, the first few). */
function profileLines(runtime: Runtime): string[] {
  if (!runtime.profile) return [];
  const { source, compiled } = runtime.profile;
  const { entries } = compiled.profile;
  const target = compiled.profile.target ? ` observed on ${printable(compiled.profile.target)}` : "";
  const warning = seedProfileWarning(runtime.profile);
  const lines = [
    ...(warning ? [`  WARNING:       ${warning}`] : []),
    `  profile:       ${printable(source)}: ${entries.length} ${entries.length === 1 ? "difference" : "differences"}${target}; the dashboard's Profile page lists them`,
  ];
  for (const e of entries.slice(0, BANNER_ENTRIES_MAX)) lines.push(`                 ${printable(explainEntry(e))}`);
  if (entries.length > BANNER_ENTRIES_MAX)
    lines.push(`                 … ${entries.length - BANNER_ENTRIES_MAX} more: ext serve --profile FILE --explain`);
  return lines;
}

/** A given admin token shorter than this is said to be guessable (a generated one has 43 random characters). */
export const STRONG_TOKEN_LENGTH = 32;

/** A banner line for a key: its names came from a fixture file, so they are shown printable. */
function apiKeyLine(emulator: RunningEmulator, k: StartupKey, terminal: boolean): string {
  const origin = k.origin === "starter" ? ", new" : k.origin === "generated" ? ", generated" : "";
  const about = `(account ${printable(k.accountId)}, "${printable(k.name)}"${origin}`;
  if (terminal) return `  api key:       ${printable(k.key)}  ${about}${k.origin === "starter" ? "; shown once" : ""})`;
  return `  api key:       ${NOT_A_TERMINAL}; ${keyWhere(emulator, k)}  ${about})`;
}

/** Where a key left off the (non-terminal) banner can be had. */
function keyWhere(emulator: RunningEmulator, k: StartupKey): string {
  const { runtime } = emulator;
  if (runtime.config.readyFile) return "in the ready file's apiKeys";
  if (k.origin === "fixture") return "as written in the fixture";
  // No control plane to ask for another: it wants the token, which nothing holds.
  if (tokenKeptNowhere(runtime, false)) return `kept as a hash only, and a new one needs the token: ${RESTART}`;
  return `kept as a hash only: \`${controlCommand(emulator, "keys create")}\` prints a new one`;
}

/**
 * What another shell exports to use this server: the key shown above, else the dashboard's key of the first
 * account (what a command in this folder would use too); with no account, what to do next.
 */
function exportLines(emulator: RunningEmulator, keys: StartupKey[], terminal: boolean): string[] {
  const { runtime } = emulator;
  const { memory, dataDir } = runtime.config;
  const accounts = keys.length > 0 ? null : runtime.services.accounts.listAccounts();
  // A key this start made or loaded belongs to an account that exists: no need to list the accounts.
  if (accounts && accounts.length === 0) return noAccountLines(emulator, terminal);
  // The CLI looks for a server in ./.ext-data unless EXT_DATA_DIR names another data directory.
  const finds =
    resolve(dataDir) === resolve(DEFAULT_DATA_DIR)
      ? "commands run in this folder or below it find this server by themselves"
      : `commands run with EXT_DATA_DIR=${dataDir} find this server by themselves`;
  const head = `  other shells:${memory ? "" : `  (${finds})`}`;
  if (!terminal) {
    const key = exportedKeyPlace(emulator, keys);
    const vars = [`EXT_BASE_URL=${emulator.baseUrl}`, `EXT_API_KEY="<${key}>"`];
    if (tokenExported(runtime)) vars.push(`EXT_ADMIN_TOKEN="<the admin token: see above>"`);
    return [head, `    export ${vars.join(" ")}`, `    (the values: ${NOT_A_TERMINAL})`];
  }
  let key = runtime.starter?.key ?? (runtime.startupFixture ? firstPlaintextKey(runtime.startupFixture) : null);
  if (!key) {
    const first = (accounts ?? runtime.services.accounts.listAccounts())[0];
    if (!first) return noAccountLines(emulator, terminal);
    try {
      key = runtime.services.dashboardKeys.forAccount(first.id).plaintext;
    } catch (e) {
      return [`  no key to export for ${first.id}: ${(e as Error).message}`];
    }
  }
  const vars = [`EXT_BASE_URL=${emulator.baseUrl}`, `EXT_API_KEY=${key}`];
  if (tokenExported(runtime)) vars.push(`EXT_ADMIN_TOKEN=${runtime.control.adminToken}`);
  return [head, `    export ${vars.join(" ")}`];
}

/** Where the key of the export line is to be had, its value left out. */
function exportedKeyPlace(emulator: RunningEmulator, keys: StartupKey[]): string {
  const { runtime } = emulator;
  if (runtime.config.readyFile && keys.length > 0) return "a key from the ready file's apiKeys";
  if (!tokenKeptNowhere(runtime, false)) return `a key: ${controlCommand(emulator, "keys create")}`;
  return keys.some((k) => k.origin === "fixture") ? "a key as written in the fixture" : "none to be had: see above";
}

/** An open control plane wants no token: none to export. */
function tokenExported(runtime: Runtime): boolean {
  return tokenShown(runtime) && !runtime.control.open;
}

function noAccountLines(emulator: RunningEmulator, terminal: boolean): string[] {
  if (tokenKeptNowhere(emulator.runtime, terminal))
    return [`  no account yet, and no way to make one without the token: ${RESTART} (or --seed demo)`];
  return [
    "  no account yet: create one in the dashboard, or load the demo:",
    `    ${seedDemoCommand(emulator, terminal)}`,
  ];
}

/** A command that loads the demo into this server from another shell, with what it needs to be let in. */
function seedDemoCommand(emulator: RunningEmulator, terminal: boolean): string {
  const { config, control } = emulator.runtime;
  // Found by its data directory, its token read from there: nothing to type.
  if (!config.memory) return `${inDataDir(config.dataDir)}ext seed demo --target local`;
  if (control.open) return `ext seed demo --target ${emulator.url}`;
  const token = terminal && tokenShown(emulator.runtime) ? control.adminToken : "<your admin token>";
  return `EXT_ADMIN_TOKEN=${token} ext seed demo --target ${emulator.url}`;
}
