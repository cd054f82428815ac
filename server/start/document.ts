/**
 * The OpenAPI document without a server: the app is built and asked for /openapi.json in process (no
 * socket), so `ext openapi` prints exactly what a running emulator serves. The document is made from the
 * routes' declarations alone, so the app is built on a runtime that has none of a server's parts — no
 * database, no data directory, no blob store, no services: each is an empty object, so building the document
 * can never start to do a server's work (a call into one fails as "… is not a function").
 */

import { OPENAPI_PATH } from "../../common/dashboard-links";
import { EmulatorClock } from "../base/clock";
import { parseServerConfig } from "../base/config";
import { createLogger } from "../base/logger";
import { RateLimiter } from "../ratelimit/limiter";
import { createControlPlane } from "../runtime/control-state/control";
import type { Runtime, Services } from "../runtime/runtime";
import { createApp } from "./app";

/** A server part the document does not need: route builders keep a reference to it and never call it. */
const ABSENT = Object.freeze({}) as never;

/** One empty stand-in per service; a service added to the runtime must be named here (the type says so). */
const NO_SERVICES: Services = {
  limits: ABSENT,
  generation: ABSENT,
  auth: ABSENT,
  extensions: ABSENT,
  secrets: ABSENT,
  installs: ABSENT,
  versions: ABSENT,
  limitsView: ABSENT,
  accountWriter: ABSENT,
  keyWriter: ABSENT,
  memberWriter: ABSENT,
  accounts: ABSENT,
  overrides: ABSENT,
  limitRequests: ABSENT,
  adminStatus: ABSENT,
  dashboardKeys: ABSENT,
  bundleContents: ABSENT,
  limitUsage: ABSENT,
  reviewQueue: ABSENT,
  store: ABSENT,
};

/** What `createApp` needs to declare its routes: configuration, clock, logger and the in-memory gates. */
export function documentRuntime(): Runtime {
  // No environment: the document does not depend on how this machine would run a server.
  const config = parseServerConfig({ memory: true, logLevel: "silent" }, {});
  const clock = new EmulatorClock();
  return {
    config,
    clock,
    logger: createLogger("silent"),
    rateLimiter: new RateLimiter(clock, config.rateLimits),
    control: createControlPlane(config, clock),
    db: ABSENT,
    blobs: ABSENT,
    services: NO_SERVICES,
    snapshots: ABSENT,
    cipher: ABSENT,
    startupFixture: null,
    fixturePlaintexts: new Map(),
    startupBundleDir: null,
    startupSeedReport: null,
    starter: null,
    profile: null,
    seed: ABSENT,
    close() {},
  };
}

export async function openApiDocument(): Promise<Record<string, unknown>> {
  const res = await createApp(documentRuntime()).handle(new Request(`http://localhost${OPENAPI_PATH}`));
  if (res.status !== 200)
    throw new Error(`the OpenAPI document could not be built (${res.status}): ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}
