/**
 * The app as `ext serve --memory --seed demo` builds it, in process (no socket): for tests that hand it Request
 * objects themselves. Close the runtime when done.
 */
import { parseServerConfig, type ServerFlags } from "../../server/base/config";
import { createRuntime, type RuntimeOptions } from "../../server/runtime/runtime";
import { createApp } from "../../server/start/app";

export function demoApp() {
  const runtime = createRuntime(parseServerConfig({ port: 0, memory: true, logLevel: "silent", seed: "demo" }, {}));
  try {
    return { runtime, app: createApp(runtime) };
  } catch (e) {
    runtime.close();
    throw e;
  }
}

/**
 * A runtime on an in-memory database, logging nothing, with no socket and no app: for tests of services,
 * loads and start-up. `flags` as `ext serve` takes them (a seed, say); `options` as createRuntime takes them.
 * Close it when done.
 */
export const memoryRuntime = (flags: ServerFlags = {}, options: RuntimeOptions = {}) =>
  createRuntime(parseServerConfig({ memory: true, logLevel: "silent", ...flags }, {}), options);

/** GET /developer/v1/extensions with the demo fixture's key (fixtures/demo.json, every scope). */
export const listRequest = () =>
  new Request("http://127.0.0.1:4780/developer/v1/extensions", {
    headers: { authorization: "Bearer ext_demo_0123456789abcdefghijklmnopqrstuv", host: "127.0.0.1:4780" },
  });
