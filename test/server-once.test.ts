/**
 * A start serves the app through one Bun.serve with the app's fetch handler: the server is never reloaded
 * once listening (Elysia's listen() maps the routes again, reloads the server and collects garbage before the
 * first connection is accepted), and the app still answers its routes, its 404 and /healthz.
 */
import { afterEach, expect, test } from "bun:test";
import { parseServerConfig } from "../server/base/config";
import { createLogger } from "../server/base/logger";
import { type RunningEmulator, startServer } from "../server/start/server";

const realServe = Bun.serve;
let running: RunningEmulator | undefined;

afterEach(async () => {
  Bun.serve = realServe;
  await running?.stop(true);
  running = undefined;
});

test("one Bun.serve, never reloaded, and the app answers through it", async () => {
  let serves = 0;
  let reloads = 0;
  Bun.serve = ((options: Parameters<typeof Bun.serve>[0]) => {
    serves++;
    const server = realServe(options);
    const reload = server.reload.bind(server);
    server.reload = ((next: Parameters<typeof server.reload>[0]) => {
      reloads++;
      return reload(next);
    }) as typeof server.reload;
    return server;
  }) as typeof Bun.serve;
  running = startServer(parseServerConfig({ port: 0, memory: true, logLevel: "silent" }, {}), {
    logger: createLogger("silent"),
  });
  // Whatever work a listen() leaves for later runs before the first request is read: let it run, then look.
  await new Promise((resolve) => setImmediate(resolve));
  // One listener per loopback address (server/start/listen.ts): 127.0.0.1, and [::1] where the machine has it.
  expect(serves).toBeLessThanOrEqual(2);
  expect(serves).toBeGreaterThanOrEqual(1);
  expect(reloads).toBe(0);
  const health = await fetch(`${running.url}/healthz`);
  expect(await health.json()).toEqual({ status: "ok" });
  const state = await fetch(`${running.adminUrl}/state`, {
    headers: { authorization: `Bearer ${running.runtime.control.adminToken}` },
  });
  expect(state.status).toBe(200);
  const missing = await fetch(`${running.url}/nowhere`);
  expect(missing.status).toBe(404);
  expect(((await missing.json()) as { error: { code: string } }).error.code).toBe("not_found");
});
