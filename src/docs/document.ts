/**
 * The OpenAPI document without a server: the app is built and asked for /openapi.json in process (no
 * socket), so `ext openapi` prints exactly what a running emulator serves. The document is made from the
 * routes' declarations alone, so the app is built on a runtime that has none of a server's parts — no
 * database, no data directory, no blob store, no services: each stands in as an object that refuses to be
 * used, so building the document can never start to do a server's work.
 */
import { createApp } from "../app";
import { EmulatorClock } from "../clock";
import { parseServerConfig } from "../config";
import { createControlPlane } from "../emulator/control";
import { createLogger } from "../logger";
import { RateLimiter } from "../ratelimit/limiter";
import type { Runtime } from "../runtime";
import { OPENAPI_PATH } from "./openapi";

/**
 * A part the document does not need: any property of it can be read (route builders keep references), but
 * calling anything it holds throws, naming what was called.
 */
function notBuilt(name: string): never {
  const refuse = () => {
    throw new Error(`${name} is not available: only the OpenAPI document is being built`);
  };
  return new Proxy(refuse, {
    get: (_, key) => (typeof key === "symbol" || key === "then" ? undefined : notBuilt(`${name}.${key}`)),
    apply: refuse,
    construct: refuse,
  }) as never;
}

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
    db: notBuilt("db"),
    blobs: notBuilt("blobs"),
    services: notBuilt("services"),
    snapshots: notBuilt("snapshots"),
    cipher: notBuilt("cipher"),
    startupFixture: null,
    fixturePlaintexts: new Map(),
    startupBundleDir: null,
    startupSeedReport: null,
    starter: null,
    seed: notBuilt("seed"),
    close() {},
  };
}

export async function openApiDocument(): Promise<Record<string, unknown>> {
  const res = await createApp(documentRuntime()).handle(new Request(`http://localhost${OPENAPI_PATH}`));
  if (res.status !== 200)
    throw new Error(`the OpenAPI document could not be built (${res.status}): ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}
