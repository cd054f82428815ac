/**
 * Listening: one runtime, one app, one Bun server. Used by `ext serve`, `ext exec` and `startEmulator()`.
 */

import type { Server } from "bun";
import { API_PREFIX, CONTROL_PREFIX, isIpAddress, urlHost } from "../../common/addresses";
import { dashboardOrigin } from "../../common/dashboard-links";
import { normalJit } from "../../common/jit-policy";
import { removeServerFile, writeServerFile } from "../../common/server-file";
import { markStartup } from "../../common/startup-trace";
import type { ServerConfig } from "../base/config";
import { closeRequestStreams } from "../control-plane/request-stream";
import { createRuntime, createStarterAccount, type Runtime, type RuntimeOptions } from "../runtime/runtime";
import { createApp } from "./app";
import { listenOnLoopback } from "./listen";
import { removeReadyFile, removeStaleReadyFile, writeReadyFile } from "./ready-file";
import { startupKeys } from "./startup-keys";

/**
 * Bun's own cap on a request body, far above the API's caps (JSON 1 MiB, bundles 50 MB unless overridden):
 * an oversized request reaches the app and gets the 413 envelope, decided from Content-Length before a byte
 * is read, or by a running count. Only a body past this outer cap is cut by Bun with a bare 413.
 */
export const MAX_REQUEST_BODY_BYTES = 1024 * 1024 * 1024;

/**
 * How long a graceful stop waits for in-flight requests before it cuts the connections still open, unless
 * `drainMs` says otherwise. Without a bound, one client that stalls in the middle of an upload keeps
 * `ext serve` from exiting on SIGTERM.
 */
export const DRAIN_LIMIT_MS = 5_000;

/**
 * How long (seconds) a connection may sit idle — a keep-alive one between requests above all — before the
 * server closes it. Each open connection holds a file descriptor: thousands of idle ones would exhaust them
 * and starve every other client, so they do not stay long.
 */
export const IDLE_TIMEOUT_S = 10;

/**
 * A request with a body may take longer without a byte moving (a 50 MB bundle on a slow link, then checked
 * before the answer): its connection gets this long while the request is in flight, then IDLE_TIMEOUT_S again.
 */
export const BODY_TIMEOUT_S = 120;

export interface ServerOptions extends RuntimeOptions {
  /** The graceful stop's bound on waiting for in-flight requests; DRAIN_LIMIT_MS by default. */
  drainMs?: number;
  /** IDLE_TIMEOUT_S by default (tests shorten it). */
  idleTimeoutSeconds?: number;
}

export interface RunningEmulator {
  runtime: Runtime;
  port: number;
  /** http://host:port */
  url: string;
  /** The developer API base, ending in /developer/v1. */
  baseUrl: string;
  /** The control plane base, ending in /_emulator. */
  adminUrl: string;
  /** This run's dashboard origin, `http://<label>.localhost:port` (server/dashboard/origin.ts). */
  dashboardUrl: string;
  /** Drains in-flight requests for up to `drainMs` (or cuts them at once with force), then closes the database. */
  stop(force?: boolean): Promise<void>;
  /**
   * Closes every connection waiting for its next request, as the idle limit does, but at a moment of the
   * caller's choosing: the idle limit's timer fires anywhere up to 4 s early, so a test of a client that must
   * survive such a close cannot lean on it. Returns how many were closed.
   */
  closeIdleConnections(): number;
}

export { PortInUseError } from "./listen";

export function startServer(config: ServerConfig, options: ServerOptions = {}): RunningEmulator {
  const drainMs = options.drainMs ?? DRAIN_LIMIT_MS;
  const idleSeconds = options.idleTimeoutSeconds ?? IDLE_TIMEOUT_S;
  // A ready file left by an earlier run would tell a waiting script the old URL: gone before anything else.
  if (config.readyFile) removeStaleReadyFile(config.readyFile);
  const runtime = createRuntime(config, options);
  const app = createApp(runtime);
  markStartup("app built (routes, schemas, hooks)");
  let server: Server<undefined>;
  let twins: Server<undefined>[];
  try {
    // Bun.serve with the app's fetch handler rather than app.listen(): listen() maps every route to a Bun
    // route, then, once the start's own code is done and before the first connection is accepted, composes
    // the app and maps the routes again, reloads the server and collects garbage. Served through its fetch
    // handler, the app routes each request itself and is composed once, here. Both loopback addresses are
    // held (server/start/listen.ts).
    ({ primary: server, twins } = listenOnLoopback(
      {
        hostname: config.host,
        port: config.port,
        reusePort: false,
        maxRequestBodySize: MAX_REQUEST_BODY_BYTES,
        idleTimeout: idleSeconds,
        fetch: withBodyTimeout(app.fetch, idleSeconds),
      },
      (listener) => boundAddress(listener, config.host),
    ));
    app.server = server;
  } catch (e) {
    runtime.close();
    throw e;
  }
  markStartup("listening");
  const listeners = [server, ...twins];
  // The address actually bound, never a name: `localhost` may resolve elsewhere (::1) for the CLI, where
  // another user could listen and relay the proof challenge.
  const url = `http://${urlHost(boundAddress(server, config.host))}:${server.port}`;
  runtime.control.url = url;
  runtime.control.dashboardUrl = dashboardOrigin(runtime.control.dashboardLabel, server.port!);
  runtime.control.holdOpen = (request) => server.timeout(request, 0);
  let stopped = false;
  const emulator: RunningEmulator = {
    runtime,
    port: server.port!,
    url,
    baseUrl: url + API_PREFIX,
    adminUrl: url + CONTROL_PREFIX,
    dashboardUrl: runtime.control.dashboardUrl,
    closeIdleConnections: () => listeners.reduce((closed, listener) => closed + listener.closeIdleConnections(), 0),
    async stop(force = false) {
      if (stopped) return;
      stopped = true;
      // An open dashboard's event stream would otherwise hold the drain until its limit.
      closeRequestStreams(runtime.control.requestLog);
      try {
        await Promise.all(listeners.map((listener) => stopListener(listener, force, drainMs)));
      } finally {
        if (config.exportOnExit) await exportOnExit(runtime, config.exportOnExit);
        runtime.close(); // the database is closed (WAL checkpointed) even if the listener fails to stop
        if (readyFile) removeReadyFile(readyFile.path, readyFile.text);
        if (serverFile) removeServerFile(serverFile);
      }
    },
  };
  const readyFile = config.readyFile ? { path: config.readyFile, text: "" } : null;
  // Before the ready file: a script that waits for it finds the server from its folder at once. A
  // memory-mode server leaves nothing on disk, so it cannot be found this way (its ready file or URL can be given).
  const serverFile = config.memory ? null : advertise(runtime, url);
  try {
    // Once it listens: its key is shown once, by this start (banner and ready file). No request is served
    // before this function returns (Bun accepts connections on the next turn of the event loop). One
    // transaction with the ready file, which carries the key: a file that cannot be written leaves no
    // account whose key nobody saw, and a script never sees the file without the key.
    runtime.db.write(() => {
      if (options.starterAccount) createStarterAccount(runtime);
      if (readyFile) {
        readyFile.text = readyText(emulator);
        writeReadyFile(readyFile.path, readyFile.text);
      }
    });
  } catch (e) {
    // Nobody can learn the URL (or the key): the server must not stay up (nor keep the data directory locked).
    for (const listener of listeners) void listener.stop(true);
    runtime.close();
    if (readyFile) removeReadyFile(readyFile.path, readyFile.text);
    if (serverFile) removeServerFile(serverFile);
    throw e;
  }
  normalJit();
  return emulator;
}

/**
 * The IP address the listener bound (Bun has it at runtime, its types do not declare it); else the host as
 * given, which the CLI refuses in server.json unless it is an IP literal.
 */
function boundAddress(server: Server<undefined>, host: string): string {
  const bound = (server as unknown as { address?: { address?: unknown } }).address?.address;
  return typeof bound === "string" && isIpAddress(bound) ? bound : host;
}

/** server.json in the data directory; a server that cannot write it still serves, it is only not found by folder. */
function advertise(runtime: Runtime, url: string): ReturnType<typeof writeServerFile> | null {
  try {
    return writeServerFile(runtime.config.dataDir, { url, pid: process.pid, adminToken: runtime.control.adminToken });
  } catch (e) {
    runtime.logger.warn("could not write server.json; commands in this folder will not find this server by it", {
      error: (e as Error).message,
    });
    return null;
  }
}

/**
 * `--export-on-exit`: the state as it is once the last request has drained; a failure is logged, not thrown.
 * The export's modules are loaded here, not by every start.
 */
async function exportOnExit(runtime: Runtime, dir: string): Promise<void> {
  try {
    const [{ writeExportDir }, { exportState }] = await Promise.all([
      import("../exports/archive"),
      import("../exports/document"),
    ]);
    writeExportDir(exportState(runtime), (id) => runtime.blobs.pathOf(id), dir);
    runtime.logger.info("state exported", { dir });
  } catch (e) {
    // The state is complete elsewhere (a --memory server's only copy): said loudly, with where it is.
    if ((e as Error).name === "ExportKeptElsewhere") {
      const { keptAt, reason } = e as { keptAt: string; reason: string };
      runtime.logger.error("could not put the export in place; the state is kept elsewhere", { dir, reason, keptAt });
    } else runtime.logger.error("could not export the state on exit", { dir, error: (e as Error).message });
  }
}

/**
 * A request that carries a body gets BODY_TIMEOUT_S while it is served; once its answer is ready the
 * connection is back to the idle limit (Bun keeps a request's timeout for its connection). Only POST, PUT and
 * PATCH carry one here, and they answer small JSON bodies (the long answers, export and events, are GETs).
 */
function withBodyTimeout(
  fetch: (request: Request) => Response | Promise<Response>,
  idleSeconds: number,
): (request: Request, server: Server<undefined>) => Response | Promise<Response> {
  const withTimeout = async (request: Request, server: Server<undefined>) => {
    server.timeout(request, BODY_TIMEOUT_S);
    try {
      return await fetch(request);
    } finally {
      server.timeout(request, idleSeconds);
    }
  };
  // The method first: a GET or HEAD (most requests) is handed on as it is, its body never asked for.
  return (request, server) => {
    const { method } = request;
    if (method === "GET" || method === "HEAD" || request.body === null) return fetch(request);
    return withTimeout(request, server);
  };
}

/** Drains in-flight requests for up to `drainMs` (or cuts them at once with force). */
async function stopListener(server: Server<undefined>, force: boolean, drainMs: number): Promise<void> {
  if (force) await server.stop(true);
  else if (!(await settlesWithin(server.stop(false), drainMs))) await server.stop(true);
}

/** True when `work` settles within `ms`; the timer does not outlive it. */
async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([work.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The ready file: where the server listens, and what its owner's scripts need to use it (0600, like server.json). */
function readyText(emulator: RunningEmulator): string {
  const { control } = emulator.runtime;
  return `${JSON.stringify({
    url: emulator.url,
    baseUrl: emulator.baseUrl,
    adminUrl: emulator.adminUrl,
    dashboardUrl: emulator.dashboardUrl,
    port: emulator.port,
    pid: process.pid,
    adminToken: control.adminToken,
    apiKeys: startupKeys(emulator.runtime).map(({ accountId, name, key }) => ({ accountId, name, key })),
  })}\n`;
}
